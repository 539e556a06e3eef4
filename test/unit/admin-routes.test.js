'use strict';
/**
 * The editor's admin endpoints: POST mindsdb/test (the server dialog's Test connection) and
 * POST mindsdb/list/<what> (the name pickers). They work from the dialog's values before anything
 * is deployed, fill secrets the editor only sees as placeholders from the stored credentials, and
 * never send a secret back, not even inside a server's error.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { closedPortUrl: freePortUrl } = require('../support/ports');
const { helper, allNodes, coreNode } = require('../support/nr');

const USER = 'nodered';
const PASSWORD = 'pw-SECRET-admin-4321';
const STORED = '__PWRD__'; // what the editor holds for a stored password

describe('admin endpoints for the editor', function () {
  this.timeout(20000);
  let fake;
  let open;
  beforeEach(async () => {
    fake = await createFakeMindsDB({ auth: { username: USER, password: PASSWORD } }).listen();
    open = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
    await open.close();
  });

  /** A deployed server node `srv` (login mode against the authenticated fake) and a sql node using it. */
  const deploy = () =>
    helper.load(
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
        { id: 'n1', z: 'f1', type: 'mindsdb-sql', server: 'srv', query: 'SELECT 1', wires: [[]] },
      ],
      { srv: { username: USER, password: PASSWORD } },
    );

  const post = (path, body) =>
    helper
      .request()
      .post(path)
      .send(body)
      .expect(200)
      .then((res) => res.body);
  /** Nothing secret in what went back to the browser: the password, or any session or token the fake handed out. */
  const assertNoSecret = (body) => {
    const text = JSON.stringify(body);
    assert.ok(!text.includes(PASSWORD), 'the password went back to the browser');
    for (const v of [...fake.state.tokens, ...fake.state.sessions])
      assert.ok(!text.includes(v), 'a login credential went back to the browser');
  };

  describe('POST mindsdb/test', () => {
    it("connects with the dialog's values before anything is deployed, and reports the version", async () => {
      await helper.load(allNodes(), []);
      const body = await post('/mindsdb/test', { url: open.url, apiPrefix: '/api', authMode: 'none' });
      assert.deepEqual(body, {
        ok: true,
        version: '25.14.1',
        authEnabled: false,
        authConfirmed: false,
        integrations: {
          ok: false,
          error:
            'MindsDB 25.14.1 has no integration capabilities (GET /integrations/capabilities came with MindsDB 26.2.0)',
        },
      });
    });

    it('logs in with typed credentials and proves them with a protected call', async () => {
      await helper.load(allNodes(), []);
      const body = await post('/mindsdb/test', {
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: PASSWORD },
      });
      assert.equal(body.ok, true);
      assert.equal(body.authConfirmed, true);
      assert.ok(fake.requestsTo('/databases/').length >= 1, 'a protected call was made');
      assertNoSecret(body);
    });

    it('uses the stored password when the dialog only has the placeholder', async () => {
      await deploy();
      const body = await post('/mindsdb/test', {
        id: 'srv',
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: STORED },
      });
      assert.equal(body.ok, true, body.error);
      assertNoSecret(body);
    });

    it('explains a wrong password without repeating it', async () => {
      await helper.load(allNodes(), []);
      const wrong = 'pw-WRONG-typed-999';
      const body = await post('/mindsdb/test', {
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: wrong },
      });
      assert.equal(body.ok, false);
      assert.match(body.error, /401|unauthori[sz]ed|login/i);
      assert.ok(!body.error.includes(wrong));
    });

    it('explains a refused connection', async () => {
      await helper.load(allNodes(), []);
      const body = await post('/mindsdb/test', { url: await freePortUrl(), apiPrefix: '/api', authMode: 'none' });
      assert.equal(body.ok, false);
      assert.match(body.error, /refused|connect/i);
    });

    it('reads a ${VAR} URL from the environment, as a deployed flow would', async () => {
      await helper.load(allNodes(), []);
      process.env.MINDSDB_ADMIN_TEST_URL = open.url;
      try {
        const body = await post('/mindsdb/test', {
          url: '${MINDSDB_ADMIN_TEST_URL}',
          apiPrefix: '/api',
          authMode: 'none',
        });
        assert.equal(body.ok, true, body.error);
      } finally {
        delete process.env.MINDSDB_ADMIN_TEST_URL;
      }
    });
  });

  describe('POST mindsdb/list/:what', () => {
    it('lists names through the deployed server node, names only', async () => {
      await deploy();
      const body = await post('/mindsdb/list/models', { server: 'srv', project: 'mindsdb' });
      assert.deepEqual(body, { ok: true, items: ['home_rentals', 'lightwood_rentals'] });
      assert.deepEqual(await post('/mindsdb/list/projects', { server: 'srv' }), { ok: true, items: ['mindsdb'] });
      assertNoSecret(await post('/mindsdb/list/databases', { server: 'srv' }));
    });

    it('lists a data source\'s tables for the table node (the data source comes as "project")', async () => {
      await deploy();
      fake.state.databases.set('pg', { id: 7, name: 'pg', type: 'data', engine: 'postgres', connection_data: {} });
      fake.state.tables.set('pg/readings', { name: 'readings', columns: [], rows: [] });
      fake.state.tables.set('pg/alerts', { name: 'alerts', columns: [], rows: [] });
      assert.deepEqual(await post('/mindsdb/list/tables', { server: 'srv', project: 'pg' }), {
        ok: true,
        items: ['alerts', 'readings'],
      });
    });

    it("lists from the dialog's values when the server node is new or changed (not deployed)", async () => {
      await deploy();
      const body = await post('/mindsdb/list/models', {
        server: 'srv',
        project: 'mindsdb',
        config: { url: open.url, apiPrefix: '/api', authMode: 'none' },
      });
      assert.deepEqual(body, { ok: true, items: ['home_rentals', 'lightwood_rentals'] });
      assert.ok(open.requestsTo('/projects/mindsdb/models').length === 1, 'asked the server the dialog names');
    });

    it("lists databases without MindsDB's system and project entries", async () => {
      await deploy();
      const body = await post('/mindsdb/list/databases', { server: 'srv' });
      assert.deepEqual(body, { ok: true, items: [] });
    });

    it('lists ML engines and ML handlers by name only: no engine setting (a masked key, an api_base) goes to the browser', async () => {
      await deploy();
      fake.state.mlEngines.set('llm', {
        name: 'llm',
        handler: 'openai',
        settings: { openai_api_key: 'sk-engine-key', api_base: 'http://private.example/v1' },
      });
      const engines = await post('/mindsdb/list/ml_engines', { server: 'srv' });
      assert.deepEqual(engines, { ok: true, items: ['llm'] });
      assert.deepEqual(await post('/mindsdb/list/ml_handlers', { server: 'srv' }), {
        ok: true,
        items: ['anthropic', 'byom', 'openai'],
      });
      assert.equal(
        fake.requestsTo('/handlers/').at(-1).path,
        '/api/handlers/?lazy=1',
        'the handlers are listed without importing them all',
      );
      assertNoSecret(engines);
      assert.ok(!/private\.example|\*{6}/.test(JSON.stringify(engines)));
    });

    it('says what is missing instead of failing: no server, an unknown list, a server error', async () => {
      await helper.load(allNodes(), []);
      assert.deepEqual(await post('/mindsdb/list/models', {}), {
        ok: false,
        error: 'choose a deployed MindsDB server first',
      });
      const unknown = await helper.request().post('/mindsdb/list/passwords').send({ server: 'srv' }).expect(404);
      assert.equal(unknown.body.ok, false);
      const down = await post('/mindsdb/list/models', {
        server: 'x',
        config: { url: await freePortUrl(), apiPrefix: '/api', authMode: 'none' },
      });
      assert.equal(down.ok, false);
      assert.match(down.error, /refused|connect/i);
    });
  });

  describe('rules that keep secrets in (README, "Reliability and security")', () => {
    let attacker;
    beforeEach(async () => {
      attacker = await createFakeMindsDB().listen();
    });
    afterEach(async () => {
      await attacker.close();
      delete process.env.MINDSDB_ADMIN_SECRET;
    });

    /** Nothing, or nothing carrying `secret`, reached the attacker's server. */
    const assertAttackerGot = (secret) => {
      const leaked = attacker.requests.filter((r) => JSON.stringify([r.headers, r.rawBody]).includes(secret));
      assert.deepEqual(
        leaked,
        [],
        `the secret reached a server the request chose: ${JSON.stringify(leaked.map((r) => r.path))}`,
      );
    };

    it('rule 1: a cross-site form post (urlencoded) is refused with 415 and contacts nothing', async () => {
      await deploy();
      process.env.MINDSDB_ADMIN_SECRET = 'env-SECRET-token-777';
      const form = (path, fields) => helper.request().post(path).type('form').send(fields);
      const test = await form(
        '/mindsdb/test',
        `url=${encodeURIComponent(attacker.url)}&authMode=token&credentials[token]=${encodeURIComponent('${MINDSDB_ADMIN_SECRET}')}`,
      );
      assert.equal(test.status, 415);
      const list = await form(
        '/mindsdb/list/projects',
        `server=srv&config[url]=${encodeURIComponent(attacker.url)}&config[authMode]=login&config[credentials][password]=${STORED}`,
      );
      assert.equal(list.status, 415);
      const plain = await helper
        .request()
        .post('/mindsdb/list/projects')
        .set('content-type', 'text/plain')
        .send(
          JSON.stringify({
            server: 'srv',
            config: { url: attacker.url, authMode: 'login', credentials: { password: STORED } },
          }),
        );
      assert.equal(plain.status, 415);
      assert.equal(attacker.requests.length, 0, 'nothing reached the chosen server');
      assert.equal(fake.requests.length, 0, 'nothing reached the deployed server either');
    });

    it('rule 2: the stored password never goes to a URL the request chose (list and test)', async () => {
      await deploy();
      const config = {
        url: attacker.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: STORED },
      };
      const listed = await post('/mindsdb/list/projects', { server: 'srv', config });
      assert.equal(listed.ok, false);
      assert.match(listed.error, /type it again/);
      const tested = await post('/mindsdb/test', { id: 'srv', ...config });
      assert.equal(tested.ok, false);
      assert.match(tested.error, /type it again/);
      assertAttackerGot(PASSWORD);
      assert.equal(attacker.requestsTo('/login').length, 0, 'no login was attempted at the chosen server');
    });

    it('rule 2: a changed API prefix, auth mode, TLS node or tenant also needs the secrets typed again', async () => {
      await deploy();
      const same = {
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: STORED },
      };
      // A tenant (company-id / user-id) is another tenant's data on the same server.
      for (const changed of [
        { apiPrefix: '/other' },
        { authMode: 'token', credentials: { token: STORED } },
        { tls: 'some-tls-node' },
        { companyId: 'other-co' },
        { userId: 'someone' },
      ]) {
        const body = await post('/mindsdb/test', { id: 'srv', ...same, ...changed });
        assert.equal(body.ok, false, JSON.stringify(changed));
        assert.doesNotMatch(JSON.stringify(body), new RegExp(PASSWORD));
      }
      assert.equal(fake.requestsTo('/login').length, 0, 'the stored password was not used');
      // The deployed target itself still works with the placeholder.
      assert.equal((await post('/mindsdb/test', { id: 'srv', ...same })).ok, true);
    });

    it("rule 2: stored credentials come only from a mindsdb-server node, never another node's id", async () => {
      const mqtt = coreNode('network/10-mqtt.js');
      await helper.load(
        [...allNodes(), mqtt],
        [
          { id: 'f1', type: 'tab' },
          { id: 'broker', type: 'mqtt-broker', broker: '127.0.0.1', port: 1, autoConnect: false },
        ],
        { broker: { user: USER, password: PASSWORD } },
      );
      const config = {
        url: attacker.url,
        apiPrefix: '/api',
        authMode: 'login',
        credentials: { username: USER, password: STORED },
      };
      const listed = await post('/mindsdb/list/projects', { server: 'broker', config });
      assert.equal(listed.ok, false);
      const tested = await post('/mindsdb/test', { id: 'broker', ...config });
      assert.equal(tested.ok, false);
      const deployedOnly = await post('/mindsdb/list/projects', { server: 'broker' });
      assert.deepEqual(deployedOnly, { ok: false, error: 'choose a deployed MindsDB server first' });
      assertAttackerGot(PASSWORD);
      assert.equal(attacker.requestsTo('/login').length, 0);
    });

    it('rule 4: no error text repeats a ${VAR} value or a secret', async () => {
      await helper.load(allNodes(), []);
      process.env.MINDSDB_ADMIN_SECRET = 'not-a-url-SECRET-4711';
      const bad = await post('/mindsdb/test', { url: '${MINDSDB_ADMIN_SECRET}', apiPrefix: '/api', authMode: 'none' });
      assert.equal(bad.ok, false);
      assert.ok(!bad.error.includes('SECRET-4711'), bad.error);
      process.env.MINDSDB_ADMIN_SECRET = (await freePortUrl()).replace('127.0.0.1', 'localhost');
      const down = await post('/mindsdb/list/models', {
        server: 'x',
        config: { url: '${MINDSDB_ADMIN_SECRET}', apiPrefix: '/api', authMode: 'none' },
      });
      assert.equal(down.ok, false);
      assert.ok(!down.error.includes(new URL(process.env.MINDSDB_ADMIN_SECRET).host), down.error);
      process.env.MINDSDB_ADMIN_SECRET = 'env-SECRET-token-888';
      const wrongToken = await post('/mindsdb/test', {
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'token',
        credentials: { token: '${MINDSDB_ADMIN_SECRET}' },
      });
      assert.equal(wrongToken.ok, false);
      assert.ok(!wrongToken.error.includes('SECRET-token-888'), wrongToken.error);
    });

    describe('rule 4: ${VAR} is resolved exactly as the runtime resolves it (issue 21, instance 5)', () => {
      const globalConfig = coreNode('common/91-global-config.js');
      afterEach(() => {
        helper.settings({});
        delete process.env.MINDSDB_EXCLUDED_TOKEN;
        delete process.env.MINDSDB_EXCLUDED_URL;
      });

      it("a variable in the settings' envVarExcludes is not resolved: its value is never sent as a bearer token", async () => {
        helper.settings({ envVarExcludes: ['MINDSDB_EXCLUDED_TOKEN', 'MINDSDB_EXCLUDED_URL'] });
        process.env.MINDSDB_EXCLUDED_TOKEN = 'env-EXCLUDED-token-5150';
        process.env.MINDSDB_EXCLUDED_URL = attacker.url;
        await helper.load(allNodes(), []);
        await post('/mindsdb/test', {
          url: attacker.url,
          apiPrefix: '/api',
          authMode: 'token',
          credentials: { token: '$(MINDSDB_EXCLUDED_TOKEN)' },
        });
        for (const token of ['${MINDSDB_EXCLUDED_TOKEN}', '$(MINDSDB_EXCLUDED_TOKEN)']) {
          await post('/mindsdb/list/projects', {
            server: 'x',
            config: { url: attacker.url, apiPrefix: '/api', authMode: 'token', credentials: { token } },
          });
        }
        assertAttackerGot('EXCLUDED-token-5150');
        const tokens = attacker.requestsTo('/databases/').map((r) => r.headers.authorization);
        assert.deepEqual(
          tokens,
          ['Bearer ${MINDSDB_EXCLUDED_TOKEN}', 'Bearer $(MINDSDB_EXCLUDED_TOKEN)'],
          'sent as typed, as the runtime leaves it',
        );
        // The runtime leaves an excluded ${VAR} as typed: so does the editor (an unusable URL, nothing contacted).
        const before = attacker.requests.length;
        const url = await post('/mindsdb/test', {
          url: '${MINDSDB_EXCLUDED_URL}',
          apiPrefix: '/api',
          authMode: 'none',
        });
        assert.equal(url.ok, false);
        assert.equal(attacker.requests.length, before, 'an excluded URL variable was resolved');
      });

      it('the deployed runtime agrees: a server node deployed with the excluded variables cannot use them', async () => {
        helper.settings({ envVarExcludes: ['MINDSDB_EXCLUDED_TOKEN'] });
        process.env.MINDSDB_EXCLUDED_TOKEN = 'env-EXCLUDED-token-5151';
        await helper.load(
          allNodes(),
          [
            { id: 'f1', type: 'tab' },
            {
              id: 'srv',
              type: 'mindsdb-server',
              url: attacker.url,
              apiPrefix: '/api',
              authMode: 'token',
              timeout: 5000,
              retries: 0,
              maxInFlight: 8,
              maxQueue: 100,
              maxResponseMB: 64,
            },
          ],
          { srv: { token: '${MINDSDB_EXCLUDED_TOKEN}' } },
        );
        await post('/mindsdb/list/projects', { server: 'srv' });
        await post('/mindsdb/test', {
          id: 'srv',
          url: attacker.url,
          apiPrefix: '/api',
          authMode: 'token',
          credentials: { token: '${MINDSDB_EXCLUDED_TOKEN}' },
        });
        assertAttackerGot('EXCLUDED-token-5151');
        const sentTokens = attacker.requests.map((r) => r.headers.authorization).filter(Boolean);
        assert.ok(
          sentTokens.length >= 1 && sentTokens.every((t) => t === 'Bearer ${MINDSDB_EXCLUDED_TOKEN}'),
          JSON.stringify(sentTokens),
        );
      });

      it("a flow's environment variable is resolved for the server node deployed on that flow, as the runtime does", async () => {
        await helper.load(allNodes(), [
          { id: 'f1', type: 'tab', env: [{ name: 'MINDSDB_FLOW_URL', value: open.url, type: 'str' }] },
          {
            id: 'srv',
            z: 'f1',
            type: 'mindsdb-server',
            url: '${MINDSDB_FLOW_URL}',
            apiPrefix: '/api',
            authMode: 'none',
            timeout: 5000,
            retries: 0,
            maxInFlight: 8,
            maxQueue: 100,
            maxResponseMB: 64,
          },
        ]);
        assert.deepEqual(
          await post('/mindsdb/list/projects', { server: 'srv' }),
          { ok: true, items: ['mindsdb'] },
          'the runtime resolved it',
        );
        const body = await post('/mindsdb/test', {
          id: 'srv',
          url: '${MINDSDB_FLOW_URL}',
          apiPrefix: '/api',
          authMode: 'none',
        });
        assert.equal(body.ok, true, body.error);
      });

      it('a global environment variable (global-config) is resolved for a new server node; an excluded one is not', async () => {
        helper.settings({ envVarExcludes: ['MINDSDB_EXCLUDED_URL'] });
        process.env.MINDSDB_EXCLUDED_URL = open.url;
        await helper.load(
          [...allNodes(), globalConfig],
          [{ id: 'gc', type: 'global-config', env: [{ name: 'MINDSDB_GLOBAL_URL', value: open.url, type: 'str' }] }],
        );
        const body = await post('/mindsdb/test', { url: '${MINDSDB_GLOBAL_URL}', apiPrefix: '/api', authMode: 'none' });
        assert.equal(body.ok, true, body.error);
        const excluded = await post('/mindsdb/test', {
          url: '${MINDSDB_EXCLUDED_URL}',
          apiPrefix: '/api',
          authMode: 'none',
        });
        assert.equal(excluded.ok, false);
      });
    });

    it('rule 5: only the known pickers answer; prototype names are 404', async () => {
      await deploy();
      for (const what of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'passwords']) {
        const res = await helper.request().post(`/mindsdb/list/${what}`).send({ server: 'srv' });
        assert.equal(res.status, 404, what);
        assert.equal(res.body.ok, false);
      }
    });
  });
});
