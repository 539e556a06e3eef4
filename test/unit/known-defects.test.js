'use strict';
/**
 * The defects in src/ listed in test/support/known-defects.js, each reproduced the way a user
 * meets it. Each test PASSES WHILE ITS DEFECT SHOWS and fails once the defect is fixed, saying
 * which entry to delete (the broad suites then check that case strictly again). Every entry of
 * the table must have its test here.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { KNOWN_DEFECTS } = require('../support/known-defects');
const { NODE_CASES, flowFor, observeOutcomes } = require('../support/node-cases');
const { helper, allNodes } = require('../support/nr');
const { waitFor } = require('../support/wait');
const { MindsDBClient } = require('../../nodes/client');

const byLabel = (label) => NODE_CASES.find((c) => (c.label || c.type) === label);

describe('known defects in src/ (each test fails once its defect is fixed)', function () {
  this.timeout(20000);
  let fake;
  // the fake first: the connections a fault holds end at once, not after the server node's close grace
  afterEach(async () => { if (fake) await fake.close(); fake = undefined; await helper.unload(); await new Promise((r) => helper.stopServer(r)); });

  const reproductions = {
    /** Two queries through one server node with one slot: the first meets the stalled error body. */
    'error-body-stall': async () => {
      fake = await createFakeMindsDB().listen();
      await new Promise((r) => helper.startServer(r));
      const nodeCase = byLabel('mindsdb-sql (split, streamed)');
      await helper.load(allNodes(), flowFor(nodeCase, { url: fake.url, timeout: 300, retries: 0, maxInFlight: 1 }));
      const outcomes = observeOutcomes(helper);
      let stalled = 0;
      fake.state.faultPlan = (entry) => (entry.path.startsWith('/api/sql/query') && stalled++ === 0 ? FAULTS['stall in an error body'] : null);
      helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 0 });
      helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 1 });
      // Ten times the 300 ms timeout: neither message has ended, and the second never left.
      const ended = await outcomes.settled([0, 1], 3000).then(() => true, () => false);
      return !ended && outcomes.records.size === 0 && fake.requestsTo('/sql/query').length === 1
        ? null : `the messages ended (${outcomes.problems([0, 1]).join('; ') || 'each once'}), ${fake.requestsTo('/sql/query').length} queries reached the server`;
    },
    /** {tick: true} into a sql node without flow control. */
    'tick-vanishes': async () => {
      fake = await createFakeMindsDB().listen();
      await new Promise((r) => helper.startServer(r));
      const nodeCase = byLabel('mindsdb-sql (split, streamed)');
      await helper.load(allNodes(), flowFor(nodeCase, { url: fake.url }));
      const outcomes = observeOutcomes(helper);
      helper.getNode('n1').receive({ tick: true, marker: 0 });
      await outcomes.settled([0]);
      await outcomes.quiesce();
      const r = outcomes.records.get(0);
      const vanished = r.done === 1 && r.outputs.length === 0 && r.errors.length === 0 && helper.getNode('n1').warn.callCount === 0;
      return vanished ? null : `the tick ended visibly: ${outcomes.problem(0) || 'once'}, ${r.errors.map((e) => e.error.message).join(' | ')}`;
    },
    /** A wrong password, straight through the client as every node uses it. */
    'login-unhandled-rejection': async () => {
      fake = await createFakeMindsDB({ auth: { username: 'u', password: 'right' } }).listen();
      const unhandled = [];
      const onRejection = (err) => unhandled.push(err);
      process.on('unhandledRejection', onRejection);
      const client = new MindsDBClient({ baseUrl: fake.url, auth: { mode: 'login', username: 'u', password: 'wrong' } });
      try {
        await assert.rejects(client.sql({ query: 'SELECT 1' }), /login to MindsDB as "u" failed \(HTTP 401\)/);
        // Node reports an unhandled rejection once the microtasks of the turn have run.
        await waitFor(() => unhandled.length > 0, { timeoutMs: 1000, what: 'an unhandled rejection' }).catch(() => undefined);
      } finally {
        process.removeListener('unhandledRejection', onRejection);
        await client.close(0);
      }
      return unhandled.length > 0 && /login to MindsDB as "u" failed/.test(unhandled[0].message) ? null : `${unhandled.length} unhandled rejections`;
    },
    /** A proxy's 502 in front of MindsDB, at login. */
    'login-5xx-blames-password': async () => {
      fake = await createFakeMindsDB({ auth: { username: 'u', password: 'right' } }).listen();
      const client = new MindsDBClient({ baseUrl: fake.url, retries: 2, retryBaseDelayMs: 1, auth: { mode: 'login', username: 'u', password: 'right' } });
      const ignore = () => undefined;
      process.on('unhandledRejection', ignore); // login-unhandled-rejection, above
      try {
        fake.state.faultPlan = (entry) => (entry.path.endsWith('/login') ? FAULTS['HTTP 502'] : null);
        const err = await client.sql({ query: 'SELECT 1' }).then(() => null, (e) => e);
        const logins = fake.requestsTo('/login').length;
        return err && err.kind === 'auth' && /failed \(HTTP 502\): the server rejected the username or password/.test(err.message) && logins === 1
          ? null : `the login answered: ${err ? `${err.kind}: ${err.message}` : 'ok'} after ${logins} login request(s)`;
      } finally {
        process.removeListener('unhandledRejection', ignore);
        await client.close(0);
      }
    },
  };

  it('every entry of test/support/known-defects.js has its reproduction here', () => {
    assert.deepEqual(KNOWN_DEFECTS.map((d) => d.id).sort(), Object.keys(reproductions).sort());
  });

  for (const defect of KNOWN_DEFECTS) {
    it(`${defect.id} (${defect.issue}, ${defect.owner}): ${defect.what}`, async () => {
      const reproduce = reproductions[defect.id];
      if (!reproduce) return; // the test above names the missing reproduction
      const fixed = await reproduce();
      if (fixed) assert.fail(`known defect ${defect.id} no longer shows (${fixed}): delete its entry from test/support/known-defects.js`);
    });
  }
});
