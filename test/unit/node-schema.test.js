'use strict';
/**
 * One declaration per node type (src/schema/nodes.ts) feeds both sides: the runtime reads each
 * node's config through it, and the build writes it to resources/mindsdb-defaults.js, from which
 * every dialog takes its `defaults`. These tests run each real nodes/<type>.html (its inline
 * scripts, with the real resources/mindsdb-editor.js and the built declarations) against a stub
 * of the editor's RED, and fail when what a dialog registers differs from what the runtime reads:
 * a default, a config node type, a required flag, a credential, or a value the dialog's check and
 * the runtime judge differently.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, allNodes, collect, flowWith } = require('../support/nr');

const root = path.resolve(__dirname, '..', '..');
const schema = require(path.join(root, 'nodes', 'schema'));
const { readConfig } = require(path.join(root, 'nodes', 'runtime', 'node', 'config'));
const pkg = require(path.join(root, 'package.json'));

/** What nodes/<type>.html registers, run as Node-RED's editor would run its scripts. */
function registered(type) {
  const html = fs.readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
  const definitions = {};
  const noJquery = () => ({
    each() {},
    val() {
      return undefined;
    },
  }); // no open dialog, no template to build
  const RED = {
    nodes: {
      registerType(t, def) {
        def._ = (key) => key;
        definitions[t] = def;
      },
      getType: (t) => definitions[t],
    },
    // Node-RED's own TypedInput check; ours decide before they hand over to it.
    validators: { typedInput: () => () => true },
  };
  const context = vm.createContext({ RED, $: noJquery, console });
  context.window = context;
  const run = (file) => vm.runInContext(fs.readFileSync(path.join(root, file), 'utf8'), context, { filename: file });
  for (const [, src] of html.matchAll(/<script[^>]+src="resources\/[^/]+\/[^/]+\/([^"]+)"/g))
    run(path.join('resources', src));
  for (const [, code] of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g))
    vm.runInContext(code, context, { filename: `nodes/${type}.html` });
  assert.ok(definitions[type], `nodes/${type}.html registers ${type}`);
  return definitions[type];
}

/**
 * Values a saved flow may hold for a field (text from a dialog, numbers and junk from hand-written
 * flows). An absent value (undefined, null) reads as the default: the tests below read those.
 */
const PROBES = [
  '0',
  '1',
  '2',
  '7',
  ' 7 ',
  '10',
  '100',
  '65535',
  '65536',
  '-1',
  '2.5',
  '.5',
  '0.5',
  '1.',
  '1e3',
  '0x10',
  'abc',
  '',
  ' ',
  0,
  1,
  2.5,
  -3,
  65535,
  1000000,
  true,
  'true',
  'list',
  'create',
  'msg',
  'objects',
  'arrays',
  'csv',
  'json',
  'final',
  'chunks',
  'none',
  'login',
  'bogus',
];

describe('node declarations: one source for the dialog and the runtime', function () {
  this.timeout(20000);
  const types = Object.keys(pkg['node-red'].nodes);

  it('declares every node type of the package, and nothing else', function () {
    assert.deepEqual(Object.keys(schema.SCHEMAS).sort(), [...types].sort());
  });

  for (const type of types) {
    describe(type, function () {
      let def;
      before(function () {
        def = registered(type);
      });

      it('holds no code in its .html: a literal registerType (read by the Flow Library) spreading in its definition', function () {
        const html = fs.readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
        const scripts = [...html.matchAll(/<script type="text\/javascript">\n([\s\S]*?)<\/script>/g)].map((m) => m[1]);
        assert.equal(scripts.length, 1, 'one inline script');
        const lines = scripts[0].split('\n');
        assert.deepEqual(
          [lines[0], ...lines.slice(-4)],
          [
            `RED.nodes.registerType("${type}", {`,
            `    ...MindsDBEditor.definition("${type}")`,
            '});',
            `MindsDBEditor.buildForm("${type}");`,
            '',
          ],
        );
        const literals = lines.slice(1, -4);
        assert.ok(literals.length > 0 && literals[0].startsWith('    category: '), 'its category first');
        for (const line of literals) assert.match(line, /^ {4}\w+: ("[^"]*"|\d+),$/, 'a literal property');
      });

      it('registers the declared defaults (values, config node types, required) and credentials', function () {
        const declared = schema.editorDefaults(schema.SCHEMAS[type]);
        assert.deepEqual(
          Object.keys(def.defaults),
          declared.map(([key]) => key),
          'the same properties, in the same order',
        );
        for (const [key, entry] of declared) {
          const dialog = def.defaults[key];
          // As saved (JSON): an array made in the editor's context is not this context's Array.
          assert.deepEqual(
            JSON.parse(JSON.stringify(dialog.value)),
            entry.value,
            `${key}: the dialog's default is the runtime's`,
          );
          assert.equal(dialog.type, entry.type, `${key}: config node type`);
          assert.equal(dialog.required, entry.required, `${key}: required`);
          assert.equal(
            typeof dialog.validate === 'function',
            entry.check !== undefined,
            `${key}: checked in the dialog as declared`,
          );
        }
        const credentials = schema.SCHEMAS[type].credentials;
        assert.deepEqual(JSON.parse(JSON.stringify(def.credentials ?? {})), credentials, 'credentials');
      });

      it("reads every default the dialog saves as the runtime's own default, with nothing to warn about", function () {
        const saved = JSON.parse(
          JSON.stringify(Object.fromEntries(Object.entries(def.defaults).map(([k, d]) => [k, d.value]))),
        );
        const fromDialog = schema.parseConfig(schema.SCHEMAS[type], saved);
        const absent = schema.parseConfig(schema.SCHEMAS[type], {});
        assert.deepEqual(fromDialog.problems, []);
        assert.deepEqual(absent.problems, []);
        assert.deepEqual(
          fromDialog.config,
          absent.config,
          'a new node from the dialog and a flow without the fields read alike',
        );
      });

      it('judges every value as the runtime does: a number or a choice the dialog accepts is one the runtime uses', function () {
        const fields = schema.SCHEMAS[type].fields;
        const disagree = [];
        for (const [key, field] of Object.entries(fields)) {
          const [, entry] = field.editor(key)[0];
          const kind = entry.check && Object.keys(entry.check)[0];
          // the kinds the runtime parses; text formats are checked where they are used
          if (kind !== 'number' && kind !== 'oneOf') continue;
          for (const v of PROBES) {
            const dialog = def.defaults[key].validate.call({}, v, false) === true;
            const runtime = field.read({ [key]: v }, key).problem === undefined;
            if (dialog !== runtime)
              disagree.push(
                `${key} = ${JSON.stringify(v)}: dialog ${dialog ? 'accepts' : 'refuses'}, runtime ${runtime ? 'uses' : 'refuses'}`,
              );
          }
        }
        assert.deepEqual(disagree, []);
      });
    });
  }

  it('reads the example flows without a value to warn about', function () {
    const problems = [];
    for (const file of fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json'))) {
      for (const node of JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'))) {
        const declared = schema.SCHEMAS[node.type];
        if (declared)
          problems.push(...schema.parseConfig(declared, node).problems.map((p) => `${file} ${node.type}: ${p}`));
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe('reading a saved config', function () {
  const warned = [];
  const node = { warn: (m) => warned.push(m) };
  beforeEach(() => {
    warned.length = 0;
  });

  it('gives an old flow that lacks newer fields the declared defaults', function () {
    // A sql node saved before flow control existed, with the dialog's text for numbers.
    const config = readConfig(node, schema.SQL_NODE, {
      server: 'srv',
      query: 'SELECT 1',
      database: 'files',
      databaseType: 'str',
      rowFormat: 'arrays',
      split: true,
      rowsPerMsg: '250',
    });
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
    const steps = {
      'mindsdb-example': {
        1: (c) => {
          c.rowsPerMsg = c.chunk;
          delete c.chunk;
        },
      },
    };
    const saved = { server: 'srv', chunk: '40' };
    const config = readConfig(node, v2, saved, steps);
    assert.deepEqual(config, { server: 'srv', rowsPerMsg: 40, flowControl: false, version: 2 });
    assert.equal(saved.version, 2, 'the saved config is upgraded in memory and written back on the next deploy');
    const newer = readConfig(node, v2, { server: 'srv', rowsPerMsg: 5, version: 3 }, steps);
    assert.equal(newer.version, 3, 'a config saved by a newer release is used as it is');
  });

  it('uses the declared default for a value the declaration refuses, and says so once', function () {
    const config = readConfig(node, schema.PREDICT_NODE, {
      batch: 'false',
      batchSize: 'lots',
      batchWindow: '2.5',
      paramsType: 'yaml',
      project: 2024,
    });
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
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => {
      helper.startServer(r);
    });
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => {
      helper.stopServer(r);
    });
    await fake.close();
  });

  it('warns once when it starts and runs with the declared default', async function () {
    fake.state.sql = () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: 150 }, (_, i) => [i]) });
    await helper.load(
      allNodes(),
      flowWith(
        { type: 'mindsdb-sql', query: 'SELECT i', split: true, rowsPerMsg: 'ten', partsAhead: 0 },
        { url: fake.url },
      ),
    );
    const warns = helper
      .log()
      .args.map((a) => a[0])
      .filter((e) => e.level === 30 && e.id === 'n1')
      .map((e) => String(e.msg));
    assert.deepEqual(warns, [
      'the node\'s rowsPerMsg: "ten" is not a whole number from 1; using 100',
      "the node's partsAhead: 0 is not a whole number from 1; using 1",
    ]);
    const parts = collect('out', 2);
    helper.getNode('n1').receive({});
    assert.deepEqual(
      (await parts).map((m) => m.payload.length),
      [100, 50],
      'parts of the declared 100 rows',
    );
  });
});
