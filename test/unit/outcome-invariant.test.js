'use strict';
/**
 * The outcome invariant, for every action node against every fault: N messages in → each ends
 * exactly once as a user sees it (test/support/node-cases.js observeOutcomes: one output or one
 * whole sequence and one done(), or one done(err) and no output), no unhandled rejection, no
 * uncaught exception, and the runtime still answers afterwards.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { NODE_CASES, flowFor, observeOutcomes, watchProcessProblems } = require('../support/node-cases');
const { helper, allNodes } = require('../support/nr');
const { matrixDefect } = require('../support/known-defects');

const N = 8;
const TIMEOUT_MS = 300;

describe('outcome invariant: every node × every fault', function () {
  this.timeout(30000);
  let fake;
  const problems = watchProcessProblems();
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  // The fake closes first: a connection a fault still holds then ends at once, instead of holding
  // the server node's close for its grace period.
  afterEach(async () => {
    await fake.close();
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  const cases = [...Object.keys(FAULTS), 'connection refused (no server)'];
  for (const nodeCase of NODE_CASES) {
    for (const fault of cases) {
      const label = nodeCase.label || nodeCase.type;
      const defect = matrixDefect(label, fault);
      it(
        `${label} × ${fault}${defect ? ` (known defect ${defect.id}, ${defect.issue}: expected to fail)` : ''}`,
        expecting(defect, async () => {
          const url = fault.startsWith('connection refused') ? 'http://127.0.0.1:1' : fake.url;
          if (nodeCase.setup) nodeCase.setup(fake);
          await helper.load(allNodes(), flowFor(nodeCase, { url, timeout: TIMEOUT_MS, retries: 0, maxResponseMB: 1 }));
          if (FAULTS[fault]) fake.fault(FAULTS[fault], N * 3);
          const outcomes = observeOutcomes(helper, { ticks: nodeCase.ticks });
          const n1 = helper.getNode('n1');
          const markers = Array.from({ length: N }, (_, i) => i);
          for (const i of markers) n1.receive({ ...nodeCase.msg(), marker: i });
          // Every wait of the node is bounded by the 300 ms timeout (a retry-free server node):
          // a message still open after 8 s hangs.
          await outcomes.settled(markers, 8000);
          if (fault === 'slow answer')
            assert.deepEqual(
              markers.filter((i) => !outcomes.records.get(i).done),
              [],
              'a slow but timely answer succeeds',
            );
          // the runtime still answers: a good message after the fault gets its output
          if (url === fake.url) {
            fake.clearFaults();
            n1.receive({ ...nodeCase.msg(), marker: 'after' });
            await outcomes.settled(['after'], 10000);
            markers.push('after');
          }
          await outcomes.quiesce();
          outcomes.assertEachOnce(markers);
          if (url === fake.url)
            assert.equal(
              outcomes.records.get('after').done,
              1,
              `after the fault: ${outcomes.records
                .get('after')
                .errors.map((m) => m.error.message)
                .join(' | ')}`,
            );
          assert.deepEqual(problems, [], 'no unhandled rejection or uncaught exception');
        }),
      );
    }
  }
});

/**
 * A cell with a known defect passes only while the defect still shows as its signature, and
 * fails once it is gone, so the entry in test/support/known-defects.js is removed with the fix.
 */
function expecting(defect, test) {
  if (!defect) return test;
  return async () => {
    try {
      await test();
    } catch (err) {
      if (defect.signature.test(err.message)) return;
      throw err;
    }
    throw new Error(
      `known defect ${defect.id} (${defect.issue}) no longer shows: remove it from test/support/known-defects.js`,
    );
  };
}
