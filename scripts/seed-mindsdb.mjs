#!/usr/bin/env node
// Seeds a MindsDB for the tests and the demo flows (idempotent):
//  - files.sensor_readings: a CSV of sensor readings (temperature, humidity, energy);
//  - the model mindsdb.sensor_energy (PREDICT energy), `complete`:
//    - 25.x: trained by the BYOM engine `linear` from our own model class (ci/mindsdb/linear_model.py,
//      inhouse mode);
//    - 26.x has no local engine (BYOM and lightwood are gone): MindsDB's own openai engine
//      `llm_double`, pointed at an OpenAI-compatible server (the LLM double, `llmUrl`), with a
//      prompt that is the model's formula; the double answers such an arithmetic prompt with its
//      value, so the predictions are the same numbers as on 25.x (as strings);
//  - public.sensor_readings in the local PostgreSQL (database test), when psql reaches it, and the
//    MindsDB data source `sensors_pg` for it, created through our own client's Create Database path.
// Usage: node scripts/seed-mindsdb.mjs [baseUrl] [llmUrl]   (default $MINDSDB_URL or
// http://127.0.0.1:47334, and $LLM_DOUBLE_URL; the LLM URL is needed on 26.x only)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** energy = 2·temperature + 0.5·humidity + 3, exactly, so predictions are checkable. */
export const energyOf = (temperature, humidity) => 2 * temperature + 0.5 * humidity + 3;
export const READINGS = Array.from({ length: 20 }, (_, i) => {
  const temperature = 15 + i;
  const humidity = 30 + ((i * 7) % 40);
  return { temperature, humidity, energy: energyOf(temperature, humidity) };
});

const log = (m) => console.log(`[seed] ${m}`);

async function api(base, method, p, body, headers = { 'content-type': 'application/json' }) {
  const res = await fetch(`${base}/api${p}`, {
    method,
    headers,
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

function form(fields) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, new Blob([v.content]), v.filename);
  }
  return f;
}

export async function seed(
  base = process.env.MINDSDB_URL || 'http://127.0.0.1:47334',
  { llmUrl = process.env.LLM_DOUBLE_URL } = {},
) {
  base = base.replace(/\/+$/, '');
  const about = await api(base, 'GET', '/status');
  const version = about.body && typeof about.body.mindsdb_version === 'string' ? about.body.mindsdb_version : '';
  if (!version) throw new Error(`no MindsDB version in ${base}/api/status (HTTP ${about.status})`);
  const files = await api(base, 'GET', '/files/');
  if (!Array.isArray(files.body) || !files.body.some((f) => f.name === 'sensor_readings')) {
    const csv =
      ['temperature,humidity,energy', ...READINGS.map((r) => `${r.temperature},${r.humidity},${r.energy}`)].join('\n') +
      '\n';
    const up = await api(
      base,
      'PUT',
      '/files/sensor_readings',
      form({ file: { content: csv, filename: 'sensor_readings.csv' } }),
      {},
    );
    if (up.status >= 300)
      throw new Error(`uploading files.sensor_readings failed: HTTP ${up.status} ${JSON.stringify(up.body)}`);
    log('uploaded files.sensor_readings (20 rows)');
  }

  if (Number(version.split('.')[0]) >= 26) await createLlmModel(base, llmUrl);
  else await createByomModel(base);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const model = await api(base, 'GET', '/projects/mindsdb/models/sensor_energy');
    const status = model.body?.status;
    if (status === 'complete') break;
    if (status === 'error') throw new Error(`training mindsdb.sensor_energy failed: ${model.body.error}`);
    if (Date.now() > deadline) throw new Error(`mindsdb.sensor_energy is still "${status}" after 180 s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  log('model mindsdb.sensor_energy is complete');

  if (seedPostgres()) await createDataSource(base);
  return { base };
}

/** 25.x: the BYOM engine with our linear model class, and the model trained from the CSV. */
async function createByomModel(base) {
  const model = await api(base, 'GET', '/projects/mindsdb/models/sensor_energy');
  if (model.status !== 404) return;
  const code = fs.readFileSync(path.join(root, 'ci', 'mindsdb', 'linear_model.py'), 'utf8');
  const engine = await api(
    base,
    'PUT',
    '/handlers/byom/linear',
    form({ code: { content: code, filename: 'linear_model.py' }, type: 'inhouse' }),
    {},
  );
  if (engine.status >= 300 && !/already exists/i.test(JSON.stringify(engine.body))) {
    throw new Error(`uploading the BYOM engine failed: HTTP ${engine.status} ${JSON.stringify(engine.body)}`);
  }
  const created = await api(base, 'POST', '/projects/mindsdb/models', {
    query:
      "CREATE MODEL mindsdb.sensor_energy FROM files (SELECT * FROM sensor_readings) PREDICT energy USING engine = 'linear'",
  });
  if (created.status >= 300)
    throw new Error(`creating the model failed: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  log('training mindsdb.sensor_energy...');
}

/**
 * 26.x: the openai engine on the LLM double. Made anew on every seed, because the double's port
 * changes from run to run and a reused server would still point at the old one. mode 'default'
 * asks once per row (the handler's conversational default answers only the last row).
 */
async function createLlmModel(base, llmUrl) {
  if (!llmUrl)
    throw new Error(
      'MindsDB 26.x has no local ML engine: seeding its model needs the LLM double (set LLM_DOUBLE_URL, or run through scripts/with-mindsdb.mjs)',
    );
  const sql = async (query) => {
    const r = await api(base, 'POST', '/sql/query', { query });
    if (r.status >= 300 || (r.body && r.body.type === 'error'))
      throw new Error(`${query.split(' USING')[0]} failed: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  };
  await sql('DROP MODEL IF EXISTS mindsdb.sensor_energy');
  await sql('DROP ML_ENGINE IF EXISTS llm_double');
  await sql(`CREATE ML_ENGINE llm_double FROM openai USING openai_api_key = 'llm-double', api_base = '${llmUrl}'`);
  await sql(
    "CREATE MODEL mindsdb.sensor_energy PREDICT energy USING engine = 'llm_double', model_name = 'gpt-4o', mode = 'default', prompt_template = '2 * {{temperature}} + 0.5 * {{humidity}} + 3'",
  );
  log(`model mindsdb.sensor_energy: the openai engine on the LLM double at ${llmUrl}`);
}

/** A table in the local PostgreSQL (trust auth); skipped with a note when psql cannot reach it. */
function seedPostgres() {
  const sql = [
    'CREATE TABLE IF NOT EXISTS public.sensor_readings (temperature double precision, humidity double precision, energy double precision);',
    'TRUNCATE public.sensor_readings;',
    `INSERT INTO public.sensor_readings VALUES ${READINGS.map((r) => `(${r.temperature},${r.humidity},${r.energy})`).join(',')};`,
  ].join('\n');
  try {
    execFileSync(
      'psql',
      ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 },
    );
    log('PostgreSQL table test.public.sensor_readings ready');
    return true;
  } catch (err) {
    log(
      `PostgreSQL on 127.0.0.1:5432 not available, skipping it (${
        String(err.stderr || err.message)
          .trim()
          .split('\n')[0]
      })`,
    );
    return false;
  }
}

/** The data source, made with the same client code the Create Database node uses. */
async function createDataSource(base) {
  const { MindsDBClient, DatabasesApi } = require(path.join(root, 'nodes', 'client'));
  const client = new MindsDBClient({ baseUrl: base });
  try {
    const dbs = new DatabasesApi(client);
    const existing = await dbs.list();
    if (!existing.some((d) => d.name === 'sensors_pg')) {
      await dbs.create(
        {
          name: 'sensors_pg',
          engine: 'postgres',
          parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
        },
        true,
      );
      log('data source sensors_pg (postgres) created');
    }
  } finally {
    await client.close(0);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  seed(process.argv[2], { llmUrl: process.argv[3] || process.env.LLM_DOUBLE_URL }).then(
    () => log('done'),
    (err) => {
      console.error(`[seed] ${err.message}`);
      process.exit(1);
    },
  );
}
