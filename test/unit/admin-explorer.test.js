'use strict';
/**
 * The sidebar's editor endpoints (src/runtime/editor/admin-explorer.ts): POST mindsdb/tree (one
 * level of what the server holds) and POST mindsdb/preview (a statement that reads, at most 20
 * rows), each with the guards of every editor endpoint. Permissions are checked in the real
 * node-red binary (test/browser/admin-auth.test.js); here: JSON bodies only, no writing
 * statement sent, no stored secret to a URL the request chose, no secret in an answer.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { closedPortUrl: freePortUrl } = require('../support/ports');
const { helper, allNodes } = require('../support/nr');

const USER = 'nodered';
const PASSWORD = 'pw-SECRET-explorer-2718';
const STORED = '__PWRD__';

describe("the sidebar's editor endpoints: tree and preview", function () {
  this.timeout(20000);
  let fake;
  let attacker;
  beforeEach(async () => {
    fake = await createFakeMindsDB({ auth: { username: USER, password: PASSWORD } }).listen();
    attacker = await createFakeMindsDB().listen();
    fake.state.databases.set('pg', { id: 7, name: 'pg', type: 'data', engine: 'postgres', connection_data: {} });
    fake.state.tables.set('pg/readings', { name: 'readings', columns: [], rows: [] });
    await new Promise((r) => helper.startServer(r));
    await helper.load(
      allNodes(),
      [
        { id: 'f1', type: 'tab' },
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
      ],
      { srv: { username: USER, password: PASSWORD } },
    );
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
    await attacker.close();
    delete process.env.MINDSDB_EXPLORER_SECRET;
  });

  const post = (path, body) =>
    helper
      .request()
      .post(path)
      .send(body)
      .expect(200)
      .then((res) => res.body);
  const sqlSent = () => fake.requestsTo('/sql/query').length;

  it("answers the tree one level at a time: roots, a data source's schemas and tables, a project's models", async () => {
    assert.deepEqual(await post('/mindsdb/tree', { server: 'srv' }), {
      ok: true,
      items: [
        { name: 'mindsdb', kind: 'project' },
        { name: 'pg', kind: 'datasource', engine: 'postgres' },
      ],
    });
    const pg = await post('/mindsdb/tree', { server: 'srv', kind: 'datasource', database: 'pg' });
    assert.deepEqual(pg.items, [
      {
        name: 'public',
        kind: 'schema',
        children: [
          {
            name: 'readings',
            kind: 'table',
            schema: 'public',
            select: 'SELECT * FROM `pg`.`public`.`readings` LIMIT 100',
          },
        ],
      },
    ]);
    const project = await post('/mindsdb/tree', { server: 'srv', kind: 'project', database: 'mindsdb' });
    assert.deepEqual(
      project.items.map((i) => [i.name, i.kind, i.status]),
      [
        ['home_rentals', 'model', 'complete'],
        ['lightwood_rentals', 'model', 'complete'],
      ],
    );
    assert.equal(fake.requestsTo('/tree/pg').length, 1, "a data source's tables are asked for only when it is opened");
    assert.deepEqual(await post('/mindsdb/tree', { server: 'srv', kind: 'bogus' }), {
      ok: false,
      error: 'the tree has no level "bogus"',
    });
  });

  it('previews a statement that reads: at most 20 rows, and says there are more', async () => {
    fake.state.sql = () => ({ type: 'table', column_names: ['n'], data: Array.from({ length: 50 }, (_, i) => [i]) });
    const body = await post('/mindsdb/preview', { server: 'srv', query: 'SELECT n FROM pg.readings', database: 'pg' });
    assert.equal(body.ok, true, body.error);
    assert.deepEqual(body.columns, ['n']);
    assert.equal(body.rows.length, 20);
    assert.equal(body.more, true);
    assert.deepEqual(fake.requestsTo('/sql/query')[0].body.context, { db: 'pg' }, "in the dialog's database");
  });

  it("shows MindsDB's error for a statement that fails", async () => {
    const body = await post('/mindsdb/preview', { server: 'srv', query: 'SELECT FROM WHERE' });
    assert.equal(body.ok, false);
    assert.ok(body.error.length > 0);
    assert.equal(body.refused, undefined, 'sent, and refused by MindsDB, not by the rule');
  });

  it('guard: a statement that writes is refused before anything is sent', async () => {
    for (const query of [
      'DELETE FROM pg.readings',
      'SELECT * FROM pg (DELETE FROM readings RETURNING *)',
      'SELECT 1; DROP TABLE pg.readings',
      'CREATE MODEL m PREDICT x',
    ]) {
      const body = await post('/mindsdb/preview', { server: 'srv', query });
      assert.equal(body.ok, false, query);
      assert.equal(body.refused, true, query);
      assert.match(body.error, /only a statement that reads/);
    }
    assert.equal(sqlSent(), 0, 'no statement reached MindsDB');
    assert.equal(fake.requestsTo('/login').length, 0, 'not even a login');
  });

  it('guard: JSON bodies only, on both routes (a cross-site form gets 415 and contacts nothing)', async () => {
    for (const path of ['/mindsdb/tree', '/mindsdb/preview']) {
      const form = await helper
        .request()
        .post(path)
        .type('form')
        .send(`server=srv&query=SELECT%201&config[url]=${encodeURIComponent(attacker.url)}`);
      assert.equal(form.status, 415, path);
      const text = await helper
        .request()
        .post(path)
        .set('content-type', 'text/plain')
        .send(JSON.stringify({ server: 'srv', query: 'SELECT 1' }));
      assert.equal(text.status, 415, path);
    }
    assert.equal(fake.requests.length + attacker.requests.length, 0);
  });

  it('guard: the stored password never goes to a URL the request chose', async () => {
    const config = {
      url: attacker.url,
      apiPrefix: '/api',
      authMode: 'login',
      credentials: { username: USER, password: STORED },
    };
    const tree = await post('/mindsdb/tree', { server: 'srv', config });
    const preview = await post('/mindsdb/preview', { server: 'srv', config, query: 'SELECT 1' });
    for (const body of [tree, preview]) {
      assert.equal(body.ok, false);
      assert.match(body.error, /type it again/);
    }
    assert.equal(attacker.requests.length, 0, 'nothing reached the chosen server');
    // The deployed target itself: the stored password fills the placeholder.
    const same = await post('/mindsdb/tree', { server: 'srv', config: { ...config, url: fake.url } });
    assert.equal(same.ok, true, same.error);
  });

  it('guard: no answer repeats a secret or a resolved ${VAR}', async () => {
    process.env.MINDSDB_EXPLORER_SECRET = 'env-SECRET-token-1618';
    const config = {
      url: fake.url,
      apiPrefix: '/api',
      authMode: 'token',
      credentials: { token: '${MINDSDB_EXPLORER_SECRET}' },
    };
    for (const [path, extra] of [
      ['/mindsdb/tree', {}],
      ['/mindsdb/preview', { query: 'SELECT 1' }],
    ]) {
      const body = await post(path, { server: 'srv', config, ...extra });
      assert.equal(body.ok, false, path);
      assert.ok(!JSON.stringify(body).includes('SECRET-token-1618'), JSON.stringify(body));
    }
    // A ${VAR} URL where nothing listens: the connection error would name its host.
    process.env.MINDSDB_EXPLORER_SECRET = (await freePortUrl()).replace('127.0.0.1', 'localhost');
    const hidden = new URL(process.env.MINDSDB_EXPLORER_SECRET).host;
    for (const [path, extra] of [
      ['/mindsdb/tree', {}],
      ['/mindsdb/preview', { query: 'SELECT 1' }],
    ]) {
      const body = await post(path, {
        server: 'srv',
        config: { url: '${MINDSDB_EXPLORER_SECRET}', apiPrefix: '/api', authMode: 'none' },
        ...extra,
      });
      assert.equal(body.ok, false, path);
      assert.match(body.error, /refused|connect/i);
      assert.ok(!body.error.includes(hidden), body.error);
    }
    // A server whose login error repeats the user name it was sent, here one from ${VAR}.
    process.env.MINDSDB_EXPLORER_SECRET = 'env-SECRET-user-3141';
    for (const [path, extra] of [
      ['/mindsdb/tree', {}],
      ['/mindsdb/preview', { query: 'SELECT 1' }],
    ]) {
      fake.state.faults.push((_req, res, entry) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ title: 'Forbidden', detail: `no user ${entry.body?.username}` }));
      });
      const body = await post(path, {
        server: 'srv',
        config: {
          url: fake.url,
          apiPrefix: '/api',
          authMode: 'login',
          credentials: { username: '${MINDSDB_EXPLORER_SECRET}', password: 'typed-pw' },
        },
        ...extra,
      });
      assert.equal(body.ok, false, path);
      assert.ok(!body.error.includes('SECRET-user-3141'), body.error);
    }
    fake.state.sql = () => ({
      type: 'error',
      error_code: 0,
      error_message: `cannot log in as ${USER} with ${PASSWORD}`,
    });
    const echoed = await post('/mindsdb/preview', { server: 'srv', query: 'SELECT 1' });
    assert.equal(echoed.ok, false);
    assert.ok(!echoed.error.includes(PASSWORD), echoed.error);
  });

  it("a dialog's own timeout and answer limit apply to its preview", async () => {
    fake.state.sql = () => ({ type: 'table', column_names: ['t'], data: [['x'.repeat(2 * 1024 * 1024)]] });
    const config = {
      url: fake.url,
      apiPrefix: '/api',
      authMode: 'login',
      credentials: { username: USER, password: PASSWORD },
      maxResponseMB: 1,
    };
    const body = await post('/mindsdb/preview', { server: 'srv', config, query: 'SELECT t FROM pg.readings' });
    assert.equal(body.ok, false);
    assert.match(body.error, /MB|limit|large/i);
    // The dialog's timeout, not the editor endpoints' own 10 s: a slow answer fails at 500 ms.
    fake.state.sql = null;
    fake.state.faultPlan = (entry) =>
      // fault: an answer slower than the dialog's timeout
      entry.path.includes('/sql/query') ? () => new Promise((r) => setTimeout(() => r(false), 6000)) : null;
    const started = Date.now();
    const slow = await post('/mindsdb/preview', {
      server: 'srv',
      config: { ...config, maxResponseMB: 64, timeout: 500 },
      query: 'SELECT 1',
    });
    assert.equal(slow.ok, false, "answered after the dialog's timeout");
    assert.match(slow.error, /within 500 ms/);
    assert.ok(Date.now() - started < 4000, "failed at the dialog's timeout, before the answer came (at 6 s)");
  });
});
