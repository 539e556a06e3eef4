'use strict';
/**
 * Fault handlers for the fake MindsDB (`fake.fault(handler, times)`, or `fake.state.faultPlan`):
 * each answers one request the way a broken network or server would. Test code only.
 *
 * Every entry is named for what the client sees, and documented. The timers in here are
 * deliberate delays of a fault (test/unit/no-fixed-sleeps.test.js allows them in this file
 * only on lines marked `// fault:`). A stall holds its socket until the fake closes (its
 * close() destroys every socket), so a client without a deadline on that byte hangs for as long
 * as the test lets it, instead of being rescued by the server giving up first.
 */
const json =
  (status, body, headers = {}) =>
  (_req, res) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };

/** Holds the socket open with nothing more to say, until the fake closes. */
const hold = () => undefined;

const FAULTS = {
  /** The connection is dropped before any answer. */
  'connection dropped': (req) => {
    req.socket.destroy();
  },
  /** Headers and half a body, then the connection is reset. */
  'reset mid-body': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
    res.write('{"type":"table","column_names":["a"],"data":[[1],[2');
    setTimeout(() => req.socket.destroy(), 5); // fault: the reset comes after the half body has left
  },
  /** No answer at all (past any timeout the tests use); the socket is freed after 3 s. */
  stall: (req) => {
    setTimeout(() => req.socket.destroy(), 3000).unref();
  }, // fault: a server that never answers
  /** The status line and headers, then not one byte of the body (a stall before the body). */
  'stall after headers': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
    res.flushHeaders();
    hold(req);
  },
  /** A 200 whose body stops half-way (stall mid-body), for whole and streamed answers alike. */
  'stall mid-body': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
    res.write('{"type":"table","column_names":["a"],"data":[[1],[2],');
    hold(req);
  },
  /** An error status whose body stops half-way (issue 21 #1: a streamed query used to hang here). */
  'stall in an error body': (req, res) => {
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': 4000 });
    res.write('{"title":"InternalServerError","detail":"the ');
    hold(req);
  },
  'HTTP 500': json(500, { title: 'KeyError', detail: "'x'", message: "'x'" }),
  'HTTP 502': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<h1>502 Bad Gateway</h1>');
  },
  'HTTP 503': json(503, { title: 'Service Unavailable', detail: 'busy' }),
  /** An overloaded server (or the proxy before it) asks the client to wait a second. */
  'HTTP 429 with Retry-After': json(429, { title: 'Too Many Requests', detail: 'slow down' }, { 'retry-after': '1' }),
  'HTTP 503 with Retry-After': json(503, { title: 'Service Unavailable', detail: 'busy' }, { 'retry-after': '1' }),
  'HTTP 401 (expired session)': json(401, {
    title: 'Unauthorized',
    detail: 'Authorization is required to complete the request',
  }),
  /**
   * The server does what was asked (a write is applied: a row stored, a record deleted, a file
   * uploaded), then the connection drops before the first byte of its answer: a retry of a write
   * would do it twice.
   */
  'answer lost after the write': (req, res) => {
    res.writeHead = () => res;
    res.write = () => true;
    res.end = () => {
      req.socket.destroy();
      return res;
    };
    return false; // the fake's own route handles the request, into the stubs above
  },
  'invalid JSON': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"type": "table", oops');
  },
  /** 2 MB, over a 1 MB limit. */
  'body too large': (_req, res) => {
    const big = JSON.stringify({ type: 'table', column_names: ['a'], data: [['x'.repeat(2 * 1024 * 1024)]] });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(big);
  },
  /** One server-sent event (or jsonlines line) of 2 MB, over a 1 MB limit, with no length announced. */
  'oversized event': (req, res) => {
    const sse = /\/completions\/stream$/.test(req.url);
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/jsonlines' });
    if (sse) res.end(`data: ${JSON.stringify({ type: 'data', text: 'x'.repeat(2 * 1024 * 1024) })}\n\n`);
    else
      res.end(
        `${JSON.stringify({ type: 'table', column_names: ['a'] })}\n${JSON.stringify([['x'.repeat(2 * 1024 * 1024)]])}\n`,
      );
  },
  /** A server-sent event stream (or what a client takes for one) that breaks after its first event. */
  'stream broken after one event': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"type": "start", "prompt": "q"}\n\n');
    setTimeout(() => req.socket.destroy(), 5); // fault: the break comes after the first event has left
  },
  /** A slow but timely answer: must succeed. */
  // fault: slow, within every timeout
  'slow answer': () => new Promise((resolve) => setTimeout(() => resolve(false), 100)),
};

/**
 * A fault plan for `fake.state.faultPlan`: each request meets one of `names` with probability
 * `rate`, drawn from a seeded generator so a run can be repeated (and the third request, if no
 * fault came before it). Counts what it injected.
 */
function faultPlan(names, { rate, seed }) {
  let s = seed >>> 0;
  const random = () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const injected = Object.fromEntries(names.map((n) => [n, 0]));
  let requests = 0;
  let any = false;
  const plan = () => {
    // The draws are seeded, but how many requests a run makes depends on timing: the third
    // request is faulted if none was yet, so every run meets at least one fault.
    const forced = rate > 0 && ++requests === 3 && !any;
    if (random() >= rate && !forced) return null;
    any = true;
    const name = names[Math.floor(random() * names.length)];
    injected[name]++;
    return FAULTS[name];
  };
  plan.injected = injected;
  return plan;
}

module.exports = { FAULTS, faultPlan };
