'use strict';
/**
 * The Node.js floor check (src/runtime/node/floor.ts): which versions it refuses and with what
 * text, the error's shape that Node-RED's log and palette manager show, and that every node file
 * and the sidebar plugin load it before anything else. test/floor/ runs the package on Node 20
 * in a real Node-RED; this suite runs on a supported Node, where loading the check passes.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const { belowFloor, floorOf, nodeVersionError } = require(path.join(root, 'nodes', 'runtime', 'node', 'floor.js'));

describe('the Node.js floor', function () {
  it('is package.json engines.node, the floor scripts/node-version.mjs runs the suites on', async function () {
    const { FLOOR } = await import(pathToFileURL(path.join(root, 'scripts', 'node-version.mjs')).href);
    assert.deepEqual(floorOf(pkg.engines.node), [FLOOR.major, FLOOR.minor, 0]);
  });

  it('refuses a Node.js below it, naming the package, the version it needs and the one it found', function () {
    const text = belowFloor(pkg, '20.20.2');
    assert.match(text, /^@mindsdb-flows\/node-red-mindsdb needs Node\.js 22\.19 or later/);
    assert.match(text, /runs on Node\.js 20\.20\.2/);
    assert.match(text, /undici 8/);
    for (const older of ['18.20.8', '20.20.2', '22.9.0', '22.18.9', 'v22.18.0'])
      assert.ok(belowFloor(pkg, older), `${older} is below 22.19`);
    for (const newer of ['22.19.0', '22.19.1', '22.23.3', '23.0.0', '24.21.0', '26.12.1', 'v24.0.0'])
      assert.equal(belowFloor(pkg, newer), undefined, `${newer} is not below 22.19`);
  });

  it('names the patch only when the floor has one', function () {
    const at = (range) => belowFloor({ name: 'p', engines: { node: range } }, '20.0.0');
    assert.match(at('>=22.19.0'), /needs Node\.js 22\.19 or later/);
    assert.match(at('>=22.19.2'), /needs Node\.js 22\.19\.2 or later/);
    assert.throws(() => at('^22.19.0'), /engines\.node must read ">=MAJOR\.MINOR\.PATCH", not "\^22\.19\.0"/);
  });

  it('fails with an error whose message survives JSON and whose stack names no file', function () {
    const err = nodeVersionError('needs Node.js 22.19');
    // The palette manager gets the node set's error as JSON; Node-RED's log prints String(err).
    assert.deepEqual(JSON.parse(JSON.stringify(err)), { message: 'needs Node.js 22.19' });
    assert.equal(String(err), 'Error: needs Node.js 22.19');
    // Node-RED 3.1 and 4.1 append "(line:N)" when the stack names the node file.
    assert.equal(err.stack, 'Error: needs Node.js 22.19');
  });

  it('is what every node file and the sidebar plugin load first', function () {
    const entries = [...Object.values(pkg['node-red'].nodes), ...Object.values(pkg['node-red'].plugins)];
    assert.ok(entries.length >= 17, `${entries.length} entries`);
    const late = entries.filter((file) => {
      const first = /\brequire\("([^"]+)"\)/.exec(fs.readFileSync(path.join(root, file), 'utf8'));
      return first?.[1] !== './runtime/node/floor';
    });
    assert.deepEqual(late, [], 'these load something before the floor check');
  });
});
