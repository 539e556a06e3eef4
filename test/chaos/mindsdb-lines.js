'use strict';
/**
 * The chaos suites' MindsDB servers: one of each supported line of their own (scripts/mindsdb-local.sh on
 * MINDSDB_CHAOS_PORT / MINDSDB_CHAOS_26_PORT, default 47380 / 47580), shared by every file of test/chaos/ in
 * one mocha run. The first suite that needs a line starts it (fresh storage); each suite may stop and start
 * it (an outage; the restarts keep its storage, as an upgrade does) and leaves it running; a root after hook
 * stops every one started here once the last suite is done. A start costs about 30 s, so sharing them keeps
 * the suites within their CI budget. CHAOS_VERSIONS=26.1.0 runs one line.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'mindsdb-local.sh');
const LINES = [
  { version: '25.14.1', port: Number(process.env.MINDSDB_CHAOS_PORT) || 47380 },
  { version: '26.1.0', port: Number(process.env.MINDSDB_CHAOS_26_PORT) || 47580 },
]
  .filter((l) => !process.env.CHAOS_VERSIONS || process.env.CHAOS_VERSIONS.split(',').includes(l.version))
  .map((l) => ({ ...l, url: `http://127.0.0.1:${l.port}` }));

/**
 * scripts/mindsdb-local.sh <command> for a line's MindsDB, without blocking the event loop (a feed goes on
 * meanwhile). `keepStorage`: a start keeps what MindsDB stored before (its data sources).
 */
function mindsdb(command, line, keepStorage = false) {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      MINDSDB_VERSION: line.version,
      MINDSDB_PORT: String(line.port),
      ...(keepStorage ? { MINDSDB_KEEP_STORAGE: '1' } : {}),
    };
    const child = spawn('bash', [SCRIPT, command], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`mindsdb-local.sh ${command} (${line.version}, port ${line.port}) failed: ${err.slice(-2000)}`),
          ),
    );
  });
}

async function answers(line) {
  try {
    return (await fetch(`${line.url}/api/util/ping`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

/** version → the promise of its first start in this run. */
const started = new Map();

/**
 * Makes sure the line's MindsDB answers: started fresh the first time in this run, started again with its
 * storage if a suite left it stopped. Returns the seconds the start took, 0 when it was already up.
 */
async function ensureLine(line) {
  const first = !started.has(line.version);
  if (first)
    started.set(
      line.version,
      (async () => {
        await mindsdb('install', line);
        await mindsdb('stop', line);
        const t0 = Date.now();
        await mindsdb('start', line);
        return Math.round((Date.now() - t0) / 1000);
      })(),
    );
  const seconds = await started.get(line.version);
  if (await answers(line)) return first ? seconds : 0;
  const t0 = Date.now();
  await mindsdb('start', line, true);
  return Math.round((Date.now() - t0) / 1000);
}

/** Makes `name` a MindsDB data source on the local PostgreSQL (127.0.0.1:5432, database test). */
async function postgresSource(line, name) {
  const made = await fetch(`${line.url}/api/databases/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      database: {
        name,
        engine: 'postgres',
        parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
      },
    }),
  });
  if (made.status !== 201 && made.status !== 409)
    throw new Error(`the data source ${name}: HTTP ${made.status} ${await made.text()}`);
}

// The root suite's last hook: every line started here stops once every suite is done.
if (typeof after === 'function')
  after(async () => {
    for (const line of LINES) if (started.has(line.version)) await mindsdb('stop', line).catch(() => undefined);
  });

module.exports = { LINES, mindsdb, ensureLine, postgresSource };
