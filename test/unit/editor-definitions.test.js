'use strict';
/**
 * Each node type's editor definition (src/editor/node-types.ts, what the .html files spread into
 * their registerType): its canvas and port labels, and which dialog input suggests which of the
 * server's names. The editor code is bundled here by esbuild as the build bundles it, with the
 * built declarations (resources/mindsdb-defaults.js), and its dialog is opened against a stand-in
 * for jQuery that records the inputs it makes and answers the one editor endpoint the pickers ask
 * (POST mindsdb/list/<what>). What the dialogs look like is the browser suite's (test/browser/).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { buildSync } = require('esbuild');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));

/** A module of src/editor/ as CommonJS, with `globals` (RED, $, window) in its scope. */
function load(entry, globals) {
  const { outputFiles } = buildSync({
    entryPoints: [path.join(root, 'src', 'editor', entry)],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'neutral',
    target: 'es2020',
  });
  const module = { exports: {} };
  new Function('module', 'exports', ...Object.keys(globals), outputFiles[0].text)(
    module,
    module.exports,
    ...Object.values(globals),
  );
  return module.exports;
}

/** The declarations the build wrote, as the editor's window holds them. */
function declarations() {
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(path.join(root, 'resources', 'mindsdb-defaults.js'), 'utf8'), sandbox);
  return sandbox.window.MindsDBDeclarations;
}

/** What the stand-in server lists; a project-bound list names its project ("models in mindsdb"). */
function listed(what, project) {
  const flat = {
    databases: ['sensors_pg', 'files'],
    projects: ['mindsdb', 'files'],
    ml_engines: ['openai_engine'],
    ml_handlers: ['openai', 'lightwood'],
  };
  return flat[what] ?? [`${what} in ${project ?? '(no project)'}`];
}

/** What the dialog's name TypedInputs hold. */
const LITERALS = { '#node-input-project': 'mindsdb', '#node-input-database': 'sensors_pg' };

/**
 * A stand-in for jQuery: every selection is one element that takes any call; typedInput and
 * autoComplete options are recorded by selector, a TypedInput holds its LITERALS text, the server
 * is "srv", and $.ajax answers mindsdb/list/<what> with `listed`.
 */
function jquery(made) {
  const selection = (selector) => {
    const self = new Proxy(() => {}, {
      get(_target, prop) {
        if (prop === 'length') return 1;
        if (prop === 'typedInput')
          return (arg) => {
            if (arg === 'type') return 'str';
            if (arg === 'value') return LITERALS[selector] ?? '';
            made.set(selector, arg);
            return self;
          };
        if (prop === 'autoComplete')
          return (options) => {
            made.set(selector, options);
            return self;
          };
        if (prop === 'val') return () => (selector === '#node-input-server' ? 'srv' : undefined);
        return () => self;
      },
    });
    return self;
  };
  const $ = (selector) => selection(selector);
  $.ajax = (options) => {
    const what = options.url.replace('mindsdb/list/', '');
    const answer = { ok: true, items: listed(what, JSON.parse(options.data).project) };
    return {
      done(cb) {
        queueMicrotask(() => cb(answer));
        return this;
      },
      fail() {
        return this;
      },
    };
  };
  return $;
}

function editor() {
  const made = new Map();
  const registered = {};
  const RED = {
    _: (key, options) => options?.defaultValue ?? key,
    nodes: {
      getType: (type) => registered[type],
      node: () => undefined,
      eachConfig() {},
    },
    validators: { typedInput: () => () => true },
  };
  const window = { MindsDBDeclarations: declarations() };
  const { definition, NODE_TYPES, queryLabel, predictLabel } = load('node-types.ts', { RED, $: jquery(made), window });
  /** The definition as registerType keeps it (with its catalogue, here the keys themselves). */
  const define = (type) => {
    registered[type] = { ...definition(type), _: (key) => key };
    return registered[type];
  };
  return { define, made, NODE_TYPES, queryLabel, predictLabel, definition };
}

/** The names each input of `type`'s opened dialog suggests, by input id. */
async function suggestions(type) {
  const { define, made } = editor();
  const def = define(type);
  def.oneditprepare.call({ id: 'n1', type });
  const out = {};
  for (const [selector, options] of made) {
    const search = options.types?.[0]?.autoComplete ?? options.search;
    if (!search) continue;
    out[selector.slice(1)] = await new Promise((resolve) => search('', (items) => resolve(items.map((i) => i.value))));
  }
  return out;
}

describe("the editor's node definitions (what each .html spreads into registerType)", () => {
  it('defines every node type of the package, and refuses an unknown one', () => {
    const { NODE_TYPES, definition } = editor();
    assert.deepEqual([...NODE_TYPES].sort(), Object.keys(pkg['node-red'].nodes).sort());
    assert.throws(() => definition('mindsdb-nothing'), /mindsdb-nothing: no definition/);
  });

  it("labels the sql node by its name, else its query's first 25 characters, else its catalogue", () => {
    const { queryLabel } = editor();
    const t = (key) => `<${key}>`;
    assert.equal(queryLabel.call({ name: 'readings', query: 'SELECT 1' }, t), 'readings');
    assert.equal(queryLabel.call({ query: '  SELECT *\n  FROM   files.x ' }, t), 'SELECT * FROM files.x');
    assert.equal(queryLabel.call({ query: 'SELECT * FROM files.sensor_readings' }, t), 'SELECT * FROM files.senso…');
    assert.equal(queryLabel.call({ query: '' }, t), '<label.node>');
  });

  it('labels the predict node by its name, else the model it predicts with (msg.model from msg)', () => {
    const { predictLabel } = editor();
    const t = (key) => `<${key}>`;
    assert.equal(predictLabel.call({ name: 'rent', model: 'm' }, t), 'rent');
    assert.equal(predictLabel.call({ model: ' home_rentals ', modelType: 'str' }, t), 'predict home_rentals');
    assert.equal(predictLabel.call({ model: 'model', modelType: 'msg' }, t), 'predict msg.model');
    assert.equal(predictLabel.call({ model: '' }, t), '<label.node>');
  });

  it('labels the server node by its name, else its URL', () => {
    const { define } = editor();
    const { label } = define('mindsdb-server');
    assert.equal(label.call({ name: 'prod', url: 'http://a' }), 'prod');
    assert.equal(label.call({ name: '', url: 'http://127.0.0.1:47334' }), 'http://127.0.0.1:47334');
    assert.equal(label.call({}), 'mindsdb');
  });

  it('labels the ports: what goes in, and what comes out for the operation chosen', () => {
    const { define } = editor();
    const out = (type, node) => define(type).outputLabels.call({ type, ...node });
    assert.equal(define('mindsdb-sql').inputLabels(), 'mindsdb-sql.label.inputQuery');
    assert.equal(out('mindsdb-sql', {}), 'mindsdb-sql.label.outputRows');
    assert.equal(out('mindsdb-predict', {}), 'mindsdb-predict.label.outputPredictions');
    assert.equal(
      out('mindsdb-agent', { operation: 'completions', streamMode: 'chunks' }),
      'mindsdb-agent.label.outputChunks',
    );
    assert.equal(
      out('mindsdb-agent', { operation: 'completions', streamMode: 'final' }),
      'mindsdb-agent.label.outputAnswer',
    );
    assert.equal(out('mindsdb-agent', { operation: 'list' }), 'mindsdb-agent.label.outputResult');
    assert.equal(out('mindsdb-view', { operation: 'query' }), 'mindsdb-view.label.outputRows');
    assert.equal(out('mindsdb-knowledge-base', { operation: 'search' }), 'mindsdb-knowledge-base.label.outputRows');
    assert.equal(out('mindsdb-knowledge-base', { operation: 'create' }), 'mindsdb-knowledge-base.label.outputResult');
  });

  it('labels an operation node by what it does: "insert table readings", "list ML engines"', () => {
    const { define } = editor();
    const label = (type, node) => define(type).label.call({ type, ...node });
    assert.equal(
      label('mindsdb-table', { operation: 'insert', table: 'readings', tableType: 'str' }),
      'insert table readings',
    );
    assert.equal(label('mindsdb-ml-engine', { operation: 'list' }), 'list ML engines');
    assert.equal(label('mindsdb-knowledge-base', { operation: 'list' }), 'list knowledge bases');
    assert.equal(
      label('mindsdb-agent', { operation: 'completions', itemName: 'a1', itemNameType: 'str' }),
      'agent a1 completions',
    );
    assert.equal(
      label('mindsdb-file', { operation: 'msg', fileName: 'name', fileNameType: 'msg' }),
      'msg.operation file msg.name',
    );
  });

  it('suggests in each dialog the names the server has for each name field', async () => {
    const inProject = (what) => [`${what} in mindsdb`];
    const expected = {
      'mindsdb-sql': { 'node-input-database': ['files', 'mindsdb', 'sensors_pg'] },
      'mindsdb-predict': { 'node-input-project': ['mindsdb', 'files'], 'node-input-model': inProject('models') },
      'mindsdb-table': { 'node-input-database': ['sensors_pg', 'files'], 'node-input-table': ['tables in sensors_pg'] },
      'mindsdb-ml-engine': {
        'node-input-engineName': ['openai_engine'],
        'node-input-handler': ['openai', 'lightwood'],
      },
      'mindsdb-database': { 'node-input-dbName': ['sensors_pg', 'files'] },
      'mindsdb-project': { 'node-input-itemName': ['mindsdb', 'files'] },
      'mindsdb-file': { 'node-input-fileName': ['files in (no project)'] },
      'mindsdb-chatbot': { 'node-input-project': ['mindsdb', 'files'], 'node-input-itemName': inProject('chatbots') },
      'mindsdb-job': { 'node-input-project': ['mindsdb', 'files'], 'node-input-itemName': inProject('jobs') },
      'mindsdb-view': { 'node-input-project': ['mindsdb', 'files'], 'node-input-itemName': inProject('views') },
      'mindsdb-agent': { 'node-input-project': ['mindsdb', 'files'], 'node-input-itemName': inProject('agents') },
      'mindsdb-skill': {
        'node-input-project': ['mindsdb', 'files'],
        'node-input-itemName': inProject('skills'),
        'node-input-agent': inProject('agents'),
      },
      'mindsdb-model': {
        'node-input-project': ['mindsdb', 'files'],
        'node-input-model': inProject('models'),
        'node-input-database': ['sensors_pg', 'files'],
        'node-input-engine': ['openai_engine'],
      },
      'mindsdb-knowledge-base': {
        'node-input-project': ['mindsdb', 'files'],
        'node-input-itemName': inProject('knowledge_bases'),
        'node-input-storageDatabase': ['sensors_pg', 'files'],
        // the usual embedding providers first, then the server's ML handlers, each once
        'node-input-provider': ['openai', 'azure_openai', 'ollama', 'bedrock', 'gemini', 'lightwood'],
      },
    };
    for (const [type, inputs] of Object.entries(expected)) assert.deepEqual(await suggestions(type), inputs, type);
  });
});
