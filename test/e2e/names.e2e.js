'use strict';
/**
 * Names with capitals against a real MindsDB (25.14.1 or 26.1.0, MINDSDB_VERSION), issue 26.
 *
 * 1. The measurement: for every resource the package names, a mixed-case name is made the ways a
 *    user makes it (SQL unquoted, SQL backticked, REST or an upload), then looked up by REST and by
 *    SQL, quoted and unquoted, with the name as typed and lower-cased. The rows must equal the
 *    table in docs/real-mindsdb.md ("Names and capitals"), which this test reads: the page and the
 *    server cannot drift apart. Each row is printed, so a changed server shows what to write.
 * 2. The nodes: each resource node with a mixed-case name, made through the node and through
 *    plain unquoted SQL (the common way in MindsDB's editor), works by the name as the user typed
 *    it, and reports what MindsDB stored.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { fails, ok, skipBecause, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, allNodes, flowWith } = require('../support/nr');
const { waitFor } = require('../support/wait');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const LLM_URL = process.env.LLM_DOUBLE_URL;
const run = Date.now().toString(36).slice(-5);
let VERSION = '';
const v26 = () => Number(VERSION.split('.')[0]) >= 26;

/** The server itself, without our client: what it answers is what is measured. */
async function api(method, p, body) {
  const res = await fetch(`${URL_}/api${p}`, {
    method,
    headers: body instanceof FormData ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return {
    status: res.status,
    body: json,
    ok: res.ok && !(json && json.type === 'error') && !(json && json.status === 'connection_error'),
  };
}
const sql = (query) => api('POST', '/sql/query', { query });
const enc = encodeURIComponent;
const namesOf = (records) => (Array.isArray(records) ? records.map((r) => r.name) : []);
/** A SQL probe: found when the statement answers rows (DESCRIBE ML_ENGINE answers an empty table for a miss). */
const finds = async (query) => {
  const a = (await sql(query)).body;
  return a && a.type === 'table' ? a.data.length > 0 || !/^DESCRIBE ML_ENGINE/.test(query) : a && a.type === 'ok';
};
const upload = (name, text = 'a,b\n1,2\n') => {
  const form = new FormData();
  form.append('source_type', 'file');
  form.append('original_file_name', `${name}.csv`);
  form.append('file', new Blob([text]), `${name}.csv`);
  return api('PUT', `/files/${enc(name)}`, form);
};

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
const PG_SQL = `PARAMETERS = ${JSON.stringify(PG)}`;
const LLM = () => ({ provider: 'openai', model_name: 'gpt-4', api_key: 'sk-llm-double', base_url: LLM_URL });
const EMBEDDING = () => ({
  provider: 'openai',
  model_name: 'text-embedding-3-small',
  api_key: 'sk-llm-double',
  base_url: LLM_URL,
});
/** What each version can train offline (scripts/seed-mindsdb.mjs seeds both engines). */
const modelUsing = () =>
  v26()
    ? "engine = 'llm_double', model_name = 'gpt-4o', mode = 'default', prompt_template = '2 * {{temperature}}'"
    : "engine = 'linear'";
const vectorDb = `nmvec${run}`;
let vectors = false;
const storage = (kb) => (vectors ? { database: vectorDb, table: kb.toLowerCase() } : undefined);
const storageSql = (kb) => (vectors ? `, storage = ${vectorDb}.${kb.toLowerCase()}` : '');

/**
 * Every resource the package names: how a user makes one, how it is listed (as stored), how
 * REST and SQL find it, and how it is removed. `ref` is the name as it goes into SQL (quoted
 * or not). `del` deletes by the name as typed: REST's DELETE, or SQL's DROP with backticks for
 * projects and ML engines (files have no GET by name).
 */
const RESOURCES = [
  {
    resource: 'file',
    makers: {
      upload: (n) => upload(n),
      SQL: (n) => sql(`CREATE TABLE files.${n} (SELECT 1 AS a)`),
      'SQL, backticked': (n) => sql(`CREATE TABLE files.\`${n}\` (SELECT 1 AS a)`),
      // the table node's create in the files database
      REST: (n) => api('POST', '/databases/files/tables', { table: { name: n, select: 'SELECT 1 AS a' } }),
    },
    list: async () => namesOf((await api('GET', '/files/')).body),
    del: async (n) => (await api('DELETE', `/files/${enc(n)}`)).ok,
    sqlFinds: (ref) => finds(`SELECT * FROM files.${ref} LIMIT 1`),
    drop: (n) => api('DELETE', `/files/${enc(n)}`),
  },
  {
    resource: 'database',
    makers: {
      SQL: (n) => sql(`CREATE DATABASE ${n} WITH ENGINE = 'postgres', ${PG_SQL}`),
      'SQL, backticked': (n) => sql(`CREATE DATABASE \`${n}\` WITH ENGINE = 'postgres', ${PG_SQL}`),
      REST: (n) => api('POST', '/databases/', { database: { name: n, engine: 'postgres', parameters: PG } }),
      // the database node's update when it may create a missing database
      'REST, PUT': (n) => api('PUT', `/databases/${enc(n)}`, { database: { engine: 'postgres', parameters: PG } }),
    },
    list: async () => namesOf(((await api('GET', '/databases/')).body || []).filter((d) => d.type === 'data')),
    get: async (n) => (await api('GET', `/databases/${enc(n)}`)).ok,
    sqlFinds: (ref) => finds(`SELECT * FROM ${ref}.sensor_readings LIMIT 1`),
    del: async (n) => (await api('DELETE', `/databases/${enc(n)}`)).ok,
    drop: (n) => api('DELETE', `/databases/${enc(n)}`),
  },
  {
    resource: 'project',
    makers: { SQL: (n) => sql(`CREATE PROJECT ${n}`), 'SQL, backticked': (n) => sql(`CREATE PROJECT \`${n}\``) },
    list: async () => namesOf(((await api('GET', '/databases/')).body || []).filter((d) => d.type === 'project')),
    get: async (n) => (await api('GET', `/projects/${enc(n)}`)).ok,
    del: async (n) => (await sql(`DROP PROJECT \`${n}\``)).ok,
    sqlFinds: (ref) => finds(`SELECT * FROM ${ref}.models`),
    drop: (n) => sql(`DROP PROJECT \`${n}\``),
  },
  {
    resource: 'model',
    makers: {
      SQL: (n) =>
        sql(
          `CREATE MODEL mindsdb.${n} FROM files (SELECT * FROM sensor_readings) PREDICT energy USING ${modelUsing()}`,
        ),
      'SQL, backticked': (n) =>
        sql(
          `CREATE MODEL mindsdb.\`${n}\` FROM files (SELECT * FROM sensor_readings) PREDICT energy USING ${modelUsing()}`,
        ),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/models')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/models/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/models/${enc(n)}`)).ok,
    // DESCRIBE, as the model node sent it before it asked REST's describe
    sqlFinds: (ref) => finds(`DESCRIBE mindsdb.${ref}`),
    // Deleting a model while it trains breaks the engine's later trainings (PendingRollbackError), on both versions.
    settle: (n) => trained(n),
    drop: (n) => api('DELETE', `/projects/mindsdb/models/${enc(n)}`),
  },
  {
    resource: 'knowledge base',
    makers: {
      SQL: (n) =>
        sql(
          `CREATE KNOWLEDGE_BASE mindsdb.${n} USING embedding_model = ${JSON.stringify(EMBEDDING())}${storageSql(n)}`,
        ),
      'SQL, backticked': (n) =>
        sql(
          `CREATE KNOWLEDGE_BASE mindsdb.\`${n}\` USING embedding_model = ${JSON.stringify(EMBEDDING())}${storageSql(n)}`,
        ),
      REST: (n) =>
        api('POST', '/projects/mindsdb/knowledge_bases', {
          knowledge_base: { name: n, embedding_model: EMBEDDING(), storage: storage(n) },
        }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/knowledge_bases')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/knowledge_bases/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/knowledge_bases/${enc(n)}`)).ok,
    sqlFinds: (ref) => finds(`SELECT * FROM mindsdb.${ref} WHERE content = 'pump' LIMIT 1`),
    drop: (n) => api('DELETE', `/projects/mindsdb/knowledge_bases/${enc(n)}`),
  },
  {
    resource: 'job',
    makers: {
      SQL: (n) => sql(`CREATE JOB mindsdb.${n} (SELECT 1) EVERY 1 day`),
      'SQL, backticked': (n) => sql(`CREATE JOB mindsdb.\`${n}\` (SELECT 1) EVERY 1 day`),
      REST: (n) =>
        api('POST', '/projects/mindsdb/jobs', {
          job: { name: n, query: 'SELECT 1', start_at: null, end_at: null, schedule_str: 'every 1 day' },
        }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/jobs')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/jobs/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/jobs/${enc(n)}`)).ok,
    drop: (n) => api('DELETE', `/projects/mindsdb/jobs/${enc(n)}`),
  },
  {
    resource: 'view',
    makers: {
      SQL: (n) => sql(`CREATE VIEW mindsdb.${n} AS (SELECT 1 AS a)`),
      'SQL, backticked': (n) => sql(`CREATE VIEW mindsdb.\`${n}\` AS (SELECT 1 AS a)`),
      REST: (n) => api('POST', '/projects/mindsdb/views', { view: { name: n, query: 'SELECT 1 AS a' } }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/views')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/views/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/views/${enc(n)}`)).ok,
    sqlFinds: (ref) => finds(`SELECT * FROM mindsdb.${ref}`),
    drop: (n) => api('DELETE', `/projects/mindsdb/views/${enc(n)}`),
  },
  {
    resource: 'agent',
    makers: {
      SQL: (n) => sql(`CREATE AGENT mindsdb.${n} USING ${agentUsing()}`),
      'SQL, backticked': (n) => sql(`CREATE AGENT mindsdb.\`${n}\` USING ${agentUsing()}`),
      REST: (n) => api('POST', '/projects/mindsdb/agents', { agent: agentBody(n) }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/agents')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/agents/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/agents/${enc(n)}`)).ok,
    drop: (n) => api('DELETE', `/projects/mindsdb/agents/${enc(n)}`),
  },
  {
    resource: 'chatbot',
    makers: {
      SQL: (n) => sql(`CREATE CHATBOT mindsdb.${n} USING database = 'files', model = 'sensor_energy'`),
      'SQL, backticked': (n) =>
        sql(`CREATE CHATBOT mindsdb.\`${n}\` USING database = 'files', model = 'sensor_energy'`),
      REST: (n) =>
        api('POST', '/projects/mindsdb/chatbots', {
          chatbot: { name: n, model_name: 'sensor_energy', database_name: 'files' },
        }),
      // the chatbot node's update of a name MindsDB does not have (its PUT creates it)
      'REST, PUT': (n) =>
        api('PUT', `/projects/mindsdb/chatbots/${enc(n)}`, {
          chatbot: { name: n, model_name: 'sensor_energy', database_name: 'files' },
        }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/chatbots')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/chatbots/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/chatbots/${enc(n)}`)).ok,
    drop: (n) => api('DELETE', `/projects/mindsdb/chatbots/${enc(n)}`),
  },
  {
    resource: 'skill',
    only: '25',
    makers: {
      SQL: (n) =>
        sql(
          `CREATE SKILL mindsdb.${n} USING type = 'text2sql', database = 'files', tables = ['sensor_readings'], description = 'readings'`,
        ),
      'SQL, backticked': (n) =>
        sql(
          `CREATE SKILL mindsdb.\`${n}\` USING type = 'text2sql', database = 'files', tables = ['sensor_readings'], description = 'readings'`,
        ),
      REST: (n) =>
        api('POST', '/projects/mindsdb/skills', {
          skill: {
            name: n,
            type: 'text2sql',
            params: { database: 'files', tables: ['sensor_readings'], description: 'readings' },
          },
        }),
      'REST, PUT': (n) =>
        api('PUT', `/projects/mindsdb/skills/${enc(n)}`, {
          skill: {
            name: n,
            type: 'text2sql',
            params: { database: 'files', tables: ['sensor_readings'], description: 'readings' },
          },
        }),
    },
    list: async () => namesOf((await api('GET', '/projects/mindsdb/skills')).body),
    get: async (n) => (await api('GET', `/projects/mindsdb/skills/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/projects/mindsdb/skills/${enc(n)}`)).ok,
    drop: (n) => api('DELETE', `/projects/mindsdb/skills/${enc(n)}`),
  },
  {
    resource: 'ML engine',
    makers: {
      SQL: (n) =>
        sql(`CREATE ML_ENGINE ${n} FROM openai USING openai_api_key = 'sk-llm-double', api_base = '${LLM_URL}'`),
      'SQL, backticked': (n) =>
        sql(`CREATE ML_ENGINE \`${n}\` FROM openai USING openai_api_key = 'sk-llm-double', api_base = '${LLM_URL}'`),
    },
    list: async () => {
      const a = (await sql('SHOW ML_ENGINES')).body;
      return a && a.type === 'table' ? a.data.map((r) => r[0]) : [];
    },
    // ML engines are integrations: REST's /databases/{name} answers them (type "ml")
    get: async (n) => (await api('GET', `/databases/${enc(n)}`)).ok,
    del: async (n) => (await sql(`DROP ML_ENGINE \`${n}\``)).ok,
    sqlFinds: (ref) => finds(`DESCRIBE ML_ENGINE ${ref}`),
    drop: (n) => sql(`DROP ML_ENGINE \`${n}\``),
  },
  {
    resource: 'table (PostgreSQL)',
    makers: {
      SQL: (n) => sql(`CREATE TABLE sensors_pg.${n} (SELECT 1 AS a)`),
      'SQL, backticked': (n) => sql(`CREATE TABLE sensors_pg.\`${n}\` (SELECT 1 AS a)`),
      REST: (n) => api('POST', '/databases/sensors_pg/tables', { table: { name: n, select: 'SELECT 1 AS a' } }),
    },
    list: async () => namesOf((await api('GET', '/databases/sensors_pg/tables')).body),
    get: async (n) => (await api('GET', `/databases/sensors_pg/tables/${enc(n)}`)).ok,
    del: async (n) => (await api('DELETE', `/databases/sensors_pg/tables/${enc(n)}`)).ok,
    // INSERT, as the table node (issue 22) sends it: MindsDB passes the name to PostgreSQL quoted
    sqlFinds: (ref) => finds(`INSERT INTO sensors_pg.${ref} (a) VALUES (2)`),
    drop: (n) => sql(`DROP TABLE sensors_pg.\`${n}\``),
  },
];
/** Waits (polling, with a deadline) until MindsDB has finished training model `n`. */
async function trained(n, deadlineMs = 120000) {
  let status;
  await waitFor(
    async () => {
      status = (await api('GET', `/projects/mindsdb/models/${enc(n)}`)).body?.status;
      return status === 'complete' || status === 'error';
    },
    { timeoutMs: deadlineMs, intervalMs: 500, what: () => `model ${n} to finish training (still ${status})` },
  );
  return status;
}

function agentUsing() {
  const m = LLM();
  return v26()
    ? `model = ${JSON.stringify(m)}`
    : `model = '${m.model_name}', provider = '${m.provider}', openai_api_key = '${m.api_key}', base_url = '${m.base_url}'`;
}
function agentBody(name) {
  const m = LLM();
  return v26()
    ? { name, model: m }
    : { name, model_name: m.model_name, provider: m.provider, params: { api_key: m.api_key, base_url: m.base_url } };
}

const COLUMNS = [
  'resource',
  'made by',
  'MindsDB',
  'stored',
  'GET `T`',
  'GET `t`',
  'delete `T`',
  'SQL `` `T` ``',
  'SQL `` `t` ``',
  'SQL `T`',
];

/** The measured table of docs/real-mindsdb.md, as rows of cells, for one version. */
function documentedRows(version) {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'real-mindsdb.md'), 'utf8');
  const table = /<!-- names:[^>]*-->([\s\S]*?)<!-- \/names -->/.exec(doc);
  assert.ok(table, 'docs/real-mindsdb.md has no names table between <!-- names --> markers');
  return table[1]
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .filter((cells) => cells.length === COLUMNS.length && cells[0] !== 'resource' && !/^-+$/.test(cells[0]))
    .filter((cells) =>
      cells[2]
        .split(',')
        .map((v) => v.trim())
        .includes(version),
    )
    .map((cells) => [cells[0], cells[1], ...cells.slice(3)].join(' | '));
}

/** One mixed-case name made one way, then looked up every way; the row as the docs table has it. */
async function measure(r, maker, typed) {
  const lower = typed.toLowerCase();
  const made = await r.makers[maker](typed);
  const listed = await r.list();
  const stored = listed.includes(typed) ? 'as typed' : listed.includes(lower) ? 'lower-case' : 'not listed';
  if (r.settle && stored !== 'not listed') await r.settle(stored === 'as typed' ? typed : lower);
  const cell = (v) => (v === undefined ? '—' : v ? 'found' : 'missed');
  const sqlT = r.sqlFinds ? cell(await r.sqlFinds(`\`${typed}\``)) : '—';
  const sqlt = r.sqlFinds ? cell(await r.sqlFinds(`\`${lower}\``)) : '—';
  const sqlU = r.sqlFinds ? cell(await r.sqlFinds(typed)) : '—';
  const getT = r.get ? cell(await r.get(typed)) : '—';
  const gett = r.get ? cell(await r.get(lower)) : '—';
  const deleted = r.del ? await r.del(typed) : undefined;
  if (stored !== 'not listed' && !deleted) await r.drop(stored === 'as typed' ? typed : lower);
  return [
    r.resource,
    maker,
    `${stored}${made.ok ? '' : ', statement fails'}`,
    getT,
    gett,
    cell(deleted),
    sqlT,
    sqlt,
    sqlU,
  ].join(' | ');
}

/** A flow with n1 (the node under test) and n2, both wired to out. */
async function load(def, second, creds) {
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
  await helper.load(allNodes(), flow, creds);
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
const projectItem = (type) => ({
  type,
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  agent: '',
  streamMode: 'final',
});

describe('e2e: names with capitals, as MindsDB stores and finds them (issue 26)', function () {
  this.timeout(300000);
  before(async function () {
    VERSION = await realMindsDB(URL_, { llm: true });
    vectors = (
      await api('POST', '/databases/', { database: { name: vectorDb, engine: 'duckdb_faiss', parameters: {} } })
    ).ok;
    console.log(
      `    MindsDB ${VERSION} at ${URL_}${vectors ? '' : ' (no duckdb_faiss: knowledge bases in the default store)'}`,
    );
  });
  after(async () => {
    await api('DELETE', `/databases/${vectorDb}`).catch(() => undefined);
  });
  eachCaseInNodeRed();

  describe('the measurement (the table in docs/real-mindsdb.md)', () => {
    it('every resource, made with a mixed-case name each way, is stored and found as the table says', async () => {
      const measured = [];
      let k = 0;
      for (const r of RESOURCES) {
        if (r.only && !VERSION.startsWith(r.only)) continue;
        for (const maker of Object.keys(r.makers)) {
          const typed = `Nm${String.fromCharCode(65 + (k++ % 26))}x${run}`;
          measured.push(await measure(r, maker, typed));
        }
      }
      console.log(
        `      measured on MindsDB ${VERSION}:\n${measured.map((row) => `      | ${row.replace(/^([^|]*\|[^|]*\|)/, `$1 ${VERSION} |`)} |`).join('\n')}`,
      );
      assert.deepEqual(measured, documentedRows(VERSION));
    });
    it('/projects/ lists a project lower-cased even when MindsDB stored it with capitals (the pickers read /databases/); views cannot be made in it', async () => {
      const name = `NmProj${run}`;
      assert.ok((await sql(`CREATE PROJECT \`${name}\``)).ok);
      try {
        assert.ok(namesOf((await api('GET', '/projects/')).body).includes(name.toLowerCase()));
        assert.ok(!namesOf((await api('GET', '/projects/')).body).includes(name));
        assert.ok(namesOf((await api('GET', '/databases/')).body).includes(name));
        assert.match(
          (await sql(`CREATE VIEW \`${name}\`.\`v\` AS (SELECT 1 AS a)`)).body.error_message,
          new RegExp(`Can not find project: ${name}`),
        );
        assert.match(
          (await api('POST', `/projects/${name}/views`, { view: { name: 'v', query: 'SELECT 1 AS a' } })).body.detail,
          new RegExp(`Can not find project: ${name}`),
        );
        await load({
          type: 'mindsdb-sql',
          query: '',
          database: '',
          databaseType: 'str',
          rowFormat: 'objects',
          split: false,
          rowsPerMsg: 100,
        });
        const picked = await helper.request().post('/mindsdb/list/projects').send({ server: 'srv' }).expect(200);
        assert.ok(picked.body.ok && picked.body.items.includes(name), JSON.stringify(picked.body));
      } finally {
        await sql(`DROP PROJECT \`${name}\``);
      }
    });
  });

  describe('what the issue-22 nodes will send (view, ML engine, table)', () => {
    it("a view's PUT finds it by any case; USING engine = '…' finds an ML engine by any case; an INSERT into a PostgreSQL table needs its stored spelling", async () => {
      const view = `NmPutView${run}`;
      assert.ok((await sql(`CREATE VIEW mindsdb.${view} AS (SELECT 1 AS a)`)).ok);
      assert.equal(
        (await api('PUT', `/projects/mindsdb/views/${view}`, { view: { query: 'SELECT 2 AS a' } })).body.name,
        view.toLowerCase(),
      );
      assert.deepEqual(
        namesOf((await api('GET', '/projects/mindsdb/views')).body).filter(
          (n) => n.toLowerCase() === view.toLowerCase(),
        ),
        [view.toLowerCase()],
      );
      await api('DELETE', `/projects/mindsdb/views/${view.toLowerCase()}`);

      const engine = `NmEngine${run}`;
      const model = `nm_engine_probe_${run}`;
      assert.ok(
        (
          await sql(
            `CREATE ML_ENGINE \`${engine}\` FROM openai USING openai_api_key = 'sk-llm-double', api_base = '${LLM_URL}'`,
          )
        ).ok,
      );
      try {
        assert.ok(
          (
            await sql(
              `CREATE MODEL mindsdb.${model} PREDICT y USING engine = '${engine.toLowerCase()}', model_name = 'gpt-4o', prompt_template = '{{x}}'`,
            )
          ).ok,
        );
        await trained(model);
        await api('DELETE', `/projects/mindsdb/models/${model}`);
      } finally {
        await sql(`DROP ML_ENGINE \`${engine}\``);
      }

      const table = `NmInsert${run}`;
      assert.ok((await sql(`CREATE TABLE sensors_pg.${table.toLowerCase()} (SELECT 1 AS a)`)).ok);
      try {
        assert.match(
          (await sql(`INSERT INTO sensors_pg.\`${table}\` (a) VALUES (2)`)).body.error_message,
          /relation "NmInsert\w+" does not exist/,
        );
        assert.ok((await sql(`INSERT INTO sensors_pg.\`${table.toLowerCase()}\` (a) VALUES (2)`)).ok);
      } finally {
        await sql(`DROP TABLE sensors_pg.\`${table.toLowerCase()}\``);
      }
    });
  });

  describe('the nodes, by the name as the user typed it', () => {
    it('file: the upload reports the table MindsDB stored, the sql node reads it, replace and delete work; a SQL-made file is deleted by another case', async () => {
      const name = `NmLog${run}`;
      const fileDef = {
        type: 'mindsdb-file',
        operation: 'msg',
        fileName: '',
        fileNameType: 'str',
        format: 'csv',
        replace: false,
        maxSizeMB: 100,
      };
      await load(fileDef, sqlDef);
      const up = await ok({ operation: 'upload', name, payload: [{ t: 1 }, { t: 2 }] });
      assert.deepEqual(up.payload, {
        uploaded: true,
        name: name.toLowerCase(),
        table: `files.${name.toLowerCase()}`,
        bytes: up.payload.bytes,
        rows: 2,
        replaced: false,
      });
      assert.deepEqual((await ok({ query: `SELECT count(*) AS n FROM ${up.payload.table}` }, 'n2')).payload, [
        { n: 2 },
      ]);
      await helper.unload();
      await load({ ...fileDef, replace: true });
      const again = await ok({ operation: 'upload', name, payload: [{ t: 3 }] });
      assert.equal(again.payload.replaced, true);
      // looked up first (a name with capitals): both versions delete and report the stored file
      assert.deepEqual((await ok({ operation: 'delete', name })).payload, { deleted: true, name: name.toLowerCase() });
      assert.match((await fails({ operation: 'delete', name })).error.message, /does not exist/);
      // CREATE TABLE files.X keeps the case; the node finds it by another spelling too
      const made = `NmSqlFile${run}`;
      assert.ok((await sql(`CREATE TABLE files.${made} (SELECT 1 AS a)`)).ok);
      assert.deepEqual((await ok({ operation: 'delete', name: made.toUpperCase() })).payload, {
        deleted: true,
        name: made,
      });
    });

    it('database: made by the node or by unquoted SQL, got, updated and deleted by the typed name', async () => {
      await load({
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
        checkConnection: false,
      });
      const byNode = `NmDbN${run}`;
      assert.equal((await ok({ operation: 'create', name: byNode })).payload.name, byNode);
      const bySql = `NmDbS${run}`;
      assert.ok((await sql(`CREATE DATABASE ${bySql} WITH ENGINE = 'postgres', ${PG_SQL}`)).ok);
      for (const name of [byNode, bySql]) {
        assert.equal((await ok({ operation: 'get', name })).payload.name, name === bySql ? bySql.toLowerCase() : name);
        await ok({ operation: 'update', name, payload: { parameters: { schema: 'public' } } });
        await ok({ operation: 'delete', name });
        assert.match((await fails({ operation: 'get', name })).error.message, /404/);
      }
    });

    it('model and predict: a node-trained and an unquoted-SQL model are got, described, retrained, predicted with and deleted by the typed name', async function () {
      const engines = ((await sql('SHOW ML_ENGINES')).body.data || []).map((r) => String(r[0]));
      const engine = v26() ? 'llm_double' : 'linear';
      if (!engines.includes(engine))
        skipBecause(
          this,
          VERSION,
          `the seeded engine "${engine}" is missing: run through scripts/with-mindsdb.mjs --seed`,
        );
      const def = {
        type: 'mindsdb-model',
        operation: 'msg',
        project: 'mindsdb',
        projectType: 'str',
        model: '',
        modelType: 'str',
        modelVersion: '',
        statement: '',
        database: 'files',
        select: 'SELECT * FROM sensor_readings',
        predict: 'energy',
        engine,
        using: v26()
          ? JSON.stringify({ model_name: 'gpt-4o', mode: 'default', prompt_template: '2 * {{temperature}}' })
          : '',
        wait: true,
        waitTimeout: 240,
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
      await load(def, predictDef);
      const byNode = `NmModelN${run}`;
      const bySql = `NmModelS${run}`;
      assert.equal((await ok({ operation: 'train', model: byNode })).payload.status, 'complete');
      assert.ok(
        (
          await sql(
            `CREATE MODEL mindsdb.${bySql} FROM files (SELECT * FROM sensor_readings) PREDICT energy USING ${modelUsing()}`,
          )
        ).ok,
      );
      assert.equal(await trained(bySql.toLowerCase()), 'complete');
      for (const [model, stored] of [
        [byNode, byNode],
        [bySql, bySql.toLowerCase()],
      ]) {
        const got = await ok({ operation: 'get', model });
        assert.equal(got.payload.name, stored);
        const described = await ok({ operation: 'describe', model });
        assert.equal(described.payload[0].NAME, stored, JSON.stringify(described.payload));
        const p = await ok({ payload: { temperature: 20, humidity: 40 }, model }, 'n2');
        assert.equal(p.mindsdb.target, 'energy');
        assert.ok(p.payload.energy !== undefined && p.payload.energy !== null, JSON.stringify(p.payload));
      }
      const re = await ok({ operation: 'retrain', model: bySql });
      assert.deepEqual([re.mindsdb.model, re.payload.version, re.payload.status], [bySql.toLowerCase(), 2, 'complete']);
      assert.deepEqual(
        (await ok({ operation: 'versions', model: bySql })).payload.map((v) => v.version),
        [1, 2],
      );
      for (const [model, stored] of [
        [byNode, byNode],
        [bySql, bySql.toLowerCase()],
      ]) {
        assert.deepEqual((await ok({ operation: 'delete', model })).payload, {
          deleted: true,
          project: 'mindsdb',
          model: stored,
        });
      }
    });

    it('knowledge base: made by the node or by unquoted SQL, filled, searched and deleted by the typed name', async () => {
      const def = {
        ...projectItem('mindsdb-knowledge-base'),
        provider: 'openai',
        embeddingModel: 'text-embedding-3-small',
        baseUrl: LLM_URL,
        storageDatabase: '',
        storageTable: '',
        contentColumns: '',
        metadataColumns: '',
        idColumn: '',
        insertQuery: '',
        limit: '',
        threshold: '',
      };
      const byNode = `NmDocsN${run}`;
      const bySql = `NmDocsS${run}`;
      await load(vectors ? { ...def, storageDatabase: vectorDb, storageTable: byNode.toLowerCase() } : def, undefined, {
        n1: { apiKey: 'sk-llm-double' },
      });
      assert.equal((await ok({ operation: 'create', name: byNode })).payload.name, byNode);
      assert.ok(
        (
          await sql(
            `CREATE KNOWLEDGE_BASE mindsdb.${bySql} USING embedding_model = ${JSON.stringify(EMBEDDING())}${storageSql(bySql)}`,
          )
        ).ok,
      );
      for (const name of [byNode, bySql]) {
        await ok({
          operation: 'insert',
          name,
          payload: [{ id: 'pump', content: 'the pump overheats when its filter is clogged' }],
        });
        const found = await ok({ operation: 'search', name, payload: 'pump filter', limit: 1 });
        assert.equal(found.payload[0].id, 'pump', JSON.stringify(found.payload));
        assert.equal((await ok({ operation: 'get', name })).payload.name, name === bySql ? bySql.toLowerCase() : name);
        assert.equal(
          (await ok({ operation: 'delete', name })).payload.name,
          name === bySql ? bySql.toLowerCase() : name,
        );
      }
    });

    it('job: made by the node or by unquoted SQL, got, its history read and deleted by the typed name; two stored spellings are an error naming both', async () => {
      await load({
        type: 'mindsdb-job',
        operation: 'msg',
        project: 'mindsdb',
        projectType: 'str',
        itemName: '',
        itemNameType: 'str',
        query: 'SELECT 1',
        schedule: 'every 1 day',
        startAt: '',
        endAt: '',
        ifQuery: '',
      });
      const byNode = `NmJobN${run}`;
      const bySql = `NmJobS${run}`;
      assert.equal((await ok({ operation: 'create', name: byNode })).payload.name, byNode);
      assert.ok((await sql(`CREATE JOB mindsdb.${bySql} (SELECT 1) EVERY 1 day`)).ok);
      for (const [name, stored] of [
        [byNode, byNode],
        [bySql, bySql.toLowerCase()],
      ]) {
        assert.equal((await ok({ operation: 'get', name })).payload.name, stored);
        assert.ok(Array.isArray((await ok({ operation: 'history', name })).payload));
        assert.equal((await ok({ operation: 'delete', name })).payload.name, stored);
      }
      const twice = `NmJobD${run}`;
      assert.ok((await sql(`CREATE JOB mindsdb.\`${twice}\` (SELECT 1) EVERY 1 day`)).ok);
      assert.ok((await sql(`CREATE JOB mindsdb.${twice} (SELECT 1) EVERY 1 day`)).ok);
      try {
        const e = await fails({ operation: 'get', name: twice.toUpperCase() });
        assert.equal(e.mindsdbError.kind, 'input');
        const expected = `no job \`${twice.toUpperCase()}\` in project \`mindsdb\`; MindsDB has \`${twice}\` and \`${twice.toLowerCase()}\`, which differ from it only in case: write the name exactly as one of them`;
        assert.ok(e.error.message.endsWith(expected), e.error.message);
      } finally {
        await api('DELETE', `/projects/mindsdb/jobs/${twice}`);
        await api('DELETE', `/projects/mindsdb/jobs/${twice.toLowerCase()}`);
      }
    });

    for (const [type, kind] of [
      ['mindsdb-chatbot', 'chatbot'],
      ['mindsdb-skill', 'skill'],
      ['mindsdb-agent', 'agent'],
    ]) {
      it(`${kind}: made by the node or by unquoted SQL, got, updated and deleted by the typed name${kind === 'agent' ? ', and asked a question' : ''}`, async function () {
        if (kind === 'skill' && v26()) skipBecause(this, VERSION, 'skills were removed in MindsDB 26.0');
        const made = RESOURCES.find((r) => r.resource === kind).makers;
        const settings = {
          chatbot: { model_name: 'sensor_energy', database_name: 'files' },
          skill: {
            type: 'text2sql',
            params: { database: 'files', tables: ['sensor_readings'], description: 'readings' },
          },
          agent: { model: LLM() },
        }[kind];
        const change = {
          chatbot: { params: { note: 'changed' } },
          skill: { params: { ...settings.params, description: 'changed' } },
          agent: { prompt_template: 'answer briefly' },
        }[kind];
        await load(projectItem(type));
        const byNode = `Nm${kind}N${run}`;
        const bySql = `Nm${kind}S${run}`;
        assert.equal((await ok({ operation: 'create', name: byNode, payload: settings })).payload.name, byNode);
        assert.ok((await made.SQL(bySql)).ok);
        for (const [name, stored] of [
          [byNode, byNode],
          [bySql, bySql.toLowerCase()],
        ]) {
          assert.equal((await ok({ operation: 'get', name })).payload.name, stored);
          await ok({ operation: 'update', name, payload: change });
          if (kind === 'agent' && name === bySql) {
            const answer = await ok({
              operation: 'completions',
              name,
              payload: `Which pump? (${run})`,
              timeout: 90000,
            });
            assert.ok(answer.payload.includes(`Which pump? (${run})`), answer.payload);
          }
          // skills: REST finds one by any case, so the delete is answered for the name as typed
          assert.deepEqual((await ok({ operation: 'delete', name })).payload, {
            deleted: true,
            resource: kind,
            project: 'mindsdb',
            name: kind === 'skill' ? name : stored,
          });
        }
        assert.ok(
          !namesOf((await api('GET', `/projects/mindsdb/${kind}s`)).body).some(
            (n) => n.toLowerCase() === bySql.toLowerCase(),
          ),
          'no second record was made by the update',
        );
      });
    }
  });
});
