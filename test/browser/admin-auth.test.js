'use strict';
/**
 * The editor endpoints behind Node-RED's adminAuth, in the real node-red binary (README,
 * "Reliability and security"): without a token they answer 401; a read-only user may list names
 * through a deployed server node as deployed (mindsdb-server.read), and see the sidebar's tree,
 * but neither test connections nor list with dialog values (mindsdb-server.write), nor preview
 * SQL (flows.write), and never through another node's id; only
 * JSON bodies are accepted; a stored password never reaches a server the request chose.
 */
const assert = require('node:assert/strict');
const { createRequire } = require('node:module');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, startNodeRed } = require('./harness');

const RUNTIME = process.env.NODE_RED_PACKAGE || 'node-red';
// Node-RED's own bcrypt implementation, so the hash is one it accepts.
const bcrypt = createRequire(require.resolve(`${RUNTIME}/package.json`, { paths: [root] }))('bcryptjs');
const USERS = { admin: 'admin-pass-1', viewer: 'viewer-pass-2' };
const SCOPES = { admin: '*', viewer: 'read' }; // a token may ask for no more than the user has
const MDB_USER = 'nodered';
const MDB_PASSWORD = 'stored-SECRET-pw-5150';
const STORED = '__PWRD__';

describe('editor endpoints with adminAuth on', function () {
  this.timeout(60000);
  let fake; // the deployed MindsDB, with login
  let open; // a MindsDB without auth, for Test connection
  let attacker; // a server a request might choose
  let red;

  before(async function () {
    fake = await createFakeMindsDB({ auth: { username: MDB_USER, password: MDB_PASSWORD } }).listen();
    open = await createFakeMindsDB().listen();
    attacker = await createFakeMindsDB().listen();
    red = await startNodeRed(
      [
        { id: 'tab1', type: 'tab', label: 'auth' },
        {
          id: 'srv',
          type: 'mindsdb-server',
          url: fake.url,
          apiPrefix: '/api',
          authMode: 'login',
          timeout: 5000,
          retries: 0,
          maxInFlight: 8,
          maxQueue: 100,
          maxResponseMB: 64,
        },
        { id: 'broker', type: 'mqtt-broker', broker: '127.0.0.1', port: 1, autoConnect: false },
      ],
      {
        adminAuth: {
          type: 'credentials',
          users: [
            { username: 'admin', password: bcrypt.hashSync(USERS.admin, 8), permissions: '*' },
            { username: 'viewer', password: bcrypt.hashSync(USERS.viewer, 8), permissions: 'read' },
          ],
        },
      },
      {
        srv: { username: MDB_USER, password: MDB_PASSWORD },
        broker: { user: MDB_USER, password: MDB_PASSWORD },
      },
    );
  });

  after(async function () {
    if (red) await red.stop();
    for (const s of [fake, open, attacker]) if (s) await s.close();
  });

  async function tokenFor(username) {
    const res = await fetch(`${red.url}auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: 'node-red-admin',
        grant_type: 'password',
        scope: SCOPES[username],
        username,
        password: USERS[username],
      }),
    });
    assert.equal(res.status, 200, `login as ${username}`);
    return (await res.json()).access_token;
  }

  const call = (route, token, body = {}, contentType = 'application/json') =>
    fetch(`${red.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: contentType === 'application/json' ? JSON.stringify(body) : body,
    });
  const TEST_BODY = () => ({ url: open.url, apiPrefix: '/api', authMode: 'none' });
  const ATTACK_CONFIG = () => ({
    url: attacker.url,
    apiPrefix: '/api',
    authMode: 'login',
    credentials: { username: MDB_USER, password: STORED },
  });
  const attackerSawPassword = () =>
    attacker.requests.some((r) => JSON.stringify([r.headers, r.rawBody]).includes(MDB_PASSWORD));

  it('refuses both endpoints without a token', async function () {
    assert.equal((await call('mindsdb/test', null, TEST_BODY())).status, 401);
    assert.equal((await call('mindsdb/list/models', null, { server: 'srv' })).status, 401);
    assert.equal(open.requestsTo('/status').length, 0, 'nothing reached MindsDB');
    assert.equal(fake.requests.length, 0, 'nothing reached MindsDB');
  });

  it('lets a read-only user list names through the deployed server node, as deployed', async function () {
    const token = await tokenFor('viewer');
    const list = await call('mindsdb/list/models', token, { server: 'srv', project: 'mindsdb' });
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), { ok: true, items: ['home_rentals', 'lightwood_rentals'] });
  });

  it('refuses a read-only user Test connection and dialog values (write permission), contacting nothing', async function () {
    const token = await tokenFor('viewer');
    const before = open.requests.length;
    // Node-RED answers a missing permission with 401, as it does a missing token.
    assert.equal((await call('mindsdb/test', token, TEST_BODY())).status, 401);
    assert.equal((await call('mindsdb/list/models', token, { server: 'srv', config: TEST_BODY() })).status, 401);
    assert.equal((await call('mindsdb/list/projects', token, { server: 'srv', config: ATTACK_CONFIG() })).status, 401);
    assert.equal(open.requests.length, before, 'the refused requests never reached MindsDB');
    assert.equal(attacker.requests.length, 0);
  });

  it("never lists through another node's id, nor uses its stored password", async function () {
    for (const user of ['viewer', 'admin']) {
      const token = await tokenFor(user);
      const res = await call('mindsdb/list/projects', token, { server: 'broker' });
      assert.deepEqual(await res.json(), { ok: false, error: 'choose a deployed MindsDB server first' });
    }
    const admin = await tokenFor('admin');
    const res = await call('mindsdb/list/projects', admin, { server: 'broker', config: ATTACK_CONFIG() });
    assert.equal((await res.json()).ok, false);
    assert.equal(attackerSawPassword(), false, "the broker's stored password reached the chosen server");
  });

  it("never sends the server node's stored password to a URL the request chose, even for an admin", async function () {
    const admin = await tokenFor('admin');
    const listed = await (
      await call('mindsdb/list/projects', admin, { server: 'srv', config: ATTACK_CONFIG() })
    ).json();
    assert.equal(listed.ok, false);
    const tested = await (await call('mindsdb/test', admin, { id: 'srv', ...ATTACK_CONFIG() })).json();
    assert.equal(tested.ok, false);
    assert.equal(attackerSawPassword(), false);
    assert.ok(!JSON.stringify([listed, tested]).includes(MDB_PASSWORD));
  });

  it('accepts only JSON bodies: a form post gets 415 even with a token', async function () {
    const admin = await tokenFor('admin');
    const form = `server=srv&config[url]=${encodeURIComponent(attacker.url)}&config[authMode]=login&config[credentials][password]=${STORED}`;
    assert.equal((await call('mindsdb/list/projects', admin, form, 'application/x-www-form-urlencoded')).status, 415);
    assert.equal(
      (
        await call(
          'mindsdb/test',
          admin,
          `url=${encodeURIComponent(attacker.url)}`,
          'application/x-www-form-urlencoded',
        )
      ).status,
      415,
    );
    assert.equal((await call('mindsdb/test', admin, JSON.stringify(TEST_BODY()), 'text/plain')).status, 415);
    assert.equal(attacker.requests.length, 0);
  });

  it("the sidebar's tree takes the read permission, as the name pickers do; dialog values take write", async function () {
    assert.equal((await call('mindsdb/tree', null, { server: 'srv' })).status, 401);
    const viewer = await tokenFor('viewer');
    const tree = await call('mindsdb/tree', viewer, { server: 'srv' });
    assert.equal(tree.status, 200);
    assert.deepEqual(
      (await tree.json()).items.map((i) => i.name),
      ['mindsdb'],
    );
    const before = open.requests.length;
    assert.equal((await call('mindsdb/tree', viewer, { server: 'srv', config: TEST_BODY() })).status, 401);
    assert.equal(open.requests.length, before, 'the refused request never reached MindsDB');
  });

  it('the preview takes flows.write: a read-only user is refused before anything is sent; an admin previews', async function () {
    const viewer = await tokenFor('viewer');
    const sent = () => fake.requestsTo('/sql/query').length;
    const before = sent();
    assert.equal((await call('mindsdb/preview', null, { server: 'srv', query: 'SELECT 1' })).status, 401);
    assert.equal((await call('mindsdb/preview', viewer, { server: 'srv', query: 'SELECT 1' })).status, 401);
    assert.equal(sent(), before, 'no statement reached MindsDB');
    const admin = await tokenFor('admin');
    const body = await (await call('mindsdb/preview', admin, { server: 'srv', query: 'SELECT 1 AS one' })).json();
    assert.equal(body.ok, true, body.error);
    assert.deepEqual(body.rows, [[1]]);
    const refused = await (
      await call('mindsdb/preview', admin, { server: 'srv', query: 'DROP TABLE pg.readings' })
    ).json();
    assert.equal(refused.refused, true);
    assert.equal(sent(), before + 1, 'only the SELECT was sent');
    assert.equal(
      (await call('mindsdb/preview', admin, 'query=SELECT%201&server=srv', 'application/x-www-form-urlencoded')).status,
      415,
    );
    const attacked = await (
      await call('mindsdb/preview', admin, { server: 'srv', config: ATTACK_CONFIG(), query: 'SELECT 1' })
    ).json();
    assert.equal(attacked.ok, false);
    assert.equal(attackerSawPassword(), false);
  });

  it('lets a user with write permission test a connection and list with dialog values', async function () {
    const admin = await tokenFor('admin');
    const res = await call('mindsdb/test', admin, TEST_BODY());
    assert.equal(res.status, 200);
    assert.equal((await res.json()).version, '25.14.1');
    const listed = await call('mindsdb/list/models', admin, { server: 'srv', config: TEST_BODY() });
    assert.deepEqual(await listed.json(), { ok: true, items: ['home_rentals', 'lightwood_rentals'] });
  });
});
