'use strict';
/**
 * The package as a user gets it: `npm pack`, `npm install` of the tarball in a fresh user
 * directory (which installs its dependencies from the registry, as a user's install does), and a
 * real Node-RED: NODE_RED_PACKAGE names it (`node-red-5-0`, the default: 5.0, the Node-RED users
 * install today; `node-red-3-1`; `node-red` is 4.1), on the Node that runs this suite. Node-RED 5
 * loads nodes with dynamic import(), which node-red-node-test-helper bypasses, so only this proves
 * the packed nodes load there; on every (Node-RED, Node) leg it proves the package's dependencies
 * install and load on that Node. Then a flow deployed through the admin API runs a message through
 * the sql node against the fake MindsDB: http in → mindsdb-sql → http response.
 *
 * Run under Node >= 22.19 (`npm run test:runtime`, or `npm test`, which runs it on every leg), after a build.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, pkg, startNodeRed } = require('../browser/harness');

const NODE_RED = process.env.NODE_RED_PACKAGE || 'node-red-5-0';
const nodeRedVersion = require(`${NODE_RED}/package.json`).version;
const { waitFor } = require('../support/wait');

function flow(mindsdbUrl) {
  return [
    { id: 'tab1', type: 'tab', label: 'packed package' },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: 'fake MindsDB',
      url: mindsdbUrl,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 10000,
      retries: 0,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
    {
      id: 'in1',
      type: 'http in',
      z: 'tab1',
      url: '/rentals',
      method: 'get',
      upload: false,
      swaggerDoc: '',
      wires: [['sql1']],
    },
    {
      id: 'sql1',
      type: 'mindsdb-sql',
      z: 'tab1',
      name: '',
      server: 'srv',
      query: 'SELECT * FROM rentals',
      database: 'mindsdb',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
      outputProperty: 'payload',
      version: 1,
      wires: [['out1']],
    },
    { id: 'out1', type: 'http response', z: 'tab1', statusCode: '', headers: {}, wires: [] },
  ];
}

describe(`the packed package in a real Node-RED ${nodeRedVersion} on Node.js ${process.versions.node}`, function () {
  let tmp;
  let fake;
  let red;

  before(async function () {
    const [major, minor] = process.versions.node.split('.').map(Number);
    assert.ok(
      major > 22 || (major === 22 && minor >= 19),
      `the package needs Node >= 22.19, this is ${process.versions.node}: run npm run test:runtime`,
    );
    assert.ok(fs.existsSync(path.join(root, 'nodes', 'mindsdb-sql.js')), 'nodes/ is not built: npm run build first');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-pack-'));
    // The build has run (npm test and test:runtime build first); --ignore-scripts packs what it made.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    fake = await createFakeMindsDB().listen();
    // Only the admin API and the flow's own http in are used: an empty flow first, ours deployed below.
    red = await startNodeRed([], { httpNodeRoot: '/' }, undefined, {
      tarball: path.join(tmp, packed[0].filename),
      nodeRed: NODE_RED,
    });
  });

  after(async function () {
    if (red) await red.stop();
    if (fake) await fake.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('loads every node of the package with no error', async function () {
    const res = await fetch(`${red.url}nodes`, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    const sets = (await res.json()).filter((s) => s.module === pkg.name);
    assert.deepEqual(sets.flatMap((s) => s.types).sort(), Object.keys(pkg['node-red'].nodes).sort());
    for (const s of sets) {
      // The set's err does not serialise usefully; Node-RED's log says why it failed.
      assert.equal(
        s.err,
        undefined,
        `${s.id} failed to load:\n${red.output
          .join('')
          .split('\n')
          .filter((l) => l.includes(pkg.name) || /Error/.test(l))
          .join('\n')}`,
      );
      assert.equal(s.enabled, true, `${s.id} is enabled`);
      assert.equal(s.version, pkg.version, `${s.id} comes from the tarball`);
    }
    assert.ok(
      fs
        .realpathSync(path.join(red.userDir, 'node_modules', ...pkg.name.split('/')))
        .startsWith(fs.realpathSync(red.userDir)),
      'installed, not linked to this checkout',
    );
  });

  it('loads the sidebar plugin from the tarball, its editor script and its texts', async function () {
    const res = await fetch(`${red.url}plugins`, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    const plugins = (await res.json()).filter((p) => p.module === pkg.name);
    assert.deepEqual(
      plugins.flatMap((p) => p.plugins.map((q) => q.id)),
      Object.keys(pkg['node-red'].plugins),
    );
    for (const p of plugins) assert.equal(p.err, undefined, `${p.id} failed to load`);
    const html = await (await fetch(`${red.url}plugins`, { headers: { accept: 'text/html' } })).text();
    assert.match(html, /mindsdb-sidebar\.js/, 'the editor is told to load the sidebar script');
    assert.equal((await fetch(`${red.url}resources/${pkg.name}/mindsdb-sidebar.js`)).status, 200);
    const texts = await (await fetch(`${red.url}plugins/messages?lng=de`)).json();
    assert.equal(texts[`${pkg.name}/mindsdb-sidebar`].preview.button, 'Vorschau');
  });

  it('runs a message through a deployed flow: http in → mindsdb-sql → http response', async function () {
    const deploy = await fetch(`${red.url}flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(flow(fake.url)),
    });
    assert.equal(deploy.status, 204, await deploy.text());
    // The deploy answers once the flows are started; the route may still take a moment.
    let res;
    await waitFor(
      async () => {
        // A flow that never answers fails here in 10 s, not at mocha's timeout.
        res = await fetch(`${red.url}rentals`, { signal: AbortSignal.timeout(10000) });
        return res.status !== 404;
      },
      { timeoutMs: 10000, intervalMs: 200, what: () => `the flow's route (still ${res?.status})` },
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), [
      { sqft: 917, rental_price: 3901 },
      { sqft: 194, rental_price: 2042 },
    ]);
    assert.deepEqual(
      fake.requestsTo('/sql/query').map((r) => r.body.query),
      ['SELECT * FROM rentals'],
    );
    assert.doesNotMatch(red.output.join(''), /\[error\]/, 'Node-RED logged an error');
  });
});
