'use strict';
/**
 * One declaration per node type (src/schema/nodes.ts): the runtime reads each node's saved config
 * through it, typed, with the declared defaults for what an older flow lacks, and one warning for
 * a value the declaration refuses.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, allNodes, collect, flowWith } = require('../support/nr');

const root = path.resolve(__dirname, '..', '..');
const schema = require(path.join(root, 'nodes', 'schema'));
const { readConfig } = require(path.join(root, 'nodes', 'runtime', 'config'));
const pkg = require(path.join(root, 'package.json'));

describe('node declarations', function () {
  this.timeout(20000);
  const types = Object.keys(pkg['node-red'].nodes);

  it('declares every node type of the package, and nothing else', function () {
    assert.deepEqual(Object.keys(schema.SCHEMAS).sort(), [...types].sort());
  });

  it('reads the example flows without a value to warn about', function () {
    const problems = [];
    for (const file of fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json'))) {
      for (const node of JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'))) {
        const declared = schema.SCHEMAS[node.type];
        if (declared) problems.push(...schema.parseConfig(declared, node).problems.map((p) => `${file} ${node.type}: ${p}`));
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe('reading a saved config', function () {
  const warned = [];
  const node = { warn: (m) => warned.push(m) };
  beforeEach(() => { warned.length = 0; });

  it('gives an old flow that lacks newer fields the declared defaults', function () {
    // A sql node saved before flow control existed, with the dialog's text for numbers.
    const config = readConfig(node, schema.SQL_NODE, { server: 'srv', query: 'SELECT 1', database: 'files', databaseType: 'str', rowFormat: 'arrays', split: true, rowsPerMsg: '250' });
    assert.equal(config.rowsPerMsg, 250);
    assert.equal(config.flowControl, false);
    assert.equal(config.partsAhead, 1);
    assert.equal(config.outputProperty, 'payload');
    assert.deepEqual(config.database, { value: 'files', type: 'str' });
    assert.equal(config.version, schema.SQL_NODE.version);
    assert.deepEqual(warned, []);
  });

  it('runs the migration steps first, then gives what they do not set the declared defaults', function () {
    const v2 = schema.defineNode('mindsdb-example', 2, {
      server: schema.SQL_NODE.fields.server,
      rowsPerMsg: schema.SQL_NODE.fields.rowsPerMsg,
      flowControl: schema.SQL_NODE.fields.flowControl,
    });
    // Version 2 renamed "chunk" to "rowsPerMsg" and added flowControl.
    const steps = { 'mindsdb-example': { 1: (c) => { c.rowsPerMsg = c.chunk; delete c.chunk; } } };
    const saved = { server: 'srv', chunk: '40' };
    const config = readConfig(node, v2, saved, steps);
    assert.deepEqual(config, { server: 'srv', rowsPerMsg: 40, flowControl: false, version: 2 });
    assert.equal(saved.version, 2, 'the saved config is upgraded in memory and written back on the next deploy');
    const newer = readConfig(node, v2, { server: 'srv', rowsPerMsg: 5, version: 3 }, steps);
    assert.equal(newer.version, 3, 'a config saved by a newer release is used as it is');
  });

  it('uses the declared default for a value the declaration refuses, and says so once', function () {
    const config = readConfig(node, schema.PREDICT_NODE, { batch: 'false', batchSize: 'lots', batchWindow: '2.5', paramsType: 'yaml', project: 2024 });
    assert.equal(config.batch, false, 'the text "false" is the boolean');
    assert.equal(config.batchSize, 100);
    assert.equal(config.batchWindow, 50);
    assert.deepEqual(config.params, { value: '', type: 'json' });
    assert.deepEqual(config.project, { value: '2024', type: 'str' }, 'a number in a name field is its text');
    assert.deepEqual(warned, [
      'the node\'s params: its type "yaml" is not a TypedInput type; using {"value":"","type":"json"}',
      'the node\'s batchSize: "lots" is not a whole number from 1; using 100',
      'the node\'s batchWindow: "2.5" is not a whole number from 1; using 50',
    ]);
  });
});

describe('a deployed node with a refused value', function () {
  this.timeout(20000);
  let fake;
  beforeEach(async () => { fake = await createFakeMindsDB().listen(); await new Promise((r) => { helper.startServer(r); }); });
  afterEach(async () => { await helper.unload(); await new Promise((r) => { helper.stopServer(r); }); await fake.close(); });

  it('warns once when it starts and runs with the declared default', async function () {
    fake.state.sql = () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: 150 }, (_, i) => [i]) });
    await helper.load(allNodes(), flowWith({ type: 'mindsdb-sql', query: 'SELECT i', split: true, rowsPerMsg: 'ten', partsAhead: 0 }, { url: fake.url }));
    const warns = helper.log().args.map((a) => a[0]).filter((e) => e.level === 30 && e.id === 'n1').map((e) => String(e.msg));
    assert.deepEqual(warns, [
      'the node\'s rowsPerMsg: "ten" is not a whole number from 1; using 100',
      'the node\'s partsAhead: 0 is not a whole number from 1; using 1',
    ]);
    const parts = collect('out', 2);
    helper.getNode('n1').receive({});
    assert.deepEqual((await parts).map((m) => m.payload.length), [100, 50], 'parts of the declared 100 rows');
  });
});
