'use strict';
/**
 * The exchange policy (src/client/exchange/): one deadline per message over everything done for
 * it, one size limit for every body, retries only where they cannot change the outcome, and no
 * slot held while waiting on the flow. Against real HTTP servers on loopback: the fake MindsDB
 * and small servers built for one misbehaviour each.
 */
const assert = require('node:assert/strict');
const { fakeClient, sql } = require('../support/client-fixture');
const { faultOn, notStatus, lostAnswer, serve } = require('../support/exchange-faults');
const {
  MindsDBClient,
  KnowledgeBasesApi,
  FilesApi,
  DatabasesApi,
  ResourcesApi,
  JobsApi,
  ModelsApi,
  completeAgent,
  streamAgent,
} = require('../../nodes/client');
const { waitFor } = require('../support/wait');

const elapsed = (t0) => Date.now() - t0;
const STATUS_26 = JSON.stringify({ mindsdb_version: '26.1.0', auth: { http_auth_enabled: false } });
const STATUS_25 = JSON.stringify({ mindsdb_version: '25.14.1', auth: { http_auth_enabled: false } });

describe('exchange policy', function () {
  let client;
  let server;
  afterEach(async () => {
    if (client) await client.close(0);
    if (server) await server.close();
    client = undefined;
    server = undefined;
  });

  describe('one deadline for every byte of a message', () => {
    it('ends a streamed query whose error body stalls, at its deadline, and frees its slot (issue 21, instance 1)', async () => {
      let queries = 0;
      server = await serve((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(STATUS_26);
          return;
        }
        if (++queries === 1) {
          res.writeHead(500, { 'content-type': 'application/json', 'content-length': 300 });
          res.write('{"title": "Internal Server Error", "detail": "half an err');
          return; // and nothing more, ever
        }
        res.writeHead(200, { 'content-type': 'application/jsonlines' });
        res.end('{"type":"table","column_names":["a"]}\n[[1]]\n');
      });
      client = new MindsDBClient({ baseUrl: server.url, retries: 0, maxInFlight: 1, timeoutMs: 5000 });
      const t0 = Date.now();
      await assert.rejects(
        client.sqlStream({ query: 'SELECT a' }, { timeoutMs: 300 }),
        (e) => e.kind === 'timeout' && /within 300 ms/.test(e.message),
      );
      assert.ok(elapsed(t0) < 3000, `took ${elapsed(t0)} ms (the client's own timeout is 5000)`);
      // the only slot (maxInFlight 1) is free again: the next query runs
      const next = await client.sqlStream({ query: 'SELECT a' }, { timeoutMs: 2000 });
      assert.deepEqual(await next.read(10), [[1]]);
      next.close();
    });

    it('reports an agent stream whose error body stalls as a timeout, not as its status', async () => {
      server = await serve((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(STATUS_26);
          return;
        }
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': 300 });
        res.write('<h1>Bad Gat');
      });
      client = new MindsDBClient({ baseUrl: server.url, retries: 0 });
      await assert.rejects(
        client.stream('POST', '/projects/p/agents/a/completions/stream', { messages: [] }, { timeoutMs: 250 }),
        (e) => e.kind === 'timeout',
      );
    });

    it('never stretches a message past its deadline by retrying (each attempt does not get a fresh timeout)', async () => {
      let n = 0;
      // the first attempt breaks after 1000 ms, the retry then stalls: with a fresh timeout per
      // attempt the message would end at 1000 + 1300 ms, well past the bound (room for a loaded machine)
      server = await serve((req) => {
        if (++n === 1) setTimeout(() => req.socket.destroy(), 1000);
      }); // fault: the first attempt is dropped after 1000 ms
      client = new MindsDBClient({ baseUrl: server.url, retries: 3, retryBaseDelayMs: 1 });
      const t0 = Date.now();
      await assert.rejects(
        client.request('GET', '/projects/', undefined, { timeoutMs: 1300 }),
        (e) => e.kind === 'timeout',
      );
      assert.equal(n, 2);
      assert.ok(elapsed(t0) < 2000, `took ${elapsed(t0)} ms for a 1300 ms budget`);
    });

    it('waits for a login no longer than the message allows', async () => {
      server = await serve((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(JSON.stringify({ mindsdb_version: '25.14.1', auth: { http_auth_enabled: true } }));
          return;
        }
        if (req.url.endsWith('/login')) return; // the login never answers
        res.end('[]');
      });
      client = new MindsDBClient({
        baseUrl: server.url,
        retries: 0,
        timeoutMs: 5000,
        auth: { mode: 'login', username: 'u', password: 'p' },
      });
      const t0 = Date.now();
      await assert.rejects(
        client.request('GET', '/projects/', undefined, { timeoutMs: 250 }),
        (e) => e.kind === 'timeout',
      );
      assert.ok(elapsed(t0) < 3000, `took ${elapsed(t0)} ms (the client's own timeout is 5000)`);
    });

    it('retries a login the server refused for now (429), as any other request', async () => {
      let logins = 0;
      server = await serve((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(JSON.stringify({ mindsdb_version: '25.14.1', auth: { http_auth_enabled: true } }));
          return;
        }
        if (req.url.endsWith('/login')) {
          if (++logins === 1) {
            res.writeHead(429, { 'retry-after': '0' });
            res.end();
            return;
          }
          res.end('{"token":"t1"}');
          return;
        }
        res.end(req.headers.authorization === 'Bearer t1' ? '[]' : '{}');
      });
      client = new MindsDBClient({
        baseUrl: server.url,
        retries: 2,
        auth: { mode: 'login', username: 'u', password: 'p' },
      });
      assert.deepEqual(await client.request('GET', '/projects/'), []);
      assert.equal(logins, 2);
    });

    it('fails a message still waiting for a connection slot at its own deadline', async () => {
      const held = [];
      server = await serve((_req, res) => {
        held.push(res);
      }); // fault: the first answer comes only when the test ends it
      client = new MindsDBClient({ baseUrl: server.url, retries: 0, maxInFlight: 1 });
      const first = client.request('GET', '/projects/', undefined, { timeoutMs: 10000 });
      const t0 = Date.now();
      // The slot comes free only after this rejection (or at the first request's 10 s deadline).
      await assert.rejects(
        client.request('GET', '/projects/', undefined, { timeoutMs: 150 }),
        (e) => e.kind === 'timeout',
      );
      assert.ok(elapsed(t0) < 2500, `failed after ${elapsed(t0)} ms, not at its own 150 ms deadline`);
      await waitFor(() => held.length === 1, { what: 'the first request at the server' });
      held[0].end('[]');
      assert.deepEqual(await first, []);
      assert.equal(client.load.queued, 0);
    });

    it('refuses at once a Retry-After that ends after the deadline, and says why', async () => {
      let n = 0;
      server = await serve((_req, res) => {
        n++;
        res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
        res.end('{"title":"Too Many Requests"}');
      });
      client = new MindsDBClient({ baseUrl: server.url, retries: 2 });
      const t0 = Date.now();
      await assert.rejects(
        sql(client, { query: 'SELECT 1' }, { timeoutMs: 2000 }),
        (e) => e.status === 429 && /asked to wait 30 s/.test(e.message),
      );
      assert.equal(n, 1);
      assert.ok(elapsed(t0) < 1500, `took ${elapsed(t0)} ms: it waited for a retry that could not come in time`);
    });
  });

  describe('one size limit for every body', () => {
    it('refuses one server-sent event over the maximum response size', async () => {
      server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"type": "start"}\n\n');
        const piece = 'z'.repeat(64 * 1024);
        let sent = 0;
        const more = () => {
          // fault: an event written piece by piece
          if (sent++ < 64 && !res.destroyed) res.write(piece, () => setImmediate(more));
          else res.end('"}\n\n');
        };
        res.write('data: {"output": "', more);
      });
      client = new MindsDBClient({ baseUrl: server.url, retries: 0, maxResponseBytes: 1024 * 1024 });
      const events = [];
      await assert.rejects(
        streamAgent(client, 'p', 'a', [{ question: 'q', answer: null }], (e) => events.push(e), { timeoutMs: 5000 }),
        (e) => e.kind === 'too-large' && /one event/.test(e.message),
      );
      assert.deepEqual(events, [{ type: 'start' }]);
    });
  });

  describe('retries only where they cannot change the outcome', () => {
    const t = fakeClient({ retries: 2, retryBaseDelayMs: 5, timeoutMs: 3000 });

    it('backs a 429 off for its Retry-After (seconds), then sends even a POST again', async () => {
      t.make();
      const at = [];
      faultOn(
        t.fake,
        (e) => e.path.endsWith('/sql/query'),
        (_req, res) => {
          at.push(Date.now());
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
          res.end('{"title":"Too Many Requests"}');
        },
      );
      t.fake.state.sql = () => {
        at.push(Date.now());
        return null;
      };
      assert.equal((await sql(t.client, { query: 'SELECT 1' })).type, 'table');
      assert.equal(t.fake.requestsTo('/sql/query').length, 2);
      assert.ok(at[1] - at[0] >= 950, `waited ${at[1] - at[0]} ms for Retry-After: 1`);
    });

    it('reads a Retry-After given as an HTTP date', async () => {
      t.make();
      faultOn(t.fake, notStatus, (_req, res) => {
        res.writeHead(503, { 'retry-after': new Date(Date.now() + 2000).toUTCString() });
        res.end();
      });
      const t0 = Date.now();
      assert.equal((await sql(t.client, { query: 'SELECT 1' })).type, 'table');
      assert.ok(elapsed(t0) >= 900, `it waited ${elapsed(t0)} ms for a date 1-2 s ahead`);
    });

    it('never repeats a knowledge-base insert whose answer was lost: the rows are stored once (instance 8)', async () => {
      t.make({ retryPost: true });
      t.fake.state.kbs.set('mindsdb/kb', { record: { name: 'kb', project: 'mindsdb' }, rows: [] });
      faultOn(t.fake, (e) => e.method === 'PUT', lostAnswer);
      const api = new KnowledgeBasesApi(t.client);
      await assert.rejects(
        api.insert('mindsdb', 'kb', { rows: [{ content: 'a' }, { content: 'b' }] }),
        (e) => e.kind === 'network',
      );
      assert.equal(t.fake.requests.filter((r) => r.method === 'PUT').length, 1);
      assert.equal(t.fake.state.kbs.get('mindsdb/kb').rows.length, 2);
    });

    for (const [what, setup, remove] of [
      [
        'a database',
        (f) => f.state.databases.set('d1', { name: 'd1', engine: 'postgres' }),
        (c) => new DatabasesApi(c).delete('d1'),
      ],
      [
        'a file (MindsDB: 400 "Error deleting file")',
        (f) => f.state.files.set('f1', { name: 'f1' }),
        (c) => new FilesApi(c).delete('f1'),
      ],
      [
        'a job (MindsDB: 500 "Job does not exist")',
        (f) => f.state.jobs.set('mindsdb/j1', { name: 'j1', project: 'mindsdb' }),
        (c) => new JobsApi(c).delete('mindsdb', 'j1'),
      ],
      [
        'an agent',
        (f) => f.state.agents.set('mindsdb/a1', { name: 'a1', project: 'mindsdb' }),
        (c) => new ResourcesApi(c).run('agent', 'delete', { project: 'mindsdb', name: 'a1' }),
      ],
      [
        'a knowledge base',
        (f) => f.state.kbs.set('mindsdb/kb', { record: { name: 'kb' }, rows: [] }),
        (c) => new KnowledgeBasesApi(c).delete('mindsdb', 'kb'),
      ],
      [
        'a model',
        (f) => f.state.trained.set('mindsdb/m1', [{ name: 'm1', version: 1 }]),
        (c) => new ModelsApi(c).delete('mindsdb', 'm1'),
      ],
    ]) {
      it(`reports a DELETE of ${what} as done when a retry finds it gone after the first attempt landed (instance 8)`, async () => {
        t.make();
        setup(t.fake);
        faultOn(t.fake, (e) => e.method === 'DELETE', lostAnswer);
        await remove(t.client);
        assert.equal(t.fake.requests.filter((r) => r.method === 'DELETE').length, 2);
        // with no earlier attempt that may have deleted it, "not there" is still an error
        setup(t.fake);
        await remove(t.client);
        await assert.rejects(remove(t.client));
      });
    }

    it('repeats an idempotent PUT (a database update) whose answer was lost', async () => {
      t.make();
      t.fake.state.databases.set('d1', { name: 'd1', engine: 'postgres', connection_data: {} });
      faultOn(t.fake, (e) => e.method === 'PUT', lostAnswer);
      await new DatabasesApi(t.client).update({ name: 'd1', parameters: { host: 'h' } }, false);
      assert.equal(t.fake.requests.filter((r) => r.method === 'PUT').length, 2);
    });

    it('never repeats an agent completion that may have reached the server, even with Retry POST', async () => {
      t.make({ retryPost: true });
      t.fake.state.agents.set('mindsdb/a1', {
        id: 1,
        name: 'a1',
        project: 'mindsdb',
        model_name: 'gpt-4',
        provider: 'openai',
      });
      faultOn(t.fake, (e) => e.path.endsWith('/completions'), lostAnswer);
      await assert.rejects(
        completeAgent(t.client, 'mindsdb', 'a1', [{ question: 'q', answer: null }]),
        (e) => e.kind === 'network',
      );
      assert.equal(t.fake.requestsTo('/projects/mindsdb/agents/a1/completions').length, 1);
    });

    it('reports a redirect to another host once, with its own kind', async () => {
      t.make();
      faultOn(t.fake, notStatus, (_req, res) => {
        res.writeHead(307, { location: 'http://127.0.0.1:9/api/projects/' });
        res.end();
      });
      await assert.rejects(
        t.client.request('GET', '/projects/'),
        (e) => e.kind === 'redirect' && /another host/.test(e.message),
      );
      assert.equal(t.fake.requests.length, 1);
    });

    it('reports a Location that is not a URL once (a GET is not retried for it)', async () => {
      t.make();
      t.fake.fault((_req, res) => {
        res.writeHead(308, { location: 'http://[oops' });
        res.end();
      }, 3);
      await assert.rejects(
        t.client.request('GET', '/projects/'),
        (e) => e.kind === 'redirect' && /not a URL/.test(e.message),
      );
      assert.equal(t.fake.requests.length, 1);
    });

    it('reports a 302 and a redirect loop as redirects, not as HTTP errors', async () => {
      t.make();
      t.fake.fault((_req, res) => {
        res.writeHead(302, { location: '/api/other' });
        res.end();
      });
      await assert.rejects(t.client.request('GET', '/projects/'), (e) => e.kind === 'redirect' && e.status === 302);
      t.fake.fault((_req, res) => {
        res.writeHead(307, { location: '/api/projects/' });
        res.end();
      }, 10);
      await assert.rejects(
        t.client.request('GET', '/projects/'),
        (e) => e.kind === 'redirect' && /more than 3 redirects/.test(e.message),
      );
      assert.equal(t.fake.requests.length, 1 + 4);
    });

    it('reports a request undici cannot send (a token with a line break) once, as an input error', async () => {
      t.make({ auth: { mode: 'token', token: 'abc\r\nx-evil: 1' } });
      await assert.rejects(t.client.request('GET', '/projects/'), (e) => e.kind === 'input');
      assert.equal(t.fake.requests.length, 0);
    });
  });

  describe('slots are never held while waiting on the flow', () => {
    const t = fakeClient({}, { fake: { version: '26.1.0' } });
    const rows = (n) => () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: n }, (_, i) => [i]) });

    it('a flow-controlled stream gives its slot back while it waits, and reads on after', async () => {
      t.fake.state.sql = (body) => (/FROM t/.test(body.query) ? rows(6)() : null);
      t.make({ retries: 0, maxInFlight: 1, timeoutMs: 2000 });
      const stream = await t.client.sqlStream({ query: 'SELECT i FROM t' }, { flowControl: true });
      assert.deepEqual(await stream.read(2), [[0], [1]]);
      // while the reader waits on the flow, another request on the only slot runs
      const other = await stream.waitOnFlow(() => sql(t.client, { query: 'SELECT 1' }));
      assert.deepEqual(other.data, [[1]]);
      assert.equal(t.client.load.inFlight, 1, 'the stream has its slot again');
      assert.deepEqual(await stream.read(10), [[2], [3], [4], [5]]);
      stream.close();
      assert.equal(t.client.load.inFlight, 0);
    });

    it('bounds the streams that may wait on the flow: one more waits for a place, holding nothing', async () => {
      t.fake.state.sql = rows(4);
      t.make({ retries: 0, maxInFlight: 1, timeoutMs: 2000 });
      const a = await t.client.sqlStream({ query: 'SELECT i' }, { flowControl: true });
      let bOpened = false;
      const b = t.client.sqlStream({ query: 'SELECT i' }, { flowControl: true }).then((s) => {
        bOpened = true;
        return s;
      });
      await a.waitOnFlow(async () => {
        // a holds no slot now, so a whole request runs; b still waits for a's place
        assert.equal((await sql(t.client, { query: 'SELECT 1' })).type, 'table');
        assert.equal(bOpened, false);
      });
      a.close();
      const sb = await b;
      assert.equal((await sb.read(10)).length, 4);
      sb.close();
    });
  });
});

describe('exchange policy: what MindsDB answers (fake 25.x status)', () => {
  it('asks /status without credentials', async () => {
    let seen;
    const server = await serve((req, res) => {
      seen = req.headers;
      res.end(STATUS_25);
    });
    const client = new MindsDBClient({ baseUrl: server.url, auth: { mode: 'token', token: 'secret-t' } });
    try {
      assert.equal((await client.status()).mindsdb_version, '25.14.1');
      assert.equal(seen.authorization, undefined);
    } finally {
      await client.close(0);
      await server.close();
    }
  });
});
