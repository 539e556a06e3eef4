'use strict';
/**
 * End-to-end: every node, every operation it offers, against a real MindsDB (25.14.1), inside
 * Node-RED's test helper. Run with `npm run test:e2e` (starts and seeds a MindsDB when
 * MINDSDB_URL does not answer). Each check would fail if the node sent a wrong path, body
 * wrapper or header, because the real server answers those with 404/405/415/500.
 */
const assert = require('node:assert/strict');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run_id = `e2e${Date.now().toString(36)}`;
const all = [node('mindsdb-server'), node('mindsdb-sql'), node('mindsdb-predict'), node('mindsdb-database'), node('mindsdb-chatbot'), node('mindsdb-skill'), node('mindsdb-agent'), catchNode];

async function load(def, server = {}, creds) {
  await helper.load(all, flowWith(def, { url: URL_, timeout: 60000, ...server }), creds);
}
/** Sends msg into n1; resolves with {out} or {error} (the message that reached Catch). */
function send(msg) {
  return new Promise((resolve) => {
    const onOut = (m) => { cleanup(); resolve({ out: m }); };
    const onErr = (m) => { cleanup(); resolve({ error: m }); };
    const cleanup = () => { helper.getNode('out').removeListener('input', onOut); helper.getNode('caught').removeListener('input', onErr); };
    helper.getNode('out').on('input', onOut);
    helper.getNode('caught').on('input', onErr);
    helper.getNode('n1').receive(msg);
  });
}
async function ok(msg) { const r = await send(msg); assert.ok(r.out, `expected an output, got error: ${r.error && r.error.error.message}`); return r.out; }
async function fails(msg) { const r = await send(msg); assert.ok(r.error, `expected an error, got output: ${JSON.stringify(r.out && r.out.payload)}`); return r.error; }

describe('e2e against a real MindsDB', function () {
  before(async function () {
    const res = await fetch(`${URL_}/api/util/ping`).catch(() => null);
    if (!res || !res.ok) throw new Error(`no MindsDB at ${URL_}: run through "npm run test:e2e"`);
  });
  beforeEach((done) => { helper.startServer(done); });
  afterEach(async () => { await helper.unload(); await new Promise((r) => helper.stopServer(r)); });

  describe('mindsdb-sql', () => {
    const def = { type: 'mindsdb-sql', query: '', database: '', databaseType: 'str', rowFormat: 'objects', split: false, rowsPerMsg: 100 };
    it('returns row objects from a real table (files.sensor_readings)', async () => {
      await load(def);
      const m = await ok({ query: 'SELECT temperature, energy FROM files.sensor_readings ORDER BY temperature LIMIT 3' });
      assert.deepEqual(m.payload, [{ temperature: 15, energy: 48 }, { temperature: 16, energy: 53.5 }, { temperature: 17, energy: 59 }]);
      assert.deepEqual(m.mindsdb.columns, ['temperature', 'energy']);
    });
    it('binds named and positional params on the server', async () => {
      await load(def);
      const a = await ok({ query: 'SELECT count(*) AS n FROM files.sensor_readings WHERE temperature > :min', params: { min: 30 } });
      assert.equal(a.payload[0].n, 4);
      const b = await ok({ query: 'SELECT count(*) AS n FROM files.sensor_readings WHERE temperature > ?', params: [30] });
      assert.equal(b.payload[0].n, 4);
    });
    it('queries the PostgreSQL data source created by the seed', async () => {
      await load(def);
      const m = await ok({ query: 'SELECT count(*) AS n FROM sensors_pg.sensor_readings' });
      assert.equal(m.payload[0].n, 20);
    });
    it('joins the table with the model', async () => {
      await load(def);
      const m = await ok({ query: 'SELECT t.temperature, t.humidity, m.energy FROM files.sensor_readings AS t JOIN mindsdb.sensor_energy AS m WHERE t.temperature = 20' });
      assert.equal(m.payload.length, 1);
      const { temperature, humidity, energy } = m.payload[0];
      assert.ok(Math.abs(energy - (2 * temperature + 0.5 * humidity + 3)) < 1e-6, JSON.stringify(m.payload[0]));
    });
    it('answers "ok" statements with []', async () => {
      await load(def);
      const m = await ok({ query: `CREATE PROJECT IF NOT EXISTS ${run_id}_p` });
      assert.deepEqual(m.payload, []);
      assert.equal(m.mindsdb.type, 'ok');
      await ok({ query: `DROP PROJECT ${run_id}_p` });
    });
    it('sends bad SQL to Catch with the server message', async () => {
      await load(def);
      const e = await fails({ query: 'SELECT * FROM no_such_table_xyz' });
      assert.match(e.error.message, /MindsDB SQL error: .*no_such_table_xyz/);
      assert.equal(e.mindsdbError.kind, 'sql');
    });
  });

  describe('mindsdb-predict', () => {
    const def = { type: 'mindsdb-predict', project: 'mindsdb', projectType: 'str', model: 'sensor_energy', modelType: 'str', params: '', paramsType: 'json', batch: false, batchSize: 100, batchWindow: 50, keepExplainString: false };
    it('predicts one row (the {data} wrapper: a bare array would be a 500)', async () => {
      await load(def);
      const m = await ok({ payload: { temperature: 20, humidity: 40 } });
      assert.ok(Math.abs(m.payload.energy - 63) < 1e-6, String(m.payload.energy));
      assert.deepEqual(m.mindsdb, { project: 'mindsdb', model: 'sensor_energy', target: 'energy', rows: 1 });
    });
    it('predicts many rows in one message', async () => {
      await load(def);
      const m = await ok({ payload: [{ temperature: 10, humidity: 0 }, { temperature: 0, humidity: 10 }] });
      assert.deepEqual(m.payload.map((r) => Math.round(r.energy * 1000) / 1000), [23, 8]);
    });
    it('micro-batches a stream of single readings and routes each answer back', async () => {
      await load({ ...def, batch: true, batchSize: 25, batchWindow: 50 });
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => ok({ payload: { temperature: i, humidity: 10 }, seq: i })));
      for (const m of results) assert.ok(Math.abs(m.payload.energy - (2 * m.seq + 5 + 3)) < 1e-6);
    });
    it('sends an unknown model to Catch (404)', async () => {
      await load({ ...def, model: 'no_such_model' });
      const e = await fails({ payload: { temperature: 1 } });
      assert.match(e.error.message, /404.*Model not found/);
    });
  });

  describe('mindsdb-database', () => {
    const name = `${run_id}_pg`;
    const def = { type: 'mindsdb-database', operation: 'msg', dbName: '', dbNameType: 'str', engine: 'postgres', host: '127.0.0.1', port: '5432', user: 'postgres', database: 'test', extraParams: '', checkConnection: true };
    it('creates a PostgreSQL data source, lists, gets, updates and deletes it', async () => {
      await load(def);
      const created = await ok({ operation: 'create', name });
      assert.deepEqual(created.payload, { name, engine: 'postgres', type: 'data' });
      assert.ok((await ok({ operation: 'list' })).payload.some((d) => d.name === name));
      const got = await ok({ operation: 'get', name });
      assert.equal(got.payload.connection_data.host, '127.0.0.1');
      const updated = await ok({ operation: 'update', name, payload: { parameters: { schema: 'public' } } });
      assert.equal(updated.payload.connection_data.schema, 'public');
      assert.deepEqual((await ok({ operation: 'delete', name })).payload, { deleted: true, name });
      assert.match((await fails({ operation: 'get', name })).error.message, /404.*Database not found|404.*does not exist/i);
    });
    it('reports a duplicate database (409)', async () => {
      await load(def);
      await ok({ operation: 'create', name: `${name}2` });
      assert.match((await fails({ operation: 'create', name: `${name}2` })).error.message, /409.*already exists/);
      await ok({ operation: 'delete', name: `${name}2` });
    });
    it('reports a refused connection without creating anything, password never shown', async () => {
      await load({ ...def, port: '1' }, {}, { n1: { password: 'e2e-secret-pw' } });
      const e = await fails({ operation: 'create', name: `${name}3` });
      assert.match(e.error.message, /could not connect to the data source/);
      assert.ok(!JSON.stringify(e).includes('e2e-secret-pw'));
    });
    it('reports an unknown engine', async () => {
      await load({ ...def, engine: 'no_such_engine', checkConnection: false });
      // The real server's own words (docs/real-mindsdb.md), not just "some error".
      assert.match((await fails({ operation: 'create', name: `${name}4` })).error.message, /500.*'NoneType' object has no attribute 'get'/);
    });
    it('update of a mistyped database name fails and creates nothing (MindsDB\'s PUT would)', async () => {
      await load({ ...def, checkConnection: false });
      const e = await fails({ operation: 'update', name: `${name}_typo`, payload: { parameters: { schema: 'public' } } });
      assert.match(e.error.message, new RegExp(`database "${name}_typo" does not exist, nothing was changed`));
      assert.match((await fails({ operation: 'get', name: `${name}_typo` })).error.message, /404.*Database not found|404.*does not exist/i);
    });
  });

  for (const [type, kind, settings] of [
    ['mindsdb-skill', 'skill', { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'], description: 'sensor readings' } }],
    ['mindsdb-agent', 'agent', { model: { provider: 'mindsdb', model_name: 'sensor_energy' } }],
    ['mindsdb-chatbot', 'chatbot', { model_name: 'sensor_energy', database_name: 'files' }],
  ]) {
    describe(type, () => {
      const def = { type, operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', agent: '', streamMode: 'final' };
      const name = `${run_id}_${kind}`;
      it(`creates, lists, gets, updates and deletes a ${kind}`, async () => {
        await load(def);
        assert.equal((await ok({ operation: 'create', name, payload: settings })).payload.name, name);
        assert.ok((await ok({ operation: 'list' })).payload.some((r) => r.name === name));
        assert.equal((await ok({ operation: 'get', name })).payload.name, name);
        const change = kind === 'agent' ? { prompt_template: 'answer briefly' } : kind === 'skill' ? { params: { ...settings.params, description: 'changed' } } : { params: { note: 'changed' } };
        await ok({ operation: 'update', name, payload: change });
        const after = (await ok({ operation: 'get', name })).payload;
        if (kind === 'agent') assert.equal(after.prompt_template, 'answer briefly');
        if (kind === 'skill') assert.equal(after.params.description, 'changed');
        if (kind === 'chatbot') assert.deepEqual(after.params, { note: 'changed' });
        assert.deepEqual((await ok({ operation: 'delete', name })).payload, { deleted: true, resource: kind, project: 'mindsdb', name });
      });
      it(`sends a missing ${kind} to Catch (404)`, async () => {
        await load(def);
        assert.match((await fails({ operation: 'get', name: `${name}_missing` })).error.message, /404/);
      });
    });
  }

  describe('agent extras', () => {
    const def = { type: 'mindsdb-agent', operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', agent: '', streamMode: 'final' };
    it('update of a missing agent says it must exist (the server does not create on PUT)', async () => {
      await load(def);
      assert.match((await fails({ operation: 'update', name: `${run_id}_ghost`, payload: {} })).error.message, /does not exist.*create it first/);
    });
    it('completions without an LLM end in a clear error at Catch, not a crash', async () => {
      await load(def);
      await ok({ operation: 'create', name: `${run_id}_asker`, payload: { model: { provider: 'mindsdb', model_name: 'sensor_energy' } } });
      const e = await fails({ operation: 'completions', name: `${run_id}_asker`, payload: 'How many readings are there?' });
      assert.ok(e.error.message.length > 0);
      await ok({ operation: 'delete', name: `${run_id}_asker` });
    });
    it('skills list filtered by agent', async () => {
      await load({ ...def, type: 'mindsdb-skill' });
      await ok({ operation: 'create', name: `${run_id}_s_a`, payload: { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'] } } });
      await ok({ operation: 'create', name: `${run_id}_s_b`, payload: { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'] } } });
      await helper.unload();
      await load(def);
      await ok({ operation: 'create', name: `${run_id}_with_skill`, payload: { model: { provider: 'mindsdb', model_name: 'sensor_energy' }, skills: [`${run_id}_s_b`] } });
      await helper.unload();
      await load({ ...def, type: 'mindsdb-skill' });
      const list = await ok({ operation: 'list', agent: `${run_id}_with_skill` });
      assert.deepEqual(list.payload.map((s) => s.name), [`${run_id}_s_b`]);
    });
  });

  describe('authentication (a second MindsDB with MINDSDB_USERNAME/MINDSDB_PASSWORD)', function () {
    const AUTH = process.env.MINDSDB_AUTH_URL;
    const user = process.env.MINDSDB_AUTH_USERNAME;
    const password = process.env.MINDSDB_AUTH_PASSWORD;
    const def = { type: 'mindsdb-sql', query: 'SELECT 1 AS one', database: '', databaseType: 'str', rowFormat: 'objects', split: false, rowsPerMsg: 100 };
    before(function () { if (!AUTH) throw new Error('MINDSDB_AUTH_URL is not set: run through "npm run test:e2e"'); });
    const login = async () => {
      const res = await fetch(`${AUTH}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: user, password }) });
      assert.equal(res.status, 200);
      const cookie = /session=([^;]+)/.exec(res.headers.get('set-cookie') || '');
      return { cookie: cookie && cookie[1], token: (await res.json()).token };
    };
    it('refuses a query without credentials (401 to Catch)', async () => {
      await load(def, { url: AUTH, authMode: 'none' });
      assert.match((await fails({})).error.message, /401/);
    });
    it('login mode: logs in and queries', async () => {
      await load(def, { url: AUTH, authMode: 'login' }, { srv: { username: user, password } });
      assert.deepEqual((await ok({})).payload, [{ one: 1 }]);
    });
    it('login mode with a wrong password: a clear error without the password', async () => {
      await load(def, { url: AUTH, authMode: 'login' }, { srv: { username: user, password: 'wrong-e2e-pw' } });
      const e = await fails({});
      assert.match(e.error.message, /login to MindsDB as "nodered" failed/);
      assert.ok(!JSON.stringify(e).includes('wrong-e2e-pw'));
    });
    it('session cookie mode', async () => {
      const { cookie } = await login();
      assert.ok(cookie, 'the server set a session cookie');
      await load(def, { url: AUTH, authMode: 'session' }, { srv: { session: cookie } });
      assert.deepEqual((await ok({})).payload, [{ one: 1 }]);
    });
    it('bearer token mode', async () => {
      const { token } = await login();
      assert.ok(token, 'the server returned a token');
      await load(def, { url: AUTH, authMode: 'token' }, { srv: { token } });
      assert.deepEqual((await ok({})).payload, [{ one: 1 }]);
    });
  });
});
