'use strict';
/**
 * The outcome observer of the outcome-invariant, fuzz, redeploy and secrets suites
 * (test/support/node-cases.js observeOutcomes) fails on every way a node can break the
 * one-outcome rule: shown on a deliberately broken node, in a real Node-RED flow.
 */
const assert = require('node:assert/strict');
const { observeOutcomes } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

/** A node that ends each message as msg.mode says, right or wrong. */
function brokenNode(RED) {
  function Broken(config) {
    RED.nodes.createNode(this, config);
    this.on('input', (msg, send, done) => {
      const part = (index, count) => ({
        ...msg,
        parts: { id: 'seq', index, ...(count ? { count } : {}) },
        ...(count ? { complete: true } : {}),
      });
      setImmediate(() => {
        // fault: the broken node answers a turn later, as an async node does
        switch (msg.mode) {
          case 'ok':
            send(msg);
            done();
            break;
          case 'error':
            done(new Error('refused'));
            break;
          case 'sequence':
            send(part(0));
            send(part(1));
            send(part(2, 3));
            done();
            break;
          case 'broken sequence, named':
            send(part(0));
            msg.mindsdb = { partsId: 'seq', partsSent: 1 };
            done(new Error('broke'));
            break;
          case 'output, no done()':
            send(msg);
            break;
          case 'done() twice':
            send(msg);
            done();
            done();
            break;
          case 'done() without output':
            done();
            break;
          case 'output and an error':
            send(msg);
            done(new Error('both'));
            break;
          case 'node.error and done()':
            send(msg);
            this.error(new Error('also'), msg);
            done();
            break;
          case 'two outputs':
            send(msg);
            send({ ...msg });
            done();
            break;
          case 'sequence without its last part':
            send(part(0));
            send(part(1));
            done();
            break;
          case 'broken sequence, not named':
            send(part(0));
            done(new Error('broke'));
            break;
          case 'late second done()':
            send(msg);
            done();
            setImmediate(() => done());
            break; // fault: a second done() a turn later
          default:
            throw new Error(`no mode ${msg.mode}`);
        }
      });
    });
  }
  RED.nodes.registerType('broken', Broken);
}

describe('the outcome observer fails on every broken outcome', function () {
  this.timeout(10000);
  beforeEach(async () => {
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  const good = ['ok', 'error', 'sequence', 'broken sequence, named'];
  const bad = [
    'done() twice',
    'done() without output',
    'output and an error',
    'node.error and done()',
    'two outputs',
    'sequence without its last part',
    'broken sequence, not named',
    'late second done()',
  ];

  it(`accepts ${good.join(', ')}; rejects ${bad.join(', ')}`, async () => {
    await helper.load([...allNodes(), brokenNode], flowWith({ type: 'broken' }));
    const outcomes = observeOutcomes(helper);
    const modes = [...good, ...bad];
    for (const mode of modes) helper.getNode('n1').receive({ mode, marker: mode });
    await outcomes.settled(modes);
    await outcomes.quiesce();
    for (const mode of good) assert.equal(outcomes.problem(mode), null, mode);
    for (const mode of bad) assert.notEqual(outcomes.problem(mode), null, `${mode} was accepted`);
    assert.throws(() => outcomes.assertEachOnce(modes), /8 of 12 messages did not end exactly once/);
  });

  it('rejects an output that never gets its done(), at the deadline, naming the message', async () => {
    await helper.load([...allNodes(), brokenNode], flowWith({ type: 'broken' }));
    const outcomes = observeOutcomes(helper);
    helper.getNode('n1').receive({ mode: 'output, no done()', marker: 'x' });
    await assert.rejects(outcomes.settled(['x'], 300), /message x: 1 output\(s\), 0 part\(s\), done\(\) ×0, error ×0/);
  });
});
