'use strict';
/**
 * The editor endpoints behind Node-RED's adminAuth, in the real node-red binary: without a token
 * they answer 401; a read-only user may use the name pickers (mindsdb-server.read) but not Test
 * connection (mindsdb-server.write), which makes the runtime connect with typed credentials.
 */
const assert = require('node:assert/strict');
const { createRequire } = require('node:module');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, startNodeRed } = require('./harness');

const RUNTIME = process.env.NODE_RED_PACKAGE || 'node-red';
// Node-RED's own bcrypt implementation, so the hash is one it accepts.
const bcrypt = createRequire(require.resolve(`${RUNTIME}/package.json`, { paths: [root] }))('bcryptjs');
const USERS = { admin: 'admin-pass-1', viewer: 'viewer-pass-2' };
const SCOPES = { admin: '*', viewer: 'read' }; // a token may ask for no more than the user has

describe('editor endpoints with adminAuth on', function () {
  this.timeout(60000);
  let fake;
  let red;

  before(async function () {
    fake = await createFakeMindsDB().listen();
    red = await startNodeRed([
      { id: 'tab1', type: 'tab', label: 'auth' },
      { id: 'srv', type: 'mindsdb-server', url: fake.url, apiPrefix: '/api', authMode: 'none', timeout: 5000, retries: 0, maxInFlight: 8, maxQueue: 100, maxResponseMB: 64 },
    ], {
      adminAuth: {
        type: 'credentials',
        users: [
          { username: 'admin', password: bcrypt.hashSync(USERS.admin, 8), permissions: '*' },
          { username: 'viewer', password: bcrypt.hashSync(USERS.viewer, 8), permissions: 'read' },
        ],
      },
    });
  });

  after(async function () {
    if (red) await red.stop();
    if (fake) await fake.close();
  });

  async function tokenFor(username) {
    const res = await fetch(`${red.url}auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: SCOPES[username], username, password: USERS[username] }),
    });
    assert.equal(res.status, 200, `login as ${username}`);
    return (await res.json()).access_token;
  }

  const call = (route, token, body = {}) => fetch(`${red.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const TEST_BODY = () => ({ url: fake.url, apiPrefix: '/api', authMode: 'none' });

  it('refuses both endpoints without a token', async function () {
    assert.equal((await call('mindsdb/test', null, TEST_BODY())).status, 401);
    assert.equal((await call('mindsdb/list/models', null, { server: 'srv' })).status, 401);
    assert.equal(fake.requestsTo('/status').length, 0, 'nothing reached MindsDB');
  });

  it('lets a read-only user list names but not test connections', async function () {
    const token = await tokenFor('viewer');
    const list = await call('mindsdb/list/models', token, { server: 'srv', project: 'mindsdb' });
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), { ok: true, items: ['home_rentals'] });
    const before = fake.requestsTo('/status').length;
    // Node-RED answers a missing permission with 401, as it does a missing token.
    assert.equal((await call('mindsdb/test', token, TEST_BODY())).status, 401);
    assert.equal(fake.requestsTo('/status').length, before, 'the refused test never reached MindsDB');
  });

  it('lets a user with write permission test a connection', async function () {
    const res = await call('mindsdb/test', await tokenFor('admin'), TEST_BODY());
    assert.equal(res.status, 200);
    assert.equal((await res.json()).version, '25.14.1');
  });
});
