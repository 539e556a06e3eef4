'use strict';
const assert = require('node:assert/strict');
const { fakeClient, sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { MindsDBClient, MindsDBError, segment, positionalToNamed, rowsToObjects } = require('../../nodes/client');

describe('REST client', function () {
  const t = fakeClient({ retryBaseDelayMs: 1 });

  it('sends Content-Type: application/json on every request, GETs included', async () => {
    t.make();
    await t.client.request('GET', '/projects/');
    await sql(t.client, { query: 'SELECT 1' });
    for (const r of t.fake.requests)
      assert.equal(r.headers['content-type'], 'application/json', `${r.method} ${r.path}`);
  });

  it('runs SQL and returns the table answer with its context', async () => {
    t.make();
    const a = await sql(t.client, { query: 'SELECT * FROM rentals', context: { db: 'files' } });
    assert.equal(a.type, 'table');
    assert.deepEqual(a.column_names, ['sqft', 'rental_price']);
    assert.deepEqual(a.data, [
      [917, 3901],
      [194, 2042],
    ]);
    assert.equal(a.context.db, 'files');
    assert.deepEqual(t.fake.requestsTo('/sql/query')[0].body, {
      query: 'SELECT * FROM rentals',
      context: { db: 'files' },
    });
  });

  it('turns an SQL answer of type "error" into a MindsDBError of kind sql with the server message', async () => {
    t.make();
    await assert.rejects(sql(t.client, { query: 'SELECT * FROM nope' }), (err) => {
      assert.ok(err instanceof MindsDBError);
      assert.equal(err.kind, 'sql');
      assert.match(err.message, /Table 'nope' not found/);
      assert.equal(err.method, 'POST');
      assert.equal(err.path, '/api/sql/query');
      return true;
    });
  });

  it('sends named params in the body, never in the query text', async () => {
    t.make();
    const a = await sql(t.client, { query: 'SELECT :v AS v', params: { v: "x'; DROP TABLE t; --" } });
    assert.deepEqual(a.data, [["x'; DROP TABLE t; --"]]);
    const sent = t.fake.requestsTo('/sql/query')[0].body;
    assert.equal(sent.query, 'SELECT :v AS v');
    assert.deepEqual(sent.params, { v: "x'; DROP TABLE t; --" });
  });

  it('maps a non-2xx answer to a typed error with status, server message, method and path', async () => {
    t.make();
    await assert.rejects(t.client.predict('mindsdb', 'nope', [{ a: 1 }]), (err) => {
      assert.equal(err.kind, 'http');
      assert.equal(err.status, 404);
      assert.equal(err.serverMessage, 'Model not found: Model with name nope not found');
      assert.equal(err.path, '/api/projects/mindsdb/models/nope/predict');
      return true;
    });
  });

  it('sends predict rows in the {data, params} wrapper and returns the row array', async () => {
    t.make();
    const rows = await t.client.predict('mindsdb', 'home_rentals', [{ sqft: 100 }], { explain: true });
    assert.equal(rows[0].rental_price, 400);
    assert.deepEqual(t.fake.requests.at(-1).body, { data: [{ sqft: 100 }], params: { explain: true } });
  });

  it('keeps names inside their path segment: a/b, .., %2e%2e, ?, # and spaces', async () => {
    t.make();
    for (const name of ['a/b', '..', '%2e%2e', 'q?x=1', 'h#x', 'with space', '.']) {
      await t.client.request('GET', `/projects/mindsdb/models/${segment(name, 'model')}`).catch(() => undefined);
      const got = t.fake.requests.at(-1).path;
      const last = got.slice('/api/projects/mindsdb/models/'.length);
      assert.ok(!last.includes('/') && !last.includes('?') && !last.includes('#'), `${name} → ${got}`);
      assert.equal(decodeURIComponent(last), name);
    }
  });

  it('refuses empty names with an input error before any request', async () => {
    t.make();
    await assert.rejects(t.client.predict('mindsdb', '', [{}]), (err) => err.kind === 'input');
    assert.equal(t.fake.requests.length, 0);
  });

  it("follows the server's 308 for a slashless collection on the same host", async () => {
    t.make();
    const list = await t.client.request('GET', '/databases');
    assert.ok(Array.isArray(list));
    assert.deepEqual(
      t.fake.requests.map((r) => r.path),
      ['/api/databases', '/api/databases/'],
    );
  });

  it('does not follow a redirect to another host, so cookies never leave', async () => {
    const other = await createFakeMindsDB().listen();
    try {
      t.make({ auth: { mode: 'session', session: 'sekrit-cookie' } });
      t.fake.fault((_req, res) => {
        res.writeHead(308, { location: `${other.url}/api/projects/` });
        res.end();
      });
      await assert.rejects(t.client.request('GET', '/projects/'), /another host/);
      assert.equal(other.requests.length, 0);
    } finally {
      await other.close();
    }
  });

  it('uses an API prefix other than /api', async () => {
    await t.fake.close();
    await t.replaceFake({ prefix: '/v1/api/api' });
    t.make({ apiPrefix: '/v1/api/api/' });
    await sql(t.client, { query: 'SELECT 1' });
    assert.equal(t.fake.requests[0].path, '/v1/api/api/sql/query');
  });

  it('reads status from the public /status route', async () => {
    t.make();
    const s = await t.client.status();
    assert.equal(s.mindsdb_version, '25.14.1');
    assert.equal(s.auth.http_auth_enabled, false);
  });

  it('sends a session cookie as Cookie: session=…', async () => {
    await t.fake.close();
    await t.replaceFake({ auth: { username: 'u', password: 'p' } });
    t.fake.state.sessions.add('abc123');
    t.make({ auth: { mode: 'session', session: 'abc123' } });
    await t.client.request('GET', '/projects/');
    assert.equal(t.fake.requests[0].headers.cookie, 'session=abc123');
  });

  it('sends a bearer token as Authorization: Bearer …', async () => {
    await t.fake.close();
    await t.replaceFake({ auth: { username: 'u', password: 'p' } });
    t.fake.state.tokens.add('pat_tok');
    t.make({ auth: { mode: 'token', token: 'pat_tok' } });
    await t.client.request('GET', '/projects/');
    assert.equal(t.fake.requests[0].headers.authorization, 'Bearer pat_tok');
  });

  for (const type of ['session', 'token', 'session_or_token']) {
    it(`logs in (server answers ${type}) and uses what comes back`, async () => {
      await t.fake.close();
      await t.replaceFake({ auth: { username: 'user', password: 'pw-123', type } });
      t.make({ auth: { mode: 'login', username: 'user', password: 'pw-123' } });
      await t.client.request('GET', '/projects/');
      const login = t.fake.requestsTo('/login');
      assert.equal(login.length, 1);
      assert.deepEqual(login[0].body, { username: 'user', password: 'pw-123' });
      const last = t.fake.requests.at(-1);
      if (type !== 'token') assert.match(last.headers.cookie, /^session=/);
      if (type !== 'session') assert.match(last.headers.authorization, /^Bearer pat_/);
    });
  }

  it('logs in again once after a 401 (server restart) and retries the request', async () => {
    await t.fake.close();
    await t.replaceFake({ auth: { username: 'user', password: 'pw-123', type: 'token' } });
    t.make({ auth: { mode: 'login', username: 'user', password: 'pw-123' } });
    await t.client.request('GET', '/projects/');
    t.fake.restart();
    const list = await t.client.request('GET', '/projects/');
    assert.deepEqual(list, [{ name: 'mindsdb' }]);
    assert.equal(t.fake.requestsTo('/login').length, 2);
  });

  it('after a server restart, one login serves every request in flight that got a 401', async () => {
    await t.fake.close();
    await t.replaceFake({ auth: { username: 'user', password: 'pw-123', type: 'token' } });
    t.make({ auth: { mode: 'login', username: 'user', password: 'pw-123' }, maxInFlight: 16 });
    await t.client.request('GET', '/projects/');
    t.fake.restart();
    // All ten leave with the dead token; their 401s come back spread over 300 ms, most of them
    // after the first one has already logged in again.
    // fault: answers late, each later than the one before
    for (let i = 0; i < 10; i++) t.fake.fault(() => new Promise((r) => setTimeout(() => r(false), 30 * i)));
    const lists = await Promise.all(Array.from({ length: 10 }, () => t.client.request('GET', '/projects/')));
    for (const list of lists) assert.deepEqual(list, [{ name: 'mindsdb' }]);
    assert.equal(t.fake.requestsTo('/login').length, 2, 'one login at start, one after the restart');
  });

  it('gives a clear auth error for a wrong password, without the password in it', async () => {
    await t.fake.close();
    await t.replaceFake({ auth: { username: 'user', password: 'right-one' } });
    t.make({ auth: { mode: 'login', username: 'user', password: 'wrong-pw-xyz' } });
    await assert.rejects(t.client.request('GET', '/projects/'), (err) => {
      assert.equal(err.kind, 'auth');
      assert.match(err.message, /Invalid username or password/);
      assert.ok(!err.message.includes('wrong-pw-xyz'));
      return true;
    });
  });

  it('skips login when the server has auth off', async () => {
    t.make({ auth: { mode: 'login', username: 'user', password: 'pw' } });
    await t.client.request('GET', '/projects/');
    assert.equal(t.fake.requestsTo('/login').length, 0);
  });

  it('reports an unreachable server as a network error', async () => {
    t.make({ baseUrl: 'http://127.0.0.1:1', retries: 0 });
    await assert.rejects(
      sql(t.client, { query: 'SELECT 1' }),
      (err) => err.kind === 'network' && /connection refused/.test(err.message),
    );
  });

  it('reports a body that is not JSON as an invalid-response error', async () => {
    t.make();
    t.fake.fault((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy</html>');
    });
    await assert.rejects(sql(t.client, { query: 'SELECT 1' }), (err) => err.kind === 'invalid-response');
  });

  it('rejects a URL with credentials in it', () => {
    assert.throws(() => new MindsDBClient({ baseUrl: 'http://u:p@127.0.0.1:1' }), /credentials/);
  });

  it('rewrites ? placeholders to named ones, leaving literals and comments alone', () => {
    const r = positionalToNamed('SELECT \'?\', "a?" FROM t WHERE a = ? -- ?\n AND b = ? /* ? */', [1, 'x']);
    assert.equal(r.query, 'SELECT \'?\', "a?" FROM t WHERE a = :p1 -- ?\n AND b = :p2 /* ? */');
    assert.deepEqual(r.params, { p1: 1, p2: 'x' });
    assert.throws(() => positionalToNamed('SELECT ?', []), /1 "\?" placeholder/);
  });

  it('maps rows to objects without letting a __proto__ column change the prototype', () => {
    const rows = rowsToObjects(['__proto__', 'a'], [[{ polluted: true }, 1]]);
    assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
    assert.deepEqual(Object.keys(rows[0]), ['__proto__', 'a']);
    assert.equal({}.polluted, undefined);
  });

  it('builds rows with a maker per column list that gives the same plain objects as a loop, whatever the names', () => {
    const odd = [
      'a',
      '"',
      '\\',
      '\u2028x',
      "'); throw 1; ('",
      '0',
      '1e3',
      'constructor',
      'toString',
      'a',
      '',
      '😀',
      '${x}',
      '*/ /*',
    ];
    const loop = (cols, data) =>
      data.map((v) => {
        const o = {};
        cols.forEach((c, j) => {
          o[c] = v[j];
        });
        return o;
      });
    const data = [odd.map((_, j) => j), odd.map((c) => `v-${c}`)];
    for (let round = 0; round < 3; round++) {
      // first use builds the maker, later ones reuse it
      const rows = rowsToObjects(odd, data);
      assert.deepEqual(rows, loop(odd, data));
      assert.ok(rows.every((r) => Object.getPrototypeOf(r) === Object.prototype));
      assert.deepEqual(Object.keys(rows[0]), Object.keys(loop(odd, data)[0]));
    }
    // many column lists (the makers' cache is cleared when full), each still right
    for (let i = 0; i < 150; i++) {
      const cols = [`c${i}`, 'x'];
      assert.deepEqual(rowsToObjects(cols, [[i, 'y']], 0, 1), [{ [`c${i}`]: i, x: 'y' }]);
    }
    assert.deepEqual(
      rowsToObjects(
        ['a', 'b'],
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        1,
        3,
      ),
      [
        { a: 3, b: 4 },
        { a: 5, b: 6 },
      ],
    );
  });
});
