'use strict';
/**
 * Loading our compiled nodes into node-red-node-test-helper (Node-RED 4.1 by default; set
 * NODE_RED_PACKAGE=node-red-3-1 or node-red-5-0 to run the same tests on Node-RED 3.1 or 5.0;
 * 5.0 needs Node 22, see scripts/node-version.mjs). test/unit/node-red-runtime.test.js checks that
 * the helper really runs the one named.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const helper = require('node-red-node-test-helper');
const { deadline } = require('./wait');

const NODES_DIR = path.join(__dirname, '..', '..', 'nodes');
const runtime = process.env.NODE_RED_PACKAGE || 'node-red';
helper.init(require.resolve(runtime));

/** A core node module of the same Node-RED that the helper runs (catch, status, …). */
function coreNode(rel) {
  const { createRequire } = require('node:module');
  const fromRuntime = createRequire(require.resolve(`${runtime}/package.json`));
  return fromRuntime(`@node-red/nodes/core/${rel}`);
}
/** The hooks API (onComplete, onSend, …) of the Node-RED that the helper runs. */
function runtimeHooks() {
  const { createRequire } = require('node:module');
  return createRequire(require.resolve(`${runtime}/package.json`))('@node-red/util').hooks;
}
const catchNode = coreNode('common/25-catch.js');
const completeNode = coreNode('common/24-complete.js');
const changeNode = coreNode('function/15-change.js');

const node = (name) => require(path.join(NODES_DIR, `${name}.js`));
const ALL = [
  'mindsdb-server',
  'mindsdb-sql',
  'mindsdb-predict',
  'mindsdb-database',
  'mindsdb-chatbot',
  'mindsdb-skill',
  'mindsdb-agent',
  'mindsdb-file',
  'mindsdb-job',
  'mindsdb-model',
  'mindsdb-knowledge-base',
  'mindsdb-table',
  'mindsdb-project',
  'mindsdb-view',
  'mindsdb-ml-engine',
];

/** Every node module of the package that has been built. */
function allNodes() {
  const fs = require('node:fs');
  return [
    ...ALL.filter((n) => fs.existsSync(path.join(NODES_DIR, `${n}.js`))).map(node),
    catchNode,
    completeNode,
    changeNode,
  ];
}

/**
 * A flow on tab f1 with a server config node `srv`, the node under test `n1` wired to `out`, a
 * Catch node wired to `caught` and a Complete node scoped to n1 wired to `completed` (what a user
 * wires to see each message's done() and done(err)); `extra` nodes are added as they are.
 */
function flowWith(nodeDef, serverOverrides = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: 'test server',
      url: 'http://127.0.0.1:1',
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 5000,
      retries: 0,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      ...serverOverrides,
    },
    { id: 'n1', z: 'f1', server: 'srv', wires: [['out']], name: '', outputProperty: 'payload', version: 1, ...nodeDef },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
    { id: 'completer', z: 'f1', type: 'complete', scope: ['n1'], uncaught: false, wires: [['completed']] },
    { id: 'completed', z: 'f1', type: 'helper' },
    ...extra,
  ];
}

/** Resolves with the next message that arrives at helper node `id`. */
function nextMessage(id, timeoutMs = 8000) {
  const n = helper.getNode(id);
  return deadline(new Promise((resolve) => n.once('input', resolve)), timeoutMs, `a message at ${id}`);
}

/** Collects `count` messages arriving at helper node `id`. */
function collect(id, count, timeoutMs = 8000) {
  const n = helper.getNode(id);
  const got = [];
  const all = new Promise((resolve) => {
    n.on('input', (msg) => {
      got.push(msg);
      if (got.length === count) resolve(got);
    });
  });
  return deadline(all, timeoutMs, () => `${count} messages at ${id} (${got.length} arrived)`);
}

/**
 * A fresh Node-RED user directory for each case of the calling describe (the package's store file
 * goes there), removed after it. Call it after the describe's own hooks, so that the flow is
 * unloaded (and the store let go of) before the folder goes. `at.dir` is the folder.
 */
function userDirEachCase(prefix = 'mindsdb-userdir-') {
  const at = { dir: '' };
  beforeEach(() => {
    at.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    helper.settings({ userDir: at.dir });
  });
  afterEach(() => {
    helper.settings({});
    fs.rmSync(at.dir, { recursive: true, force: true });
  });
  return at;
}

module.exports = {
  helper,
  userDirEachCase,
  runtimeHooks,
  node,
  coreNode,
  catchNode,
  completeNode,
  changeNode,
  allNodes,
  flowWith,
  nextMessage,
  collect,
  ALL,
};
