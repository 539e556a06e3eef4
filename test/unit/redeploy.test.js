'use strict';
/**
 * Redeploying while requests are in flight finishes or fails each of them exactly once and
 * releases every socket. A "modified nodes" deploy of a changed server node restarts the server
 * and the node under test, while the output and Catch nodes keep running and count outcomes.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, outcomeCounter } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

describe('close and redeploy with requests in flight', function () {
  this.timeout(30000);
  let fake;
  beforeEach(async () => { fake = await createFakeMindsDB().listen(); await new Promise((r) => helper.startServer(r)); });
  afterEach(async () => { await helper.unload(); await new Promise((r) => helper.stopServer(r)); await fake.close(); });

  for (const nodeCase of NODE_CASES) {
    it(`${nodeCase.label || nodeCase.type}: each in-flight message ends exactly once, no socket left`, async () => {
      if (nodeCase.setup) nodeCase.setup(fake);
      const flow = flowWith({ type: nodeCase.type, ...nodeCase.def }, { url: fake.url, maxInFlight: 4, retries: 0 });
      await helper.load(allNodes(), flow);
      const counter = outcomeCounter(helper);
      fake.fault(() => new Promise((resolve) => setTimeout(() => resolve(false), 300)), 20);
      const n1 = helper.getNode('n1');
      for (let i = 0; i < 10; i++) n1.receive({ ...nodeCase.msg(), marker: i });
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(fake.state.openConnections > 0, 'requests are in flight');
      const changed = flow.map((n) => (n.id === 'srv' ? { ...n, name: 'renamed' } : n));
      await helper.setFlows(changed, 'nodes');
      await counter.settled(10);
      for (let i = 0; i < 10; i++) assert.equal((counter.seen.get(i) || []).length, 1, `message ${i}: ${JSON.stringify(counter.seen.get(i))}`);
      assert.equal(counter.total, 10);
      assert.notEqual(helper.getNode('n1'), n1, 'the node was restarted');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(fake.state.openConnections, 0, 'every socket of the old server node released');
    });
  }
});
