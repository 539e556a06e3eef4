'use strict';
/**
 * What a failed request means (issue 39): the one table, each kind of failure with its verdict
 * (src/client/exchange/verdict.ts) and what follows from it: the client's retry, the server's
 * health, the outbox, and a failed write's msg.mindsdb.stored. test/unit/verdict.test.js checks
 * every row against the code and writes the tables of docs/fault-matrix.md and docs/outbox.md from it
 * (`WRITE_DOCS=1`), so the docs say it once.
 */
const { MindsDBError } = require('../../nodes/client');

const net = (code) => ({
  err: new MindsDBError(`cannot reach the MindsDB server: ${code}`, { kind: 'network', code }),
});
const http = (status) => ({
  err: new MindsDBError(`HTTP ${status}`, { kind: 'http', status }),
  observed: status,
});
const kind = (k, observed, extra = {}) => ({
  err: new MindsDBError(k, { kind: k, ...extra }),
  ...(observed ? { observed } : {}),
});

/**
 * A row: the failure in words, examples (`err`, and `observed`: the status the exchange saw, if
 * an answer came), and the expected columns:
 * - `verdict`: verdictOf;
 * - `retry`: `any` (every request, a POST too), `idempotent` (only requests whose resource says
 *   they are), `no`;
 * - `health`: what the server's health watcher makes of it: `down` (suspected, a probe confirms),
 *   `busy`, `reachable`, `unchanged`;
 * - `outbox`: keepOf: `retry` (kept, sent again), `in-doubt`, `final` (Catch);
 * - `stored`: msg.mindsdb.stored of a failed write.
 * `spent`: the failure comes when the message's time is up (a timeout).
 */
const FAILURES = [
  {
    failure: 'connection refused, host unknown, no route, connecting timed out',
    examples: [net('ECONNREFUSED'), net('ENOTFOUND'), net('EHOSTUNREACH'), net('UND_ERR_CONNECT_TIMEOUT')],
    verdict: 'not-sent',
    retry: 'any',
    health: 'down',
    outbox: 'retry',
    stored: false,
  },
  {
    failure:
      'a proxy that did not open its tunnel; the server known down (`EUNREACHABLE`: the request waits for no answer)',
    examples: [net('EPROXYTUNNEL'), net('UND_ERR_PRX_CONN'), net('EUNREACHABLE')],
    verdict: 'not-sent',
    retry: 'any',
    health: 'down',
    outbox: 'retry',
    stored: false,
  },
  {
    failure: 'a full request queue; the connection closed by a redeploy',
    examples: [kind('queue-full'), kind('closed')],
    verdict: 'not-sent',
    retry: 'any',
    health: 'unchanged',
    outbox: 'retry',
    stored: false,
  },
  {
    failure: 'HTTP 429, 503 (MindsDB or a proxy in front of it)',
    examples: [http(429), http(503)],
    verdict: 'refused',
    retry: 'any',
    health: 'busy',
    outbox: 'retry',
    stored: false,
  },
  {
    failure: 'the connection broke after the request was sent',
    examples: [net('ECONNRESET'), net('UND_ERR_SOCKET'), net('EPIPE'), net('ENETWORK')],
    verdict: 'may-have-landed',
    retry: 'idempotent',
    health: 'down',
    outbox: 'in-doubt',
    stored: 'unknown',
  },
  {
    failure: 'HTTP 502, 504 (a gateway answered for the server)',
    examples: [http(502), http(504)],
    verdict: 'may-have-landed',
    retry: 'idempotent',
    health: 'unchanged',
    outbox: 'in-doubt',
    stored: 'unknown',
  },
  {
    failure: "no answer in time (the message's time is then spent)",
    examples: [kind('timeout', undefined, { code: 'ETIMEDOUT' })],
    spent: true,
    verdict: 'may-have-landed',
    retry: 'no',
    health: 'down',
    outbox: 'in-doubt',
    stored: 'unknown',
  },
  {
    failure: 'HTTP 500 (and 501, 505 …): the server failed while it did the request',
    examples: [http(500), http(501)],
    verdict: 'may-have-landed',
    retry: 'no',
    health: 'reachable',
    outbox: 'final',
    stored: 'unknown',
  },
  {
    failure: 'a 2xx answer that cannot be read: over *Max response*, not JSON',
    examples: [kind('too-large', 200), kind('invalid-response', 200)],
    verdict: 'may-have-landed',
    retry: 'no',
    health: 'reachable',
    outbox: 'final',
    stored: 'unknown',
  },
  {
    failure: 'an SQL error: MindsDB ran the statement and the data source refused it whole',
    examples: [kind('sql', 200, { code: 1 })],
    verdict: 'final',
    retry: 'no',
    health: 'reachable',
    outbox: 'final',
    stored: false,
  },
  {
    failure: 'HTTP 400, 404, 409 …; a 401 after a fresh login; a redirect the client does not follow',
    examples: [
      http(400),
      http(404),
      http(409),
      kind('auth', 401, { status: 401 }),
      kind('unsupported', 404),
      kind('redirect', 307),
    ],
    verdict: 'final',
    retry: 'no',
    health: 'reachable',
    outbox: 'final',
    stored: false,
  },
  {
    failure: "the node's own checks of the message; msg.reset; a TLS certificate the client does not accept",
    examples: [
      kind('input'),
      kind('reset'),
      net('CERT_HAS_EXPIRED'),
      net('DEPTH_ZERO_SELF_SIGNED_CERT'),
      net('ERR_TLS_CERT_ALTNAME_INVALID'),
    ],
    verdict: 'final',
    retry: 'no',
    health: 'unchanged',
    outbox: 'final',
    stored: false,
  },
];

const WORDS = {
  verdict: {
    'not-sent': 'not sent',
    refused: 'refused without being done',
    'may-have-landed': 'may have been done',
    final: 'final for the message',
  },
  retry: {
    any: 'yes, any request (429, 503: after Retry-After)',
    idempotent: 'only one its resource says is idempotent (a GET, a PUT that sets, a DELETE)',
    no: 'no',
  },
  health: {
    down: 'down, once a probe confirms',
    busy: 'busy',
    reachable: 'reachable',
    unchanged: 'unchanged',
  },
  outbox: {
    retry: 'kept, sent again',
    'in-doubt': 'in doubt: kept where the node can find out (a key column), else Catch',
    final: 'Catch',
  },
  stored: { false: '`false`', unknown: '`"unknown"`' },
};

const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );

/** The whole table, as docs/fault-matrix.md shows it. */
function faultMatrixTable() {
  return table(
    [
      'a failed request',
      'verdict',
      'sent again by the client',
      "the server's health",
      'the outbox',
      '`msg.mindsdb.stored`',
    ],
    FAILURES.map((f) => [
      f.failure,
      WORDS.verdict[f.verdict],
      WORDS.retry[f.retry],
      WORDS.health[f.health],
      WORDS.outbox[f.outbox],
      WORDS.stored[String(f.stored)],
    ]),
  );
}

/** The outbox's columns of the same table, as docs/outbox.md shows them. */
function outboxTable() {
  return table(
    ['a failed request', 'verdict', 'the outbox', '`msg.mindsdb.stored` at Catch'],
    FAILURES.map((f) => [f.failure, WORDS.verdict[f.verdict], WORDS.outbox[f.outbox], WORDS.stored[String(f.stored)]]),
  );
}

/** Where each table goes: the file, and the markers around it. */
const DOC_TABLES = [
  { file: 'docs/fault-matrix.md', marker: 'verdicts', render: faultMatrixTable },
  { file: 'docs/outbox.md', marker: 'verdicts', render: outboxTable },
];

module.exports = { FAILURES, DOC_TABLES };
