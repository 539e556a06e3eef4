'use strict';
/**
 * One answer to "what does this failed request mean?" (issue 39): the table in
 * test/support/verdict-table.js against the code that follows from it (the verdict, the retry, the
 * server's health, the outbox, msg.mindsdb.stored), each verdict against each writer node, and the
 * docs' tables, which are written from the same table (`WRITE_DOCS=1 mocha test/unit/verdict.test.js`).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { verdictOf, storedAfter, MindsDBError, ServerHealth } = require('../../nodes/client');
const { RetryPolicy } = require('../../nodes/client/exchange');
const { keepOf, outboxExpired, outboxFull, lostEarlier } = require('../../nodes/runtime/outbox/outbox-policy');
const { FAILURES, DOC_TABLES } = require('../support/verdict-table');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, WRITE_CASES } = require('../support/node-cases');
const { faultOn, notStatus, FAULT_HANDLERS } = require('../support/exchange-faults');
const { helper, allNodes, flowWith, nextMessage } = require('../support/nr');
const { waitFor } = require('../support/wait');

const ROOT = path.join(__dirname, '..', '..');
const describeErr = (e) => `${e.kind}${e.status ? ` ${e.status}` : ''}${e.code ? ` ${e.code}` : ''}`;

/** What the retry rule does with it for a request of each repeat class (first attempt, Retry POST off). */
function retryOf(err, spent) {
  const policy = new RetryPolicy({ retries: 2, baseDelayMs: 1, retryPost: false });
  const deadlineAt = spent ? Date.now() : Date.now() + 60_000;
  const again = (repeat) => policy.decide(0, repeat, err, undefined, deadlineAt).retry;
  const [idempotent, post, never] = [again('idempotent'), again('post'), again('never')];
  if (idempotent && post && never) return 'any';
  if (idempotent && !post && !never) return 'idempotent';
  if (!idempotent && !post && !never) return 'no';
  return `mixed (idempotent ${idempotent}, post ${post}, never ${never})`;
}

/** What the health watcher makes of it, told as the exchange tells it (exchanger.ts: an answer's status, or a failure without one). */
async function healthOf(example) {
  const health = new ServerHealth(() => Promise.reject(new Error('nothing answers')), {
    firstBackoffMs: 5,
    maxBackoffMs: 50,
    idleMs: 3_600_000,
    probeTimeoutMs: 0,
  });
  try {
    if (example.observed !== undefined) health.answered(example.observed);
    else if (example.err.kind === 'network' || example.err.kind === 'timeout') health.failed(example.err);
    if (health.view.state === 'unknown') {
      // a suspected failure is confirmed by a probe 5 ms later; anything else leaves it unknown
      await waitFor(() => health.view.state !== 'unknown', { timeoutMs: 300, what: 'a probe' }).catch(() => undefined);
    }
    const state = health.view.state;
    return { unreachable: 'down', unknown: 'unchanged', busy: 'busy', reachable: 'reachable' }[state];
  } finally {
    health.close();
  }
}

describe('what a failed request means: one verdict, and what follows from it', () => {
  for (const row of FAILURES) {
    it(`${row.failure}: ${row.verdict}`, async () => {
      for (const example of row.examples) {
        const { err } = example;
        const what = `${row.failure} (${describeErr(err)})`;
        assert.equal(verdictOf(err), row.verdict, `${what}: the verdict`);
        assert.equal(retryOf(err, row.spent), row.retry, `${what}: sent again`);
        assert.equal(await healthOf(example), row.health, `${what}: the server's health`);
        assert.equal(keepOf(err), row.outbox, `${what}: the outbox`);
        assert.equal(storedAfter(err), row.stored, `${what}: msg.mindsdb.stored`);
        // an earlier attempt in doubt: a failure that stored nothing now still cannot say
        assert.equal(storedAfter(err, true), 'unknown', `${what}: msg.mindsdb.stored after an attempt in doubt`);
      }
    });
  }

  it('every verdict has a row, and each row says one thing of each column', () => {
    assert.deepEqual([...new Set(FAILURES.map((f) => f.verdict))].sort(), [
      'final',
      'may-have-landed',
      'not-sent',
      'refused',
    ]);
    // The columns follow from the verdict (and, for "may have been done", from whether the answer was lost).
    for (const f of FAILURES) {
      if (f.verdict === 'not-sent' || f.verdict === 'refused') {
        assert.deepEqual([f.retry, f.outbox, f.stored], ['any', 'retry', false], f.failure);
      } else if (f.verdict === 'final') {
        assert.deepEqual([f.retry, f.outbox, f.stored], ['no', 'final', false], f.failure);
      } else {
        assert.equal(f.stored, 'unknown', f.failure);
        assert.equal(f.outbox === 'in-doubt', f.retry === 'idempotent' || f.spent === true, f.failure);
      }
    }
  });

  it("the outbox's own endings say what an earlier attempt may have left", () => {
    const full = outboxFull(10, 0, 5, 0);
    const expired = outboxExpired(Date.now() - 1000, 500);
    assert.equal(storedAfter(full), false);
    assert.equal(storedAfter(expired), false);
    assert.equal(storedAfter(expired, true), 'unknown');
    assert.equal(storedAfter(lostEarlier()), 'unknown');
  });

  it('an error that is not a MindsDBError (a fault in the code) may have come after the request was done', () => {
    assert.equal(verdictOf(new TypeError('x')), 'may-have-landed');
    assert.equal(storedAfter(new TypeError('x')), 'unknown');
    assert.equal(keepOf(new TypeError('x')), 'final');
  });

  it("a read that failed before the write (a lookup of a name, the server's version) stored nothing", () => {
    const read = new MindsDBError('HTTP 500', { kind: 'http', status: 500, method: 'GET', path: '/api/projects' });
    assert.equal(verdictOf(read), 'may-have-landed');
    assert.equal(storedAfter(read), false);
    assert.equal(storedAfter(new MindsDBError('HTTP 500', { ...read, method: 'POST' })), 'unknown');
  });

  it('a multi-step write that knows better says so (a training MindsDB took, whose wait failed)', () => {
    const waitFailed = new MindsDBError('still training', { kind: 'timeout', code: 'ETIMEDOUT', stored: true });
    assert.equal(storedAfter(waitFailed), true);
    assert.equal(storedAfter(new MindsDBError('copied', waitFailed)), true);
  });

  for (const { file, marker, render } of DOC_TABLES) {
    it(`${file} shows the table as it is (WRITE_DOCS=1 writes it)`, () => {
      const full = path.join(ROOT, file);
      const doc = fs.readFileSync(full, 'utf8');
      const re = new RegExp(`(<!-- ${marker}:[^>]*-->\\n)([\\s\\S]*?)(\\n<!-- /${marker} -->)`);
      const m = re.exec(doc);
      assert.ok(m, `${file} has no table between <!-- ${marker}: … --> and <!-- /${marker} -->`);
      const want = render();
      if (process.env.WRITE_DOCS === '1' && m[2] !== want) fs.writeFileSync(full, doc.replace(re, `$1${want}$3`));
      else assert.equal(m[2], want, `${file}: the table differs from test/support/verdict-table.js`);
    });
  }
});

/** The writers: each node case that stores something, by its label in test/support/node-cases.js. */
const WRITERS = [
  'mindsdb-table (insert)',
  'mindsdb-table (insert, batched)',
  'mindsdb-knowledge-base (insert)',
  'mindsdb-sql',
  'mindsdb-file',
  'mindsdb-model (train and wait)',
].map((label) => {
  const c = [...NODE_CASES, ...WRITE_CASES].find((x) => (x.label || x.type) === label);
  assert.ok(c, `no node case "${label}"`);
  return c;
});

const json = (status, body) => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A fault of each verdict, aimed at the writer's own request; `row`: its row in the table. */
const VERDICT_FAULTS = [
  { name: 'connection refused', down: true, row: 0 },
  { name: '503', fault: FAULT_HANDLERS['503'], row: 3 },
  { name: 'lost answer to a write', fault: FAULT_HANDLERS['lost answer to a write'], row: 4 },
  { name: 'HTTP 500', fault: json(500, { title: 'KeyError', detail: "'x'" }), row: 7 },
  { name: 'HTTP 400', fault: json(400, { title: 'Bad Request', detail: 'no' }), row: 10 },
  { name: "the node's own check (msg.timeout)", msg: { timeout: 'soon' }, row: 11 },
];

describe('each verdict against each writer: msg.mindsdb.stored at Catch', function () {
  this.timeout(20_000);
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });

  for (const c of WRITERS) {
    for (const v of VERDICT_FAULTS) {
      const row = FAILURES[v.row];
      it(`${c.label || c.type} × ${v.name} (${row.verdict}): stored ${JSON.stringify(row.stored)}`, async () => {
        if (c.setup) c.setup(fake);
        const url = v.down ? 'http://127.0.0.1:1' : fake.url;
        await helper.load(allNodes(), flowWith({ type: c.type, ...c.def }, { url, retries: 0, timeout: 3000 }));
        if (v.fault) faultOn(fake, c.faultOn || notStatus, v.fault);
        const caught = nextMessage('caught');
        helper.getNode('n1').receive({ ...c.msg(fake), ...v.msg });
        const got = await caught;
        assert.ok(got.error, 'the message reached Catch');
        assert.equal(verdictOf(errorOf(got)), row.verdict, `the verdict of ${got.error.message}`);
        assert.deepEqual(got.mindsdb?.stored, row.stored, `msg.mindsdb: ${JSON.stringify(got.mindsdb)}`);
      });
    }
  }

  it('a training whose wait fails after MindsDB took it: stored true, the model is there', async () => {
    const c = WRITERS.find((w) => w.label === 'mindsdb-model (train and wait)');
    await helper.load(allNodes(), flowWith({ type: c.type, ...c.def }, { url: fake.url, retries: 0, timeout: 3000 }));
    // the train's statement is answered; the first poll of its record is not
    faultOn(fake, (e) => e.method === 'GET' && /\/models\//.test(e.path), json(400, { title: 'Bad Request' }));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive(c.msg(fake));
    const got = await caught;
    assert.match(got.error.message, /goes on in MindsDB/);
    assert.equal(got.mindsdb.stored, true, JSON.stringify(got.mindsdb));
  });
});

/** The error at Catch as the verdict sees it: msg.mindsdbError's fields. */
function errorOf(msg) {
  const e = msg.mindsdbError;
  return e ? new MindsDBError(msg.error.message, e) : new Error(msg.error.message);
}
