'use strict';
/**
 * The unit suite runs on the Node-RED that NODE_RED_PACKAGE names (4.1 by default, `node-red-3-1`,
 * `node-red-5-0`). node-red-node-test-helper first initialises itself with whatever `node-red`
 * resolves to (4.1 here) before test/support/nr.js points it at the wanted one, so a leg could
 * silently test 4.1 three times; this checks our nodes are instances of the wanted runtime's Node.
 */
const assert = require('node:assert/strict');
const { createRequire } = require('node:module');
const { helper, node, flowWith } = require('../support/nr');

const runtime = process.env.NODE_RED_PACKAGE || 'node-red';
const fromRuntime = createRequire(require.resolve(`${runtime}/package.json`));
const { version, engines } = fromRuntime('./package.json');

describe(`the Node-RED runtime under test: ${runtime} ${version} on Node.js ${process.versions.node}`, function () {
  before(() => new Promise((r) => helper.startServer(r)));
  after(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  it('is the one NODE_RED_PACKAGE names, on a Node.js that it supports', async function () {
    await helper.load(
      [node('mindsdb-server'), node('mindsdb-sql')],
      flowWith({ type: 'mindsdb-sql', query: 'SELECT 1' }),
    );
    const NodeClass = fromRuntime('@node-red/runtime/lib/nodes/Node');
    assert.ok(helper.getNode('n1') instanceof NodeClass, `the sql node is a Node of ${runtime} ${version}`);
    const semver = require(require.resolve('semver', { paths: [require.resolve('node-red-node-test-helper')] }));
    assert.ok(
      semver.satisfies(process.versions.node, engines.node),
      `Node-RED ${version} needs Node ${engines.node}, this is ${process.versions.node}`,
    );
  });
});
