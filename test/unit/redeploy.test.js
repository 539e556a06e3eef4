'use strict';
/**
 * Redeploying while requests are in flight finishes or fails each of them exactly once (as a
 * user sees it: output and done(), or done(err) at Catch) and releases every socket. A "modified
 * nodes" deploy of a changed server node restarts the server and the node under test, while the
 * output and Catch nodes keep running and see each message's outcome (done() is seen through the
 * runtime's onComplete hook: Node-RED restarts the Complete node scoped to n1 with n1).
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, flowFor, observeOutcomes } = require('../support/node-cases');
const { helper, allNodes } = require('../support/nr');
const { waitFor } = require('../support/wait');

describe('close and redeploy with requests in flight', function () {
  this.timeout(30000);
  let fake;
  let outcomes;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    if (outcomes) outcomes.dispose();
    outcomes = undefined;
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });

  for (const nodeCase of NODE_CASES) {
    it(`${nodeCase.label || nodeCase.type}: each in-flight message ends exactly once, no socket left`, async () => {
      if (nodeCase.setup) nodeCase.setup(fake);
      const flow = flowFor(nodeCase, { url: fake.url, maxInFlight: 4, retries: 0 });
      await helper.load(allNodes(), flow);
      // done() through the runtime's hook: the Complete node scoped to n1 restarts with it (see observeOutcomes)
      outcomes = observeOutcomes(helper, { ticks: nodeCase.ticks, doneVia: 'hook' });
      // fault: every answer 300 ms late, so the redeploy finds requests in flight
      fake.fault(() => new Promise((resolve) => setTimeout(() => resolve(false), 300)), 20);
      const n1 = helper.getNode('n1');
      const markers = Array.from({ length: 10 }, (_, i) => i);
      for (const i of markers) n1.receive({ ...nodeCase.msg(), marker: i });
      await waitFor(() => fake.requests.length > 0 && fake.state.openConnections > 0, { what: 'a request in flight' });
      const changed = flow.map((n) => (n.id === 'srv' ? { ...n, name: 'renamed' } : n));
      await helper.setFlows(changed, 'nodes');
      assert.notEqual(helper.getNode('n1'), n1, 'the node was restarted');
      await outcomes.settled(markers);
      await outcomes.quiesce();
      outcomes.assertEachOnce(markers);
      await waitFor(() => fake.state.openConnections === 0, {
        timeoutMs: 5000,
        what: () => `every socket of the old server node released (${fake.state.openConnections} open)`,
      });
    });
  }
});
