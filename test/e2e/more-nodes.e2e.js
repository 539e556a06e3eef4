'use strict';
/**
 * End-to-end for the file, job, model and knowledge-base nodes against a real MindsDB (25.14.1,
 * and 26.1 when MINDSDB_URL points at one): each check goes through the node inside Node-RED's
 * test helper and reads the result back through another node or the server. Where a version
 * lacks a feature, the test is skipped and says why.
 */
const assert = require('node:assert/strict');
const { fails, ok, skipBecause, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run_id = `e2e${Date.now().toString(36)}`;
const all = [
  'mindsdb-server',
  'mindsdb-sql',
  'mindsdb-predict',
  'mindsdb-file',
  'mindsdb-job',
  'mindsdb-model',
  'mindsdb-knowledge-base',
]
  .filter((n) => {
    try {
      node(n);
      return true;
    } catch {
      return false;
    }
  })
  .map(node)
  .concat([catchNode]);

/** A flow with n1 (the node under test) and n2 (a second node, e.g. sql to read back), both wired to out. */
async function load(def, second) {
  const flow = flowWith(def, { url: URL_, timeout: 120000 });
  if (second)
    flow.push({
      id: 'n2',
      z: 'f1',
      server: 'srv',
      wires: [['out']],
      name: '',
      outputProperty: 'payload',
      version: 1,
      ...second,
    });
  await helper.load(all, flow);
}
const sqlDef = {
  type: 'mindsdb-sql',
  query: '',
  database: '',
  databaseType: 'str',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 100,
};

let version = '';
const major = () => Number(version.split('.')[0]);

describe('e2e: file, job, model and knowledge-base nodes against a real MindsDB', function () {
  before(async function () {
    version = await realMindsDB(URL_);
    console.log(`    MindsDB ${version} at ${URL_}`);
  });
  eachCaseInNodeRed();

  describe('mindsdb-file', () => {
    const def = {
      type: 'mindsdb-file',
      operation: 'msg',
      fileName: '',
      fileNameType: 'str',
      format: 'csv',
      replace: false,
      maxSizeMB: 100,
    };
    const name = `${run_id}_readings`;
    const rows = [
      { sensor: 'a, north', temperature: 20.5, ok: true },
      { sensor: 'b "south"', temperature: 21, ok: false },
    ];

    it('uploads rows as CSV and reads them back through the sql node', async () => {
      await load(def, sqlDef);
      const up = await ok({ operation: 'upload', name, payload: rows });
      assert.deepEqual(up.payload, {
        uploaded: true,
        name,
        table: `files.${name}`,
        bytes: up.payload.bytes,
        rows: 2,
        replaced: false,
      });
      const back = await ok({ query: `SELECT sensor, temperature FROM files.${name} ORDER BY temperature` }, 'n2');
      assert.deepEqual(back.payload, [
        { sensor: 'a, north', temperature: 20.5 },
        { sensor: 'b "south"', temperature: 21 },
      ]);
    });
    it('refuses an existing name, then replaces the file when asked', async () => {
      await load(def, { ...def, operation: 'upload', replace: true });
      assert.match(
        (await fails({ operation: 'upload', name, payload: rows })).error.message,
        /already exists.*Replace/,
      );
      const m = await ok({ name, payload: [{ sensor: 'c', temperature: 5, ok: true }] }, 'n2');
      assert.equal(m.payload.replaced, true);
      await helper.unload();
      await load(sqlDef);
      assert.deepEqual((await ok({ query: `SELECT count(*) AS n FROM files.${name}` })).payload, [{ n: 1 }]);
    });
    it('uploads rows as JSON and a Buffer with its file name', async () => {
      await load({ ...def, format: 'json' }, sqlDef);
      await ok({
        operation: 'upload',
        name: `${name}_j`,
        payload: [
          { x: 1, y: 'one' },
          { x: 2, y: 'two' },
        ],
      });
      assert.deepEqual((await ok({ query: `SELECT x, y FROM files.${name}_j ORDER BY x` }, 'n2')).payload, [
        { x: 1, y: 'one' },
        { x: 2, y: 'two' },
      ]);
      await ok({
        operation: 'upload',
        name: `${name}_b`,
        payload: Buffer.from('x,y\n7,seven\n'),
        filename: 'numbers.csv',
      });
      assert.deepEqual((await ok({ query: `SELECT x, y FROM files.${name}_b` }, 'n2')).payload, [{ x: 7, y: 'seven' }]);
    });
    it('lists and deletes files; a name with an extension and a missing file are clear errors', async () => {
      await load(def);
      const list = (await ok({ operation: 'list' })).payload;
      assert.ok(
        list.some((f) => f.name === name),
        JSON.stringify(list.map((f) => f.name)),
      );
      for (const n of [name, `${name}_j`, `${name}_b`])
        assert.deepEqual((await ok({ operation: 'delete', name: n })).payload, { deleted: true, name: n });
      assert.match((await fails({ operation: 'delete', name })).error.message, /does not exist/);
      assert.match(
        (await fails({ operation: 'upload', name: 'x.csv', payload: 'a\n1\n' })).error.message,
        /has an extension/,
      );
    });
  });

  describe('mindsdb-job', () => {
    const def = {
      type: 'mindsdb-job',
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      query: '',
      schedule: '',
      startAt: '',
      endAt: '',
      ifQuery: '',
    };
    const name = `${run_id}_job`;
    it('creates a scheduled job (start and end sent as null), lists, gets, reads its history and deletes it', async () => {
      await load(def);
      const created = await ok({
        operation: 'create',
        name,
        payload: {
          query: 'SELECT * FROM files.sensor_readings LIMIT 1',
          schedule: 'every 1 day',
          end_at: '2099-12-31',
        },
      });
      assert.equal(created.payload.name, name);
      assert.equal(created.payload.schedule_str, 'every 1 day');
      assert.match(String(created.payload.end_at), /^2099-12-31/);
      assert.ok((await ok({ operation: 'list' })).payload.some((j) => j.name === name));
      assert.equal((await ok({ operation: 'get', name })).payload.query, 'SELECT * FROM files.sensor_readings LIMIT 1');
      assert.ok(Array.isArray((await ok({ operation: 'history', name })).payload));
      assert.match((await fails({ operation: 'create', name, payload: 'SELECT 1' })).error.message, /already exists/);
      assert.deepEqual((await ok({ operation: 'delete', name })).payload, {
        deleted: true,
        resource: 'job',
        project: 'mindsdb',
        name,
      });
      assert.ok(!(await ok({ operation: 'list' })).payload.some((j) => j.name === name));
    });
    it('a one-off job (no schedule, no dates) is accepted; a missing job is a clear error', async () => {
      await load(def);
      await ok({ operation: 'create', name: `${name}_once`, payload: 'SELECT 1' });
      await ok({ operation: 'delete', name: `${name}_once` });
      assert.match((await fails({ operation: 'delete', name: `${name}_once` })).error.message, /does not exist/);
      assert.match((await fails({ operation: 'get', name: `${name}_once` })).error.message, /404/);
    });
  });

  describe('mindsdb-model', () => {
    const def = {
      type: 'mindsdb-model',
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      model: '',
      modelType: 'str',
      modelVersion: '',
      statement: '',
      database: '',
      select: '',
      predict: '',
      engine: '',
      using: '',
      wait: true,
      waitTimeout: 300,
    };
    const fileDef = {
      type: 'mindsdb-file',
      operation: 'upload',
      fileName: '',
      fileNameType: 'str',
      format: 'csv',
      replace: true,
      maxSizeMB: 100,
    };
    const predictDef = {
      type: 'mindsdb-predict',
      project: 'mindsdb',
      projectType: 'str',
      model: '',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
      keepExplainString: false,
    };
    const model = `${run_id}_power`;
    const table = `${run_id}_train`;
    // power = 3·load + 10, exactly: 25.x's linear BYOM model (ci/mindsdb/linear_model.py) learns it.
    const rows = Array.from({ length: 12 }, (_, i) => ({ load: i, power: 3 * i + 10 }));
    /**
     * The engine each version can train offline: 25.x the BYOM engine `linear` (seeded); 26.x has
     * none that learns, so its openai engine on the LLM double (`llm_double`, seeded) stands in:
     * training and waiting work the same, the predictions are the double's text.
     */
    let engine;
    before(async function () {
      const res = await fetch(`${URL_}/api/sql/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'SHOW ML_ENGINES' }),
      });
      const names = ((await res.json()).data || []).map((r) => String(r[0]).toLowerCase());
      if (major() < 26 && names.includes('linear')) engine = { engine: 'linear', using: '' };
      else if (major() >= 26 && names.includes('llm_double'))
        engine = {
          engine: 'llm_double',
          using: JSON.stringify({ model_name: 'gpt-4o', mode: 'default', prompt_template: 'power for load {{load}}' }),
        };
      else
        skipBecause(
          this,
          version,
          `no offline ML engine seeded (want "${major() < 26 ? 'linear' : 'llm_double'}", have ${names.join(', ')}): run through scripts/with-mindsdb.mjs --seed`,
        );
    });

    it('trains a model from an uploaded file, waits for it, and the predict node uses it', async function () {
      this.timeout(360000);
      await load(fileDef);
      await ok({ name: table, payload: rows });
      await helper.unload();
      await load(
        {
          ...def,
          operation: 'train',
          model,
          database: 'files',
          select: `SELECT * FROM ${table}`,
          predict: 'power',
          ...engine,
        },
        { ...predictDef, model },
      );
      const trained = await ok({});
      assert.equal(trained.payload.status, 'complete', JSON.stringify(trained.payload));
      assert.equal(trained.mindsdb.version, 1);
      const p = await ok({ payload: { load: 20 } }, 'n2');
      if (major() < 26) assert.ok(Math.abs(p.payload.power - 70) < 1e-6, JSON.stringify(p.payload));
      else assert.ok(p.payload.power !== undefined && p.payload.power !== null, JSON.stringify(p.payload));
    });
    it('USING values with quotes, backslashes, comment marks and unicode reach MindsDB exactly (its own parser reads them)', async function () {
      this.timeout(360000);
      const hostile = 'it\'s C:\\data\\x ☃ "q" -- ; */ \'end';
      // 26.x's openai engine refuses unknown USING keys, so the value rides in its prompt template there.
      const using =
        major() < 26
          ? { note: hostile, from: 1, tiny: 1.5e-7, list: ["a'b", null, true] }
          : { ...JSON.parse(engine.using), prompt_template: `power for load {{load}}; ${hostile}` };
      const name = `${model}_q`;
      await load({
        ...def,
        model: name,
        database: 'files',
        select: `SELECT * FROM ${table} -- all rows`,
        predict: 'power',
        engine: engine.engine,
        using: JSON.stringify(using),
      });
      const trained = await ok({ operation: 'train' });
      assert.equal(trained.payload.status, 'complete', JSON.stringify(trained.payload));
      const stored = trained.payload.problem_definition?.using || {};
      for (const [key, value] of Object.entries(using))
        assert.deepEqual(stored[key], value, `USING ${key}: ${JSON.stringify(stored)}`);
      const refused = await fails({ operation: 'retrain', model: name, payload: { using: { path: 'C:\\data\\' } } });
      assert.match(refused.error.message, /ends with a backslash/);
      await ok({ operation: 'delete', model: name });
    });
    it('retrains (a new version, waited for), lists versions, activates the first, describes and deletes', async function () {
      this.timeout(360000);
      await load(def);
      const re = await ok({ operation: 'retrain', model });
      assert.equal(re.payload.version, 2);
      assert.equal(re.payload.status, 'complete');
      assert.deepEqual(
        (await ok({ operation: 'versions', model })).payload.map((v) => v.version),
        [1, 2],
      );
      const act = await ok({ operation: 'activate', model, version: 1 });
      assert.equal(act.payload.active, true);
      assert.deepEqual(
        (await ok({ operation: 'list' })).payload.filter((m) => m.name === model).map((m) => m.version),
        [1],
      );
      const d = await ok({ operation: 'describe', model });
      assert.ok(Array.isArray(d.payload) && d.payload.length > 0);
      assert.match((await fails({ operation: 'delete', model, version: 1 })).error.message, /active version/);
      await ok({ operation: 'delete', model, version: 2 });
      assert.deepEqual((await ok({ operation: 'delete', model })).payload, {
        deleted: true,
        project: 'mindsdb',
        model,
      });
      assert.match((await fails({ operation: 'get', model })).error.message, /404/);
    });
    it("a CREATE MODEL statement whose engine does not exist fails at once with the server's reason", async () => {
      await load(def);
      const e = await fails({
        operation: 'train',
        payload: `CREATE MODEL mindsdb.${model}_x FROM files (SELECT * FROM ${table}) PREDICT power USING engine = 'no_such_engine'`,
      });
      assert.match(e.error.message, /no_such_engine/i);
    });
  });

  describe('mindsdb-knowledge-base', () => {
    const { startLlmDouble } = require('../support/llm-double');
    const name = `${run_id}_docs`;
    const vectorDb = `${run_id}_vectors`;
    let llm;
    let storage = { storageDatabase: '', storageTable: '' };
    const def = () => ({
      type: 'mindsdb-knowledge-base',
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      provider: 'openai',
      embeddingModel: 'text-embedding-3-small',
      baseUrl: llm.url,
      ...storage,
      contentColumns: '',
      metadataColumns: '',
      idColumn: '',
      insertQuery: '',
      limit: '',
      threshold: '',
    });
    const docs = [
      { id: 'pump', content: 'The pump in hall A overheats when its filter is clogged', area: 'hall A' },
      { id: 'filter', content: 'Replace the air filter of every pump every three months', area: 'all' },
      { id: 'lunch', content: 'The cafeteria serves lunch from noon until two', area: 'canteen' },
    ];
    let ownLlm;
    before(async function () {
      // scripts/with-mindsdb.mjs runs one beside the server (LLM_DOUBLE_URL); else start our own.
      llm = process.env.LLM_DOUBLE_URL
        ? { url: process.env.LLM_DOUBLE_URL, calls: null }
        : (ownLlm = await startLlmDouble());
      // A vector store that needs no server: duckdb_faiss (installed with mindsdb[duckdb-faiss]).
      const res = await fetch(`${URL_}/api/databases/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ database: { name: vectorDb, engine: 'duckdb_faiss', parameters: {} } }),
      });
      if (res.ok) storage = { storageDatabase: vectorDb, storageTable: name };
      else
        console.log(
          `      no duckdb_faiss vector store on MindsDB ${version} (HTTP ${res.status}): using the server's default store`,
        );
    });
    after(async () => {
      if (ownLlm) await ownLlm.close();
      await fetch(`${URL_}/api/databases/${vectorDb}`, {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
      }).catch(() => undefined);
    });

    it('creates a knowledge base (embeddings from the loopback LLM double, the api key a credential), fills it and searches it', async function () {
      this.timeout(180000);
      await helper.load(all, flowWith(def(), { url: URL_, timeout: 120000 }), { n1: { apiKey: 'sk-e2e-kb-secret' } });
      const created = await ok({ operation: 'create', name, payload: { metadata_columns: ['area'] } });
      assert.equal(created.payload.name, name);
      assert.ok(!JSON.stringify(created).includes('sk-e2e-kb-secret'), 'the api key is not in the output');
      if (llm.calls)
        assert.ok(
          llm.calls.some((c) => c.path === '/v1/embeddings'),
          'MindsDB asked the double for embeddings',
        );
      const ins = await ok({ operation: 'insert', name, payload: docs });
      assert.deepEqual(ins.payload, { inserted: true, name, rows: 3 });
      const found = await ok({ operation: 'search', name, payload: 'why does the pump overheat', limit: 2 });
      assert.equal(found.payload.length, 2);
      assert.equal(found.payload[0].id, 'pump', JSON.stringify(found.payload));
      assert.ok('relevance' in found.payload[0] && 'chunk_content' in found.payload[0]);
      assert.ok(found.mindsdb.columns.includes('relevance'));
      const strict = await ok({ operation: 'search', name, payload: 'pump filter', threshold: 0.99 });
      assert.deepEqual(strict.payload, []);
      // The text is bound, not spliced: quotes and SQL in it are just text.
      const odd = await ok({ operation: 'search', name, payload: "lunch'; DROP TABLE x; --" });
      assert.ok(Array.isArray(odd.payload));
    });
    it('inserts the rows of a SELECT, lists, gets (api key masked) and deletes', async function () {
      this.timeout(180000);
      await helper.load(all, flowWith(def(), { url: URL_, timeout: 120000 }), { n1: { apiKey: 'sk-e2e-kb-secret' } });
      await ok({
        operation: 'insert',
        name,
        payload: "SELECT 'sensor_readings holds temperature and humidity' AS content, 'readme' AS id",
      });
      const found = await ok({ operation: 'search', name, payload: 'temperature humidity', limit: 1 });
      assert.equal(found.payload[0].id, 'readme');
      assert.ok((await ok({ operation: 'list' })).payload.some((k) => k.name === name));
      const got = await ok({ operation: 'get', name });
      assert.ok(!JSON.stringify(got.payload).includes('sk-e2e-kb-secret'));
      assert.deepEqual((await ok({ operation: 'delete', name })).payload, {
        deleted: true,
        resource: 'knowledge_base',
        project: 'mindsdb',
        name,
      });
      assert.match((await fails({ operation: 'get', name })).error.message, /404/);
    });
  });
});
