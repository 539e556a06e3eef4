'use strict';
/**
 * The outcome invariant, for every action node against every fault: N messages in → exactly N
 * outcomes (one output or one error at Catch, each message once), no unhandled rejection, no
 * uncaught exception, and the runtime still answers afterwards.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { NODE_CASES, outcomeCounter, watchProcessProblems } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

const N = 8;

describe('outcome invariant: every node × every fault', function () {
  this.timeout(30000);
  let fake;
  const problems = watchProcessProblems();
  beforeEach(async () => { fake = await createFakeMindsDB().listen(); await new Promise((r) => helper.startServer(r)); });
  afterEach(async () => { await helper.unload(); await new Promise((r) => helper.stopServer(r)); await fake.close(); });

  const cases = [...Object.keys(FAULTS), 'connection refused (no server)'];
  for (const nodeCase of NODE_CASES) {
    for (const fault of cases) {
      it(`${nodeCase.label || nodeCase.type} × ${fault}`, async () => {
        const url = fault.startsWith('connection refused') ? 'http://127.0.0.1:1' : fake.url;
        if (nodeCase.setup) nodeCase.setup(fake);
        await helper.load(allNodes(), flowWith({ type: nodeCase.type, ...nodeCase.def }, { url, timeout: 300, retries: 0, maxResponseMB: 1 }));
        if (FAULTS[fault]) fake.fault(FAULTS[fault], N * 3);
        const counter = outcomeCounter(helper);
        const n1 = helper.getNode('n1');
        for (let i = 0; i < N; i++) n1.receive({ ...nodeCase.msg(), marker: i });
        await counter.settled(N);
        assert.equal(counter.total, N, 'exactly one outcome per message');
        for (let i = 0; i < N; i++) assert.equal((counter.seen.get(i) || []).length, 1, `message ${i}: ${JSON.stringify(counter.seen.get(i))}`);
        if (fault === 'slow answer') assert.ok([...counter.seen.values()].every((k) => k[0] === 'out'), 'a slow but timely answer succeeds');
        // the runtime still answers: a good message after the fault gets its output
        if (url === fake.url) {
          fake.clearFaults();
          await new Promise((r) => setTimeout(r, 50));
          n1.receive({ ...nodeCase.msg(), marker: 'after' });
          await counter.settled(N + 1);
          assert.deepEqual(counter.seen.get('after'), ['out']);
        }
        assert.deepEqual(problems, [], 'no unhandled rejection or uncaught exception');
      });
    }
  }
});
