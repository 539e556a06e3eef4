'use strict';
/**
 * What MindsDB 26.2 adds (read from its source, mindsdb/mindsdb at 26.2.0; it cannot be installed
 * here, so the in-process double acts as it): native queries (context.native_query, 26.0.1 and
 * 26.2+, broken on 26.1), the tenant headers company-id / user-id, the login answer of each
 * http_auth_type, and GET /integrations/capabilities in Test connection. Every version that lacks
 * one gets an error that names the version.
 */
const assert = require('node:assert/strict');
const { sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, allNodes, flowWith, nextMessage } = require('../support/nr');
const { MindsDBClient, nativeQueryRefusal } = require('../../nodes/client');

const serverNode = node('mindsdb-server');
const sqlNode = node('mindsdb-sql');

/** A statement MindsDB's own parser refuses (a PostgreSQL cast and a table function with column names). */
const POSTGRES_ONLY = 'SELECT n, n::text AS t FROM generate_series(1, 3) AS g(n)';

describe('MindsDB 26.2 from its source', function () {
  this.timeout(20000);
  const fakes = [];
  const clients = [];
  const fakeOf = async (opts) => {
    const f = await createFakeMindsDB(opts).listen();
    fakes.push(f);
    return f;
  };
  const clientOf = (opts) => {
    const c = new MindsDBClient({ retries: 0, timeoutMs: 5000, ...opts });
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close(0)));
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });

  describe('native queries (context.native_query)', () => {
    it('sends the statement unparsed, with native_query and the database in the context, to 26.2.0', async () => {
      const fake = await fakeOf({ version: '26.2.0' });
      const client = clientOf({ baseUrl: fake.url });
      const answer = await sql(client, { query: POSTGRES_ONLY, context: { db: 'pg' }, native: true });
      assert.deepEqual(answer.data, [[POSTGRES_ONLY]], 'the data source got the text as it was');
      const sent = fake.requestsTo('/sql/query')[0];
      assert.deepEqual(sent.body, { query: POSTGRES_ONLY, context: { db: 'pg', native_query: true } });
      assert.equal(sent.parsed, undefined, 'MindsDB did not parse it');
    });

    it('runs on 26.0.1 too, where the flag came in', async () => {
      const fake = await fakeOf({ version: '26.0.1' });
      const answer = await sql(clientOf({ baseUrl: fake.url }), {
        query: POSTGRES_ONLY,
        context: { db: 'pg' },
        native: true,
      });
      assert.deepEqual(answer.data, [[POSTGRES_ONLY]]);
    });

    it("streams a native query on 26.2 (jsonlines) and reads 26.0.1's one JSON body", async () => {
      for (const version of ['26.2.0', '26.0.1']) {
        const fake = await fakeOf({ version });
        fake.state.native = () => ({ type: 'table', column_names: ['n'], data: [[1], [2], [3]] });
        const stream = await clientOf({ baseUrl: fake.url }).sqlStream({
          query: POSTGRES_ONLY,
          context: { db: 'pg' },
          native: true,
        });
        const rows = [];
        try {
          for (let r = await stream.read(2); r.length; r = await stream.read(2)) rows.push(...r);
        } finally {
          stream.close();
        }
        assert.deepEqual(rows, [[1], [2], [3]], version);
        const sent = fake.requestsTo('/sql/query')[0];
        assert.equal(sent.body.context.native_query, true, version);
        // 26.1+ is asked for jsonlines; only 26.2's native path honours it.
        assert.equal(sent.body.response_format, version === '26.2.0' ? 'jsonlines' : undefined, version);
      }
    });

    for (const [version, pattern] of [
      ['25.14.1', /MindsDB 25\.14\.1 has no native queries: .*from 26\.0\.1 on/],
      ['26.0.0', /MindsDB 26\.0\.0 has no native queries/],
      ['26.1.0', /MindsDB 26\.1\.0 cannot run native queries: it answers HTTP 500 .*fixed in 26\.2\.0/],
    ]) {
      it(`refuses on ${version} with an error naming the version, and sends nothing`, async () => {
        const fake = await fakeOf({ version });
        const client = clientOf({ baseUrl: fake.url });
        await assert.rejects(sql(client, { query: POSTGRES_ONLY, context: { db: 'pg' }, native: true }), (err) => {
          assert.equal(err.kind, 'unsupported');
          assert.match(err.message, pattern);
          return true;
        });
        await assert.rejects(client.sqlStream({ query: POSTGRES_ONLY, context: { db: 'pg' }, native: true }), pattern);
        assert.equal(fake.requestsTo('/sql/query').length, 0, 'the statement never reached the server');
      });
    }

    it("the double answers 26.1.0's native query as the real server does (HTTP 500)", async () => {
      const fake = await fakeOf({ version: '26.1.0' });
      const res = await fetch(`${fake.url}/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'SELECT 1', context: { db: 'pg', native_query: true } }),
      });
      assert.equal(res.status, 500);
      assert.match((await res.json()).detail, /'TableResponse' object has no attribute 'error_code'/);
    });

    it('names every version it knows correctly', () => {
      assert.equal(nativeQueryRefusal('26.0.1'), undefined);
      assert.equal(nativeQueryRefusal('26.2.0'), undefined);
      assert.equal(nativeQueryRefusal('27.0.0'), undefined);
      assert.match(nativeQueryRefusal('26.1.3'), /26\.1\.3 cannot/);
      assert.match(nativeQueryRefusal('25.9.0'), /25\.9\.0 has no/);
      assert.match(nativeQueryRefusal('dev'), /MindsDB dev: cannot tell/);
    });

    it('needs a database and takes no bound parameters (input errors, nothing sent)', async () => {
      const fake = await fakeOf({ version: '26.2.0' });
      const client = clientOf({ baseUrl: fake.url });
      await assert.rejects(sql(client, { query: 'SELECT 1', native: true }), {
        kind: 'input',
        message: /a native query needs a database/,
      });
      await assert.rejects(sql(client, { query: 'SELECT :a', params: { a: 1 }, context: { db: 'pg' }, native: true }), {
        kind: 'input',
        message: /takes no msg\.params/,
      });
      assert.equal(fake.requestsTo('/sql/query').length, 0);
    });

    it('a server whose version cannot be learnt is not guessed at', async () => {
      const fake = await fakeOf({ version: '26.2.0' });
      fake.fault((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"environment": "local"}');
      });
      await assert.rejects(
        sql(clientOf({ baseUrl: fake.url }), { query: 'SELECT 1', context: { db: 'pg' }, native: true }),
        /a native query needs to know the MindsDB version first/,
      );
      assert.equal(fake.requestsTo('/sql/query').length, 0);
    });

    describe('in the SQL node (Native query option)', () => {
      let fake;
      beforeEach(async () => {
        await new Promise((r) => helper.startServer(r));
      });
      afterEach(async () => {
        await helper.unload();
        await new Promise((r) => helper.stopServer(r));
      });
      const load = (def) =>
        helper.load(
          [serverNode, sqlNode, catchNode],
          flowWith(
            {
              type: 'mindsdb-sql',
              query: '',
              database: 'pg',
              databaseType: 'str',
              rowFormat: 'objects',
              split: false,
              rowsPerMsg: 100,
              ...def,
            },
            { url: fake.url },
          ),
        );

      it("sends msg.query to the Database's data source as it is", async () => {
        fake = await fakeOf({ version: '26.2.0' });
        await load({ nativeQuery: true });
        const got = nextMessage('out');
        helper.getNode('n1').receive({ query: POSTGRES_ONLY });
        assert.deepEqual((await got).payload, [{ statement: POSTGRES_ONLY }]);
        assert.equal(fake.requestsTo('/sql/query')[0].body.context.native_query, true);
      });

      it("without the option, the same statement goes to MindsDB's parser (which refuses it)", async () => {
        fake = await fakeOf({ version: '26.2.0' });
        await load({});
        const caught = nextMessage('caught');
        helper.getNode('n1').receive({ query: POSTGRES_ONLY });
        assert.match((await caught).error.message, /cannot be parsed/);
        assert.equal(fake.requestsTo('/sql/query')[0].body.context.native_query, undefined);
      });

      it('reports the version to Catch on a server without native queries', async () => {
        fake = await fakeOf({ version: '26.1.0' });
        await load({ nativeQuery: true });
        const caught = nextMessage('caught');
        helper.getNode('n1').receive({ query: POSTGRES_ONLY });
        assert.match((await caught).error.message, /MindsDB 26\.1\.0 cannot run native queries/);
      });
    });
  });

  describe('tenant headers (company-id / user-id)', () => {
    it('go on every request to that server (status and login too), and only to it', async () => {
      const tenant = await fakeOf({ version: '26.2.0', auth: { username: 'u', password: 'p-1' } });
      const other = await fakeOf({ version: '26.2.0' });
      const a = clientOf({
        baseUrl: tenant.url,
        auth: { mode: 'login', username: 'u', password: 'p-1' },
        tenant: { companyId: 'acme-7', userId: ' 42 ' },
      });
      const b = clientOf({ baseUrl: other.url });
      await a.request('GET', '/projects/');
      await sql(a, { query: 'SELECT 1' });
      await a.status();
      await b.request('GET', '/projects/');
      const paths = tenant.requests.map((r) => r.path);
      assert.ok(paths.includes('/api/login') && paths.includes('/api/status'), paths.join(' '));
      for (const r of tenant.requests) {
        assert.equal(r.headers['company-id'], 'acme-7', r.path);
        assert.equal(r.headers['user-id'], '42', r.path);
      }
      for (const r of other.requests) {
        assert.equal(r.headers['company-id'], undefined);
        assert.equal(r.headers['user-id'], undefined);
      }
    });

    it('a blank one is not sent; a value with a space or a line break is an input error', async () => {
      const fake = await fakeOf();
      await clientOf({ baseUrl: fake.url, tenant: { companyId: 'c1', userId: '  ' } }).request('GET', '/projects/');
      assert.equal(fake.requests[0].headers['company-id'], 'c1');
      assert.equal('user-id' in fake.requests[0].headers, false);
      assert.throws(() => clientOf({ baseUrl: fake.url, tenant: { userId: 'a\r\nx-evil: 1' } }), {
        kind: 'input',
        message: /user-id must be visible ASCII/,
      });
      assert.throws(() => clientOf({ baseUrl: fake.url, tenant: { companyId: 'a b' } }), {
        kind: 'input',
        message: /company-id/,
      });
    });

    it('the server node sends its Company ID and User ID', async () => {
      const fake = await fakeOf({ version: '26.2.0' });
      await new Promise((r) => helper.startServer(r));
      try {
        await helper.load(
          [serverNode, sqlNode, catchNode],
          flowWith(
            {
              type: 'mindsdb-sql',
              query: 'SELECT 1',
              database: '',
              databaseType: 'str',
              rowFormat: 'objects',
              split: false,
              rowsPerMsg: 100,
            },
            { url: fake.url, companyId: 'acme', userId: 'u-9' },
          ),
        );
        const got = nextMessage('out');
        helper.getNode('n1').receive({});
        await got;
        const sent = fake.requestsTo('/sql/query')[0];
        assert.equal(sent.headers['company-id'], 'acme');
        assert.equal(sent.headers['user-id'], 'u-9');
      } finally {
        await helper.unload();
        await new Promise((r) => helper.stopServer(r));
      }
    });
  });

  describe('http_auth_type (session, token, session_or_token)', () => {
    for (const type of ['session', 'token', 'session_or_token']) {
      it(`login mode learns "${type}" from the login's answer`, async () => {
        const fake = await fakeOf({ version: '26.2.0', auth: { username: 'u', password: 'p-1', type } });
        const client = clientOf({ baseUrl: fake.url, auth: { mode: 'login', username: 'u', password: 'p-1' } });
        assert.equal(client.httpAuthType, undefined);
        await client.request('GET', '/projects/');
        assert.equal(client.httpAuthType, type);
      });
    }

    it('a session cookie refused by a token-only server says why and what works', async () => {
      const fake = await fakeOf({ version: '26.2.0', auth: { username: 'u', password: 'p-1', type: 'token' } });
      fake.state.sessions.add('s-valid');
      const client = clientOf({ baseUrl: fake.url, auth: { mode: 'session', session: 's-valid' } });
      await assert.rejects(client.request('GET', '/projects/'), (err) => {
        assert.equal(err.kind, 'auth');
        assert.match(err.message, /HTTP 401/);
        assert.match(err.message, /http_auth_type is "token" \(no session cookies\); "username and password" works/);
        assert.ok(!err.message.includes('s-valid'));
        return true;
      });
    });

    it('a bearer token refused by a session-only server says why, for a streamed answer too', async () => {
      const fake = await fakeOf({ version: '26.2.0', auth: { username: 'u', password: 'p-1', type: 'session' } });
      fake.state.tokens.add('pat_valid');
      const client = clientOf({ baseUrl: fake.url, auth: { mode: 'token', token: 'pat_valid' } });
      await assert.rejects(client.request('GET', '/projects/'), /http_auth_type is "session" \(no bearer tokens\)/);
      await assert.rejects(client.sqlStream({ query: 'SELECT 1' }), /http_auth_type is "session" \(no bearer tokens\)/);
    });
  });

  describe('Test connection (POST mindsdb/test)', () => {
    beforeEach(async () => {
      await new Promise((r) => helper.startServer(r));
      await helper.load(allNodes(), []);
    });
    afterEach(async () => {
      await helper.unload();
      await new Promise((r) => helper.stopServer(r));
    });
    const test = (body) =>
      helper
        .request()
        .post('/mindsdb/test')
        .send(body)
        .expect(200)
        .then((res) => res.body);

    it('lists the data sources 26.2 passes requests through to (GET /integrations/capabilities)', async () => {
      const fake = await fakeOf({ version: '26.2.0' });
      const body = await test({ url: fake.url, apiPrefix: '/api', authMode: 'none' });
      assert.equal(body.ok, true);
      assert.deepEqual(body.integrations, {
        ok: true,
        passthrough: [
          { engine: 'github', authModes: ['bearer'], operations: ['passthrough'] },
          { engine: 'salesforce', authModes: ['oauth'], operations: ['passthrough'] },
          { engine: 'shopify', authModes: ['bearer'], operations: ['passthrough'] },
        ],
      });
      assert.equal(fake.requestsTo('/integrations/capabilities').length, 1);
    });

    it('on 26.1.0 it names the version and asks nothing (the connection is still ok)', async () => {
      const fake = await fakeOf({ version: '26.1.0' });
      const body = await test({ url: fake.url, apiPrefix: '/api', authMode: 'none' });
      assert.equal(body.ok, true);
      assert.deepEqual(body.integrations, {
        ok: false,
        error:
          'MindsDB 26.1.0 has no integration capabilities (GET /integrations/capabilities came with MindsDB 26.2.0)',
      });
      assert.equal(fake.requestsTo('/integrations/capabilities').length, 0);
    });

    it("reports the server's http_auth_type after a login, and sends the dialog's tenant", async () => {
      const fake = await fakeOf({ version: '26.2.0', auth: { username: 'u', password: 'p-1', type: 'token' } });
      const body = await test({
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'login',
        companyId: 'acme',
        credentials: { username: 'u', password: 'p-1' },
      });
      assert.equal(body.ok, true);
      assert.equal(body.authType, 'token');
      assert.equal(body.integrations.ok, true);
      assert.ok(fake.requests.every((r) => r.headers['company-id'] === 'acme'));
      assert.ok(!JSON.stringify(body).includes('pat_'), 'no token went back to the browser');
    });
  });
});
