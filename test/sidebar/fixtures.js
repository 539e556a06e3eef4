'use strict';
/**
 * What the sidebar suite makes on the real MindsDB (and PostgreSQL) beside the seed, and removes
 * again: a knowledge base filled with three documents (embeddings from the LLM double), and a
 * data source with 2,000 tables (a PostgreSQL database of its own, made with psql) for the
 * drawing figure; two jobs that MindsDB's scheduler runs at once (its MindsDB started with
 * MINDSDB_JOBS=1), one of them failing, for the jobs' last run in the tree. Names carry the run's
 * id, so runs and the other suites never meet.
 */
const { execFileSync } = require('node:child_process');
const { waitFor } = require('../support/wait');

const RUN = `sb${Date.now().toString(36)}`;
const KB = `${RUN}_docs`;
const VECTORS = `${RUN}_vectors`;
const MANY = `${RUN}_many`;
const MANY_TABLES = 2000;
const JOBS = { ok: `${RUN}_job_ok`, failing: `${RUN}_job_failing` };
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres' };

function psql(sql, database = 'test') {
  execFileSync(
    'psql',
    ['-h', PG.host, '-p', String(PG.port), '-U', PG.user, '-d', database, '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

function mindsdb(url) {
  const call = async (method, path, body) => {
    const send = () =>
      fetch(`${url}/api${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // MindsDB closes an idle kept-alive connection; a request that met such a socket was not taken: send it once more.
    const res = await send().catch((err) =>
      /other side closed|ECONNRESET/.test(String(err.cause?.message)) ? send() : Promise.reject(err),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const sql = async (query) => {
    const { status, body } = await call('POST', '/sql/query', { query });
    if (status !== 200 || body.type === 'error')
      throw new Error(`${query.slice(0, 80)}: HTTP ${status} ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };
  return { call, sql };
}

/** Makes the knowledge base and the 2,000-table data source on the MindsDB at `url`. */
async function makeFixtures(url, llmUrl) {
  const { call, sql } = mindsdb(url);
  // A vector store that needs no server where the version has it (duckdb_faiss), else the default.
  const store = await call('POST', '/databases/', {
    database: { name: VECTORS, engine: 'duckdb_faiss', parameters: {} },
  });
  const storage = store.status < 300 ? { storage: { database: VECTORS, table: KB } } : {};
  const made = await call('POST', '/projects/mindsdb/knowledge_bases', {
    knowledge_base: {
      name: KB,
      embedding_model: {
        provider: 'openai',
        model_name: 'text-embedding-3-small',
        base_url: llmUrl,
        api_key: 'sk-llm-double',
      },
      ...storage,
    },
  });
  if (made.status >= 300) throw new Error(`knowledge base ${KB}: HTTP ${made.status} ${JSON.stringify(made.body)}`);
  await sql(
    `INSERT INTO mindsdb.${KB} (id, content) VALUES ('pump', 'The pump in hall A overheats when its filter is clogged'), ('filter', 'Replace the air filter of every pump every three months'), ('lunch', 'The cafeteria serves lunch from noon until two')`,
  );
  psql(`CREATE DATABASE ${MANY}`);
  psql(
    `DO $$ BEGIN FOR i IN 1..${MANY_TABLES} LOOP EXECUTE format('CREATE TABLE t%s (id int)', lpad(i::text, 4, '0')); END LOOP; END $$;`,
    MANY,
  );
  const ds = await call('POST', '/databases/', {
    database: { name: MANY, engine: 'postgres', parameters: { ...PG, database: MANY } },
  });
  if (ds.status >= 300) throw new Error(`data source ${MANY}: HTTP ${ds.status} ${JSON.stringify(ds.body)}`);
  // Without START, a job runs at the scheduler's next check, then every hour.
  await sql(`CREATE JOB mindsdb.${JOBS.ok} (SELECT 1) EVERY 1 hour`);
  await sql(`CREATE JOB mindsdb.${JOBS.failing} (SELECT * FROM ${RUN}_missing.readings) EVERY 1 hour`);
}

/**
 * The runs of the two jobs in MindsDB's log.jobs_history ({name: {run_start, error}}), once both ran (at most
 * `timeoutMs`).
 */
async function jobRuns(url, timeoutMs = 60000) {
  const { sql } = mindsdb(url);
  return waitFor(
    async () => {
      const answer = await sql(
        `SELECT name, run_start, error FROM log.jobs_history WHERE project = 'mindsdb' AND name IN ('${JOBS.ok}', '${JOBS.failing}')`,
      );
      const runs = Object.fromEntries(
        answer.data.map(([name, runStart, error]) => [name, { run_start: runStart, error }]),
      );
      return runs[JOBS.ok] && runs[JOBS.failing] ? runs : undefined;
    },
    {
      timeoutMs,
      intervalMs: 500,
      what: `a run of both jobs on the MindsDB at ${url}: its job scheduler is off? (scripts/mindsdb-local.sh starts it with MINDSDB_JOBS=1, as npm test and npm run test:sidebar do)`,
    },
  );
}

/** Removes what makeFixtures made (whatever of it exists). */
async function removeFixtures(url) {
  const { call, sql } = mindsdb(url);
  for (const job of Object.values(JOBS)) await sql(`DROP JOB mindsdb.${job}`).catch(() => undefined);
  await call('DELETE', `/projects/mindsdb/knowledge_bases/${KB}`).catch(() => undefined);
  for (const db of [VECTORS, MANY]) await call('DELETE', `/databases/${db}`).catch(() => undefined);
  try {
    psql(`DROP DATABASE IF EXISTS ${MANY}`);
  } catch {
    /* not made */
  }
}

module.exports = { KB, MANY, MANY_TABLES, JOBS, makeFixtures, removeFixtures, jobRuns, mindsdb };
