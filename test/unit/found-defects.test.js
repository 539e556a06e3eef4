'use strict';
/**
 * Defects the stricter suites (done() observed, fuzz under faults) found in src/, each reproduced
 * the way a user meets it and held fixed here. They were listed in test/support/known-defects.js
 * while the exchange policy was rebuilt; each of these tests failed on the code before its fix.
 */
const assert = require('node:assert/strict');
const { sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { NODE_CASES, flowFor, observeOutcomes } = require('../support/node-cases');
const { helper, allNodes } = require('../support/nr');
const { holdsFor } = require('../support/wait');
const { MindsDBClient, MindsDBError } = require('../../nodes/client');
const { within } = require('../../nodes/client/exchange/deadline');

const byLabel = (label) => NODE_CASES.find((c) => (c.label || c.type) === label);

describe('defects found by the stricter suites, held fixed', function () {
  this.timeout(20000);
  let fake;
  afterEach(async () => {
    if (fake) await fake.close();
    fake = undefined;
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  it('a streamed query whose error body stalls ends with a timeout and frees its slot (issue 21 #1)', async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
    const nodeCase = byLabel('mindsdb-sql (split, streamed)');
    // The two messages that should fail have 300 ms each; the one after them the server node's 3 s
    // (room for a loaded CI machine).
    await helper.load(allNodes(), flowFor(nodeCase, { url: fake.url, timeout: 3000, retries: 0, maxInFlight: 1 }));
    const outcomes = observeOutcomes(helper);
    let stalled = 0;
    fake.state.faultPlan = (entry) =>
      entry.path.startsWith('/api/sql/query') && stalled++ === 0 ? FAULTS['stall in an error body'] : null;
    helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 0, timeout: 300 });
    helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 1, timeout: 300 });
    await outcomes.settled([0, 1], 5000);
    assert.deepEqual(outcomes.problems([0, 1]), []);
    assert.equal(outcomes.records.get(0).errors.length, 1, 'the stalled query fails');
    assert.match(outcomes.records.get(0).errors[0].error.message, /within 300 ms/);
    // The second waited for the slot, and a message's one deadline includes that wait: it ends too.
    assert.equal(outcomes.records.get(1).errors.length, 1);
    // The slot is free again: a query sent now runs and answers.
    helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 2 });
    await outcomes.settled([2], 5000);
    assert.deepEqual(outcomes.problems([2]), []);
    assert.equal(outcomes.records.get(2).errors.length, 0, JSON.stringify(outcomes.records.get(2).errors));
  });

  it('a msg.tick to a sql node whose flow control is off is refused where Catch sees it (issue 21 #4)', async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
    const nodeCase = byLabel('mindsdb-sql (split, streamed)');
    await helper.load(allNodes(), flowFor(nodeCase, { url: fake.url }));
    const outcomes = observeOutcomes(helper);
    helper.getNode('n1').receive({ tick: true, marker: 0 });
    await outcomes.settled([0]);
    const r = outcomes.records.get(0);
    assert.equal(r.outputs.length, 0);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].error.message, /flow control .* is off/);
    assert.equal(fake.requestsTo('/sql/query').length, 0, 'a tick is never a query');
  });

  it('a failed login rejects the request only: no unhandled rejection (it would end Node-RED)', async () => {
    fake = await createFakeMindsDB({ auth: { username: 'u', password: 'right' } }).listen();
    const unhandled = [];
    const onRejection = (err) => unhandled.push(err);
    process.on('unhandledRejection', onRejection);
    const client = new MindsDBClient({ baseUrl: fake.url, auth: { mode: 'login', username: 'u', password: 'wrong' } });
    try {
      await Promise.all(
        [1, 2, 3].map(() =>
          assert.rejects(sql(client, { query: 'SELECT 1' }), /login to MindsDB as "u" failed \(HTTP 401\)/),
        ),
      );
      // Node reports an unhandled rejection after the turn's microtasks: none may come.
      await holdsFor(() => unhandled.length === 0, {
        forMs: 300,
        what: () => `no unhandled rejection (got: ${unhandled.map((e) => e.message).join(' | ')})`,
      });
    } finally {
      process.removeListener('unhandledRejection', onRejection);
      await client.close(0);
    }
  });

  it("a login answered by a proxy's 502 is not blamed on the password", async () => {
    fake = await createFakeMindsDB({ auth: { username: 'u', password: 'right' } }).listen();
    const client = new MindsDBClient({
      baseUrl: fake.url,
      retries: 2,
      retryBaseDelayMs: 1,
      auth: { mode: 'login', username: 'u', password: 'right' },
    });
    try {
      fake.state.faultPlan = (entry) => (entry.path.endsWith('/login') ? FAULTS['HTTP 502'] : null);
      const err = await sql(client, { query: 'SELECT 1' }).then(
        () => null,
        (e) => e,
      );
      assert.ok(err, 'the request fails');
      assert.equal(err.kind, 'http');
      assert.equal(err.status, 502);
      assert.doesNotMatch(err.message, /rejected the username or password/);
      assert.match(err.message, /were not checked/);
    } finally {
      await client.close(0);
    }
  });

  it('a shared wait (a login under way) given up on at an already passed deadline leaves no unhandled rejection', async () => {
    const unhandled = [];
    const onRejection = (err) => unhandled.push(err);
    process.on('unhandledRejection', onRejection);
    try {
      let fail;
      const login = new Promise((_resolve, reject) => {
        fail = reject;
      });
      await assert.rejects(
        within(login, Date.now() - 1, () => new MindsDBError('expired', { kind: 'timeout' })),
        /expired/,
      );
      fail(new MindsDBError('login failed', { kind: 'auth' }));
      await holdsFor(() => unhandled.length === 0, {
        forMs: 100,
        what: () => `no unhandled rejection (got: ${unhandled.map((e) => e.message).join(' | ')})`,
      });
    } finally {
      process.removeListener('unhandledRejection', onRejection);
    }
  });
});
