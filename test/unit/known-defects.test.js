'use strict';
/**
 * The defects in src/ listed in test/support/known-defects.js, each reproduced the way a user
 * meets it. Each test PASSES WHILE ITS DEFECT SHOWS and fails once the defect is fixed, saying
 * which entry to delete (the broad suites then check that case strictly again). Every entry of
 * the table must have its test here.
 */
const assert = require('node:assert/strict');
const { KNOWN_DEFECTS } = require('../support/known-defects');
const { helper } = require('../support/nr');

describe('known defects in src/ (each test fails once its defect is fixed)', function () {
  this.timeout(20000);
  let fake;
  // the fake first: the connections a fault holds end at once, not after the server node's close grace
  afterEach(async () => {
    if (fake) await fake.close();
    fake = undefined;
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  // id → an async function that reproduces the defect: null while it shows, else what it saw.
  const reproductions = {};

  it('every entry of test/support/known-defects.js has its reproduction here', () => {
    assert.deepEqual(KNOWN_DEFECTS.map((d) => d.id).sort(), Object.keys(reproductions).sort());
  });

  for (const defect of KNOWN_DEFECTS) {
    it(`${defect.id} (${defect.issue}, ${defect.owner}): ${defect.what}`, async () => {
      const reproduce = reproductions[defect.id];
      if (!reproduce) return; // the test above names the missing reproduction
      const fixed = await reproduce();
      if (fixed)
        assert.fail(
          `known defect ${defect.id} no longer shows (${fixed}): delete its entry from test/support/known-defects.js`,
        );
    });
  }
});
