// Does undici's own retry / redirect interceptor cost the hot path anything? The whole-answer path
// (src/client/exchange/text-exchange.ts) on a plain Pool, against the same path through
// pool.compose(interceptors.retry(...)) and pool.compose(interceptors.redirect(...)), and
// Pool.request for reference: small SQL answers from the bench stand-in (bench/server.mjs, its own
// process), 32 outstanding over 8 connections, alternating variants, median of the rounds.
//   npm run build && node bench/interceptors.mjs [--rounds 5] [--messages 20000]
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFloor } from '../scripts/node-version.mjs';

await ensureFloor(); // the package needs Node >= 22.19 (undici 8)

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Pool, interceptors } = require('undici');
const { HttpExchange } = require(path.join(here, '..', 'nodes', 'client', 'exchange', 'http-exchange.js'));

/** One whole answer through our transport (HttpExchange) on `dispatcher`, as a promise. */
function exchangeText(dispatcher, origin, req, maxBytes) {
  return new Promise((resolve, reject) => {
    new HttpExchange({ dispatcher, origin, proxy: undefined }, req, maxBytes, 'whole', {
      answered: resolve,
      opened: resolve,
      failed: reject,
    });
  });
}

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('--rounds', 5);
const MESSAGES = arg('--messages', 20000);
const OUTSTANDING = 32;

const server = spawn(process.execPath, [path.join(here, 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
// The stand-in goes with this process, however it ends.
process.on('exit', () => server.kill());
const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const origin = `http://127.0.0.1:${port}`;
const body = JSON.stringify({ query: 'SELECT * FROM sensors' });
const headers = { 'content-type': 'application/json', accept: 'application/json' };
const req = {
  method: 'POST',
  path: '/api/sql/query',
  headers,
  body,
  timeoutMs: 60_000,
  get deadlineAt() {
    return Date.now() + 60_000;
  },
};

const variants = {
  'dispatch (ours)': () => {
    const pool = new Pool(origin, { connections: 8, pipelining: 1 });
    return { pool, call: () => exchangeText(pool, origin, req, 64 << 20) };
  },
  'dispatch + undici retry interceptor': () => {
    const pool = new Pool(origin, { connections: 8, pipelining: 1 });
    const composed = pool.compose(
      interceptors.retry({ maxRetries: 2, methods: ['GET', 'PUT', 'DELETE'], statusCodes: [429, 502, 503, 504] }),
    );
    return { pool, call: () => exchangeText(composed, origin, req, 64 << 20) };
  },
  'dispatch + undici redirect interceptor': () => {
    const pool = new Pool(origin, { connections: 8, pipelining: 1 });
    const composed = pool.compose(interceptors.redirect({ maxRedirections: 3 }));
    return { pool, call: () => exchangeText(composed, origin, req, 64 << 20) };
  },
  'Pool.request': () => {
    const pool = new Pool(origin, { connections: 8, pipelining: 1 });
    return {
      pool,
      call: () =>
        pool
          .request({
            method: 'POST',
            path: '/api/sql/query',
            headers,
            body,
            headersTimeout: 60_000,
            bodyTimeout: 60_000,
          })
          .then((r) => r.body.text()),
    };
  },
};

async function run(make) {
  const { pool, call } = make();
  const one = () => call().then((r) => JSON.parse(typeof r === 'string' ? r : r.text));
  for (let i = 0; i < 2000; i += OUTSTANDING) await Promise.all(Array.from({ length: OUTSTANDING }, one)); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let sent = 0;
  await new Promise((resolve, reject) => {
    let done = 0;
    const next = () => {
      if (sent >= MESSAGES) return;
      sent++;
      one().then(() => {
        if (++done === MESSAGES) resolve();
        else next();
      }, reject);
    };
    for (let i = 0; i < OUTSTANDING; i++) next();
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  return { perSecond: MESSAGES / secs, cpuUsPerMsg: (cpu.user + cpu.system) / MESSAGES };
}

const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  const names = Object.keys(variants);
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + r) % names.length];
    results[name].push(await run(variants[name]));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results['dispatch (ours)'].map((x) => x.perSecond));
for (const [name, rs] of Object.entries(results)) {
  const ps = median(rs.map((x) => x.perSecond));
  const cpu = median(rs.map((x) => x.cpuUsPerMsg));
  console.log(
    `${name.padEnd(40)} ${Math.round(ps).toString().padStart(6)} msg/s  ${cpu.toFixed(1).padStart(6)} µs CPU/msg  ${(ps / base).toFixed(2)}× ours`,
  );
}
server.kill('SIGTERM');
