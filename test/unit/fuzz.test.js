'use strict';
/**
 * Fuzzing: for every action node, 10,000 generated messages (wrong types, huge strings, deep
 * nesting, prototype-pollution keys, unicode, numbers where strings belong) with the outcome
 * invariant: exactly one outcome each, no crash, no unhandled rejection, Object.prototype clean.
 */
const assert = require('node:assert/strict');
const fc = require('fast-check');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, outcomeCounter, watchProcessProblems } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

// 10,000 on the main leg; npm test's compatibility legs (Node-RED 3.1 and 5.0) run the same
// generator with FUZZ_PER_NODE=2000: they check the runtime, not our logic a second time.
const PER_NODE = Number(process.env.FUZZ_PER_NODE) || 10_000;
const BATCH = 500;

/** Values that go wrong in interesting ways. */
const nasty = fc.oneof(
  fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '__proto__', 'constructor', 'prototype', '../..', '%2e%2e', 'a/b?c#d', 'DROP TABLE x; --', 'SELECT 1', 'list', 'get', 'create', 'update', 'delete', 'completions', 'home_rentals', 'mindsdb', '\u0000', '😀'),
  fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
  fc.constant('x'.repeat(100_000)),
  fc.array(fc.record({ sqft: fc.oneof(fc.integer(), fc.string()) }), { maxLength: 5 }),
  fc.object({ key: fc.constantFrom('__proto__', 'constructor', 'sqft', 'name', 'engine', 'parameters', 'polluted'), maxDepth: 2 }),
);
const MSG_KEYS = ['payload', 'query', 'params', 'database', 'timeout', 'project', 'model', 'predictParams', 'operation', 'name', 'agent', 'version', 'filename', 'limit', 'threshold'];
// A Node-RED message is always a plain object (Node-RED's own error routing calls
// msg.hasOwnProperty); what is inside it can be anything.
const message = fc.dictionary(fc.constantFrom(...MSG_KEYS), nasty, { maxKeys: 6 }).map((d) => Object.assign({}, d));

describe(`fuzz: ${PER_NODE.toLocaleString('en')} generated messages per node`, function () {
  this.timeout(180000);
  let fake;
  const problems = watchProcessProblems();
  beforeEach(async () => { fake = await createFakeMindsDB().listen(); await new Promise((r) => helper.startServer(r)); });
  afterEach(async () => { await helper.unload(); await new Promise((r) => helper.stopServer(r)); await fake.close(); });

  NODE_CASES.forEach((nodeCase, k) => {
    it(`${nodeCase.label || nodeCase.type}: every generated message ends in exactly one outcome`, async () => {
      if (nodeCase.setup) nodeCase.setup(fake);
      await helper.load(allNodes(), flowWith({ type: nodeCase.type, ...nodeCase.def }, { url: fake.url, timeout: 2000, retries: 0, maxQueue: 100000 }));
      const counter = outcomeCounter(helper);
      const n1 = helper.getNode('n1');
      const samples = fc.sample(message, { numRuns: PER_NODE, seed: 4242 + k });
      for (let start = 0; start < PER_NODE; start += BATCH) {
        for (let i = start; i < Math.min(PER_NODE, start + BATCH); i++) {
          const msg = samples[i];
          Object.defineProperty(msg, 'marker', { value: i, enumerable: true, writable: true, configurable: true });
          n1.receive(msg);
        }
        await counter.settled(Math.min(PER_NODE, start + BATCH), 60000);
      }
      assert.equal(counter.total, PER_NODE);
      for (const [marker, kinds] of counter.seen) assert.equal(kinds.length, 1, `message ${marker} had ${kinds.length} outcomes`);
      assert.equal(({}).polluted, undefined, 'Object.prototype was polluted');
      assert.deepEqual(problems, []);
    });
  });
});
