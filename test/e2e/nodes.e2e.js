'use strict';
/**
 * End-to-end: every node, every operation it offers, against a real MindsDB (25.14.1 or 26.1.0,
 * MINDSDB_VERSION), inside Node-RED's test helper. Run with `npm run test:e2e` (starts and seeds a
 * MindsDB when MINDSDB_URL does not answer, and an OpenAI-compatible LLM double at LLM_DOUBLE_URL
 * for the agents). Each check would fail if the node sent a wrong path, body wrapper or header,
 * because the real server answers those with 404/405/415/500. A case that cannot apply to the
 * server's version is skipped with the reason printed.
 */
const assert = require('node:assert/strict');
const { fails, ok, skipBecause, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { waitFor } = require('../support/wait');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const LLM_URL = process.env.LLM_DOUBLE_URL;
/**
 * The agents' LLM: the double on loopback, reached through MindsDB's openai provider. gpt-4, not
 * gpt-4o: 25.x's agent counts tokens with tiktoken, and only gpt-4's encoding (cl100k_base) is
 * installed offline (ci/mindsdb/requirements-*.txt); gpt-4o's would be downloaded.
 */
const LLM = { provider: 'openai', model_name: 'gpt-4', api_key: 'sk-llm-double', base_url: LLM_URL };
let VERSION = '';
const v26 = () => Number(VERSION.split('.')[0]) >= 26;
const run_id = `e2e${Date.now().toString(36)}`;
const all = [
  node('mindsdb-server'),
  node('mindsdb-sql'),
  node('mindsdb-predict'),
  node('mindsdb-database'),
  node('mindsdb-chatbot'),
  node('mindsdb-skill'),
  node('mindsdb-agent'),
  catchNode,
];

async function load(def, server = {}, creds) {
  await helper.load(all, flowWith(def, { url: URL_, timeout: 60000, ...server }), creds);
}

describe('e2e against a real MindsDB', function () {
  before(async function () {
    VERSION = await realMindsDB(URL_, { llm: true });
    console.log(`      MindsDB ${VERSION} at ${URL_}, LLM double at ${LLM_URL}`);
  });
  eachCaseInNodeRed();

  describe('mindsdb-sql', () => {
    const def = {
      type: 'mindsdb-sql',
      query: '',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    };
    it('returns row objects from a real table (files.sensor_readings)', async () => {
      await load(def);
      const m = await ok({
        query: 'SELECT temperature, energy FROM files.sensor_readings ORDER BY temperature LIMIT 3',
      });
      assert.deepEqual(m.payload, [
        { temperature: 15, energy: 48 },
        { temperature: 16, energy: 53.5 },
        { temperature: 17, energy: 59 },
      ]);
      assert.deepEqual(m.mindsdb.columns, ['temperature', 'energy']);
    });
    it('binds named and positional params on the server', async () => {
      await load(def);
      const a = await ok({
        query: 'SELECT count(*) AS n FROM files.sensor_readings WHERE temperature > :min',
        params: { min: 30 },
      });
      assert.equal(a.payload[0].n, 4);
      const b = await ok({
        query: 'SELECT count(*) AS n FROM files.sensor_readings WHERE temperature > ?',
        params: [30],
      });
      assert.equal(b.payload[0].n, 4);
    });
    it('queries the PostgreSQL data source created by the seed', async () => {
      await load(def);
      const m = await ok({ query: 'SELECT count(*) AS n FROM sensors_pg.sensor_readings' });
      assert.equal(m.payload[0].n, 20);
    });
    it('joins the table with the model', async () => {
      await load(def);
      const m = await ok({
        query:
          'SELECT t.temperature, t.humidity, m.energy FROM files.sensor_readings AS t JOIN mindsdb.sensor_energy AS m WHERE t.temperature = 20',
      });
      assert.equal(m.payload.length, 1);
      const { temperature, humidity, energy } = m.payload[0];
      // Number(): 26.x's model is an LLM (the openai engine on the double), whose answers are text
      assert.ok(Math.abs(Number(energy) - (2 * temperature + 0.5 * humidity + 3)) < 1e-6, JSON.stringify(m.payload[0]));
    });
    it('answers "ok" statements with []', async () => {
      await load(def);
      const m = await ok({ query: `CREATE PROJECT IF NOT EXISTS ${run_id}_p` });
      assert.deepEqual(m.payload, []);
      assert.equal(m.mindsdb.type, 'ok');
      await ok({ query: `DROP PROJECT ${run_id}_p` });
    });
    it("a statement MindsDB's parser refuses gets the answer the stand-in gives (the unit suite relies on it)", async () => {
      const fake = await createFakeMindsDB().listen();
      try {
        for (const query of ["SELECT 'unclosed", 'SELECT FROM', 'SELECT 1; SELECT 2']) {
          const ask = async (base) => {
            const res = await fetch(`${base}/api/sql/query`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ query }),
            });
            const body = await res.json();
            delete body.context;
            return { status: res.status, body };
          };
          assert.deepEqual(await ask(fake.url), await ask(URL_), query);
        }
      } finally {
        await fake.close();
      }
    });
    it('sends bad SQL to Catch with the server message', async () => {
      await load(def);
      const e = await fails({ query: 'SELECT * FROM no_such_table_xyz' });
      assert.match(e.error.message, /MindsDB SQL error: .*no_such_table_xyz/);
      assert.equal(e.mindsdbError.kind, 'sql');
    });
  });

  describe('mindsdb-predict', () => {
    const def = {
      type: 'mindsdb-predict',
      project: 'mindsdb',
      projectType: 'str',
      model: 'sensor_energy',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
      keepExplainString: false,
    };
    it('predicts one row (the {data} wrapper: a bare array would be a 500)', async () => {
      await load(def);
      const m = await ok({ payload: { temperature: 20, humidity: 40 } });
      assert.ok(Math.abs(Number(m.payload.energy) - 63) < 1e-6, String(m.payload.energy));
      assert.deepEqual(m.mindsdb, { project: 'mindsdb', model: 'sensor_energy', target: 'energy', rows: 1 });
    });
    it('predicts many rows in one message', async () => {
      await load(def);
      const m = await ok({
        payload: [
          { temperature: 10, humidity: 0 },
          { temperature: 0, humidity: 10 },
        ],
      });
      assert.deepEqual(
        m.payload.map((r) => Math.round(Number(r.energy) * 1000) / 1000),
        [23, 8],
      );
    });
    it('micro-batches a stream of single readings and routes each answer back', async () => {
      await load({ ...def, batch: true, batchSize: 25, batchWindow: 50 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => ok({ payload: { temperature: i, humidity: 10 }, seq: i })),
      );
      for (const m of results) assert.ok(Math.abs(Number(m.payload.energy) - (2 * m.seq + 5 + 3)) < 1e-6);
    });
    it('sends an unknown model to Catch (404)', async () => {
      await load({ ...def, model: 'no_such_model' });
      const e = await fails({ payload: { temperature: 1 } });
      assert.match(e.error.message, /404.*Model not found/);
    });
  });

  describe('mindsdb-database', () => {
    const name = `${run_id}_pg`;
    const def = {
      type: 'mindsdb-database',
      operation: 'msg',
      dbName: '',
      dbNameType: 'str',
      engine: 'postgres',
      host: '127.0.0.1',
      port: '5432',
      user: 'postgres',
      database: 'test',
      extraParams: '',
      checkConnection: true,
    };
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
      assert.match(
        (await fails({ operation: 'get', name })).error.message,
        /404.*Database not found|404.*does not exist/i,
      );
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
      assert.match(
        (await fails({ operation: 'create', name: `${name}4` })).error.message,
        /500.*'NoneType' object has no attribute 'get'/,
      );
    });
    it("update of a mistyped database name fails and creates nothing (MindsDB's PUT would)", async () => {
      await load({ ...def, checkConnection: false });
      const e = await fails({
        operation: 'update',
        name: `${name}_typo`,
        payload: { parameters: { schema: 'public' } },
      });
      assert.match(e.error.message, new RegExp(`database "${name}_typo" does not exist, nothing was changed`));
      assert.match(
        (await fails({ operation: 'get', name: `${name}_typo` })).error.message,
        /404.*Database not found|404.*does not exist/i,
      );
    });
  });

  for (const [type, kind, settings] of [
    [
      'mindsdb-skill',
      'skill',
      { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'], description: 'sensor readings' } },
    ],
    ['mindsdb-agent', 'agent', { model: LLM }],
    ['mindsdb-chatbot', 'chatbot', { model_name: 'sensor_energy', database_name: 'files' }],
  ]) {
    describe(type, () => {
      const def = {
        type,
        operation: 'msg',
        project: 'mindsdb',
        projectType: 'str',
        itemName: '',
        itemNameType: 'str',
        agent: '',
        streamMode: 'final',
      };
      const name = `${run_id}_${kind}`;
      it(`creates, lists, gets, updates and deletes a ${kind}`, async function () {
        if (kind === 'skill' && v26())
          skipBecause(this, VERSION, 'skills were removed in MindsDB 26.0 (the next case checks the node says so)');
        await load(def);
        assert.equal((await ok({ operation: 'create', name, payload: settings })).payload.name, name);
        assert.ok((await ok({ operation: 'list' })).payload.some((r) => r.name === name));
        assert.equal((await ok({ operation: 'get', name })).payload.name, name);
        const change =
          kind === 'agent'
            ? { prompt_template: 'answer briefly' }
            : kind === 'skill'
              ? { params: { ...settings.params, description: 'changed' } }
              : { params: { note: 'changed' } };
        await ok({ operation: 'update', name, payload: change });
        const after = (await ok({ operation: 'get', name })).payload;
        if (kind === 'agent') assert.equal(after.prompt_template, 'answer briefly');
        if (kind === 'skill') assert.equal(after.params.description, 'changed');
        if (kind === 'chatbot') assert.deepEqual(after.params, { note: 'changed' });
        assert.deepEqual((await ok({ operation: 'delete', name })).payload, {
          deleted: true,
          resource: kind,
          project: 'mindsdb',
          name,
        });
      });
      it(`sends a missing ${kind} to Catch (404)`, async () => {
        await load(def);
        const e = await fails({ operation: 'get', name: `${name}_missing` });
        if (kind === 'skill' && v26())
          assert.match(e.error.message, /this MindsDB server has no skills \(skills were removed in MindsDB 26\.0\)/);
        else assert.match(e.error.message, /404/);
      });
    });
  }

  describe('agent extras', () => {
    const def = {
      type: 'mindsdb-agent',
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      agent: '',
      streamMode: 'final',
    };
    it('update of a missing agent says it must exist (the server does not create on PUT)', async () => {
      await load(def);
      assert.match(
        (await fails({ operation: 'update', name: `${run_id}_ghost`, payload: {} })).error.message,
        /does not exist.*create it first/,
      );
    });
    it('answers a completion through the LLM (plain): the answer text arrives in msg.payload', async () => {
      await load(def);
      const agent = `${run_id}_asker`;
      await ok({
        operation: 'create',
        name: agent,
        payload: { model: LLM, prompt_template: 'Answer questions about the sensor readings' },
      });
      const question = `How many readings are there? (${run_id})`;
      const m = await ok({ operation: 'completions', name: agent, payload: question, timeout: 90000 });
      assert.equal(typeof m.payload, 'string');
      assert.ok(m.payload.includes(question), m.payload);
      await ok({ operation: 'delete', name: agent });
    });
    it('streams a completion (chunks mode): a sequence of chunks, the last one the answer', async () => {
      await load({ ...def, streamMode: 'chunks' });
      const agent = `${run_id}_streamer`;
      await ok({ operation: 'create', name: agent, payload: { model: LLM } });
      const question = `Which reading is the warmest? (${run_id})`;
      const msgs = [];
      const done = new Promise((resolve, reject) => {
        helper.getNode('out').on('input', (m) => {
          msgs.push(m);
          if (m.complete) resolve();
        });
        helper.getNode('caught').on('input', (m) => reject(m.error));
      });
      helper.getNode('n1').receive({ operation: 'completions', name: agent, payload: question, timeout: 90000 });
      await done;
      const last = msgs.at(-1);
      assert.ok(msgs.length >= 2, `${msgs.length} messages`);
      assert.deepEqual(
        msgs.map((m) => m.parts.index),
        msgs.map((_, i) => i),
      );
      assert.equal(last.parts.count, msgs.length);
      assert.ok(last.payload.includes(question), last.payload);
      // the chunks are MindsDB's own events: 25.x ends with {output}, 26.x with {type: "data", text}
      assert.ok(
        msgs
          .slice(0, -1)
          .some((m) => typeof m.payload === 'object' && (m.payload.output || m.payload.text || '').includes(question)),
      );
      await helper.unload();
      await load(def);
      await ok({ operation: 'delete', name: agent });
    });
    it('an agent whose LLM cannot be reached: 26.x refuses to create it, 25.x answers with the error text', async () => {
      await load(def);
      const agent = `${run_id}_unreachable`;
      const payload = { model: { ...LLM, base_url: 'http://127.0.0.1:9/v1' } };
      if (v26()) {
        // 26.x calls the LLM when the agent is created
        const e = await fails({ operation: 'create', name: agent, payload });
        assert.match(e.error.message, /500 .*Connection error/);
        return;
      }
      await ok({ operation: 'create', name: agent, payload });
      // 25.x's agent turns the LLM's failure into its answer (HTTP 200): the node cannot tell it
      // from an answer, and passes it on as one (docs/real-mindsdb.md)
      const m = await ok({ operation: 'completions', name: agent, payload: 'Anyone there?', timeout: 90000 });
      assert.equal(m.payload, 'Connection error.');
      await ok({ operation: 'delete', name: agent });
    });
    it('26.x: skills and params it would reject are refused before sending, saying what to send instead', async function () {
      if (!v26()) skipBecause(this, VERSION, 'MindsDB 25.x has skills and takes any params key');
      await load(def);
      const e1 = await fails({
        operation: 'create',
        name: `${run_id}_refused`,
        payload: { model: LLM, skills: ['s1'] },
      });
      assert.match(e1.error.message, /has no skills .*data: \{tables/);
      const e2 = await fails({
        operation: 'create',
        name: `${run_id}_refused`,
        payload: { model: LLM, params: { temperature: 0 } },
      });
      assert.match(e2.error.message, /accepts only timeout and mode in an agent's params \(got temperature\)/);
      assert.match((await fails({ operation: 'get', name: `${run_id}_refused` })).error.message, /404/);
    });
    it('a chatbot on an agent: works on 25.x (agent on a MindsDB model), explained on 26.x', async () => {
      await load(def);
      const agent = `${run_id}_botagent`;
      await ok({
        operation: 'create',
        name: agent,
        payload: v26() ? { model: LLM } : { model_name: 'sensor_energy', provider: 'mindsdb' },
      });
      await helper.unload();
      await load({ ...def, type: 'mindsdb-chatbot' });
      const bot = {
        operation: 'create',
        name: `${run_id}_bot`,
        payload: { agent_name: agent, database_name: 'files' },
      };
      if (v26()) {
        assert.match(
          (await fails(bot)).error.message,
          /needs the agent's top-level model_name, which agents on MindsDB 26\.x .* do not have .*500/,
        );
      } else {
        assert.equal((await ok(bot)).payload.name, `${run_id}_bot`);
        await ok({ operation: 'delete', name: `${run_id}_bot` });
      }
      await helper.unload();
      await load(def);
      await ok({ operation: 'delete', name: agent });
    });
    it('skills list filtered by agent', async function () {
      if (v26()) skipBecause(this, VERSION, 'skills were removed in MindsDB 26.0');
      await load({ ...def, type: 'mindsdb-skill' });
      await ok({
        operation: 'create',
        name: `${run_id}_s_a`,
        payload: { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'] } },
      });
      await ok({
        operation: 'create',
        name: `${run_id}_s_b`,
        payload: { type: 'text2sql', params: { database: 'files', tables: ['sensor_readings'] } },
      });
      await helper.unload();
      await load(def);
      await ok({
        operation: 'create',
        name: `${run_id}_with_skill`,
        payload: { model: LLM, skills: [`${run_id}_s_b`] },
      });
      await helper.unload();
      await load({ ...def, type: 'mindsdb-skill' });
      const list = await ok({ operation: 'list', agent: `${run_id}_with_skill` });
      assert.deepEqual(
        list.payload.map((s) => s.name),
        [`${run_id}_s_b`],
      );
    });
  });

  describe('examples/agents.json', () => {
    const { coreNode } = require('../support/nr');
    const saved = {};
    const env = { OPENAI_API_KEY: 'sk-llm-double', OPENAI_BASE_URL: LLM_URL, OPENAI_MODEL: 'gpt-4' };
    before(() => {
      for (const k of Object.keys(env)) {
        saved[k] = process.env[k];
        process.env[k] = env[k];
      }
    });
    after(() => {
      for (const k of Object.keys(env)) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });
    it('"set up and ask" creates the agent and answers; "clean up" deletes it (the LLM from OPENAI_* as the example says)', async () => {
      const flow = JSON.parse(
        require('node:fs').readFileSync(
          require('node:path').join(__dirname, '..', '..', 'examples', 'agents.json'),
          'utf8',
        ),
      ).map((n) =>
        n.type === 'mindsdb-server'
          ? { ...n, url: URL_, timeout: 90000 }
          : n.type === 'debug'
            ? { id: n.id, z: n.z, type: 'helper' }
            : n,
      );
      await helper.load(
        [...all, coreNode('common/20-inject.js'), coreNode('common/90-comment.js'), coreNode('function/15-change.js')],
        flow,
      );
      const errors = [];
      helper.getNode('agt-debug-error').on('input', (m) => errors.push(m.error.message));
      const answer = nextMessage('agt-debug-answer', 90000);
      helper.getNode('agt-inject-setup').receive({});
      const m = await answer;
      assert.ok(m.payload.includes('How many readings are there?'), m.payload);
      assert.deepEqual(errors, []);
      helper.getNode('agt-inject-cleanup').receive({});
      // the agent delete goes first; then the skill delete (no skill was made) fails to the catch node
      await waitFor(() => errors.some((e) => /skill/i.test(e)), {
        timeoutMs: 30000,
        intervalMs: 100,
        what: () => `a skill error at the catch node: ${JSON.stringify(errors)}`,
      });
      const check = await fetch(`${URL_}/api/projects/mindsdb/agents/demo_agent`);
      assert.equal(check.status, 404);
    });
  });

  describe('authentication (a second MindsDB with MINDSDB_USERNAME/MINDSDB_PASSWORD)', function () {
    const AUTH = process.env.MINDSDB_AUTH_URL;
    const user = process.env.MINDSDB_AUTH_USERNAME;
    const password = process.env.MINDSDB_AUTH_PASSWORD;
    const def = {
      type: 'mindsdb-sql',
      query: 'SELECT 1 AS one',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    };
    before(function () {
      if (!AUTH) throw new Error('MINDSDB_AUTH_URL is not set: run through "npm run test:e2e"');
    });
    const login = async () => {
      const res = await fetch(`${AUTH}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: user, password }),
      });
      assert.equal(res.status, 200);
      const cookie = /session=([^;]+)/.exec(res.headers.get('set-cookie') || '');
      return { cookie: cookie?.[1], token: (await res.json()).token };
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
    it("bearer token mode with the server's static MINDSDB_AUTH_TOKEN (26.x), no login", async function () {
      if (!v26()) skipBecause(this, VERSION, 'MINDSDB_AUTH_TOKEN is new in MindsDB 26.x');
      const token = process.env.MINDSDB_AUTH_STATIC_TOKEN;
      assert.ok(token, 'MINDSDB_AUTH_STATIC_TOKEN is set by scripts/with-mindsdb.mjs --auth on 26.x');
      await load(def, { url: AUTH, authMode: 'token' }, { srv: { token } });
      assert.deepEqual((await ok({})).payload, [{ one: 1 }]);
      await helper.unload();
      await load(def, { url: AUTH, authMode: 'token' }, { srv: { token: `${token}x` } });
      assert.match((await fails({})).error.message, /401/);
    });
  });
});
