// Interleaved A/B of the SQL cases in ONE process: raw undici (a), our sql node (b) and the bare
// node (d) take turns in short batches, so a busy machine's drift hits them alike (the separate
// worker processes of `npm run bench` are measured minutes apart). For iterating on the hot path.
//   node bench/ab-nodes.mjs [--batches 12] [--batch 3000]
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { root, startRed } from './lib/red.mjs';

const require = createRequire(path.join(root, 'package.json'));
const args = process.argv.slice(2);
const arg = (name, d) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : d; };
const BATCHES = arg('--batches', 12);
const BATCH = arg('--batch', 3000);
const CONCURRENCY = 32;
const QUERY = 'SELECT * FROM files.sensor_readings LIMIT 10';

const srv = spawn(process.execPath, [path.join(root, 'bench', 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((resolve) => srv.stdout.once('data', (d) => resolve(`http://127.0.0.1:${String(d).trim()}`)));
const tab = { id: 't', type: 'tab', label: 'ab' };
const red = await startRed([
  tab,
  { id: 'srv', type: 'mindsdb-server', name: 'ab', url: origin, apiPrefix: '/api', authMode: 'none', timeout: 60000, retries: 0, retryPost: false, maxInFlight: 8, maxQueue: 1000, maxResponseMB: 256, tls: '', version: 1 },
  { id: 'sink', z: 't', type: 'bench-sink', wires: [] },
  { id: 'sql', z: 't', type: 'mindsdb-sql', server: 'srv', query: '', database: '', databaseType: 'str', rowFormat: 'objects', split: false, rowsPerMsg: 100, outputProperty: 'payload', version: 1, wires: [['sink']] },
  { id: 'bare', z: 't', type: 'bench-bare', origin, connections: 8, wires: [['sink']] },
]);

/** Feeds `total` messages into node `id`, `CONCURRENCY` outstanding. */
function viaNode(id, total) {
  const input = red.node(id);
  let fed = 0;
  let done = 0;
  return new Promise((resolve) => {
    globalThis.__bench = { arrived() { if (++done === total) resolve(); else if (fed < total) { fed++; input.receive({ query: QUERY }); } } };
    for (; fed < Math.min(CONCURRENCY, total); fed++) input.receive({ query: QUERY });
  });
}

const { Pool } = require('undici');
const pool = new Pool(origin, { connections: 8, pipelining: 1 });
const headers = { 'content-type': 'application/json' };
async function viaUndici(total) {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < total) {
      next++;
      const res = await pool.request({ path: '/api/sql/query', method: 'POST', headers, body: JSON.stringify({ query: QUERY }) });
      const answer = await res.body.json();
      const cols = answer.column_names;
      answer.data.map((r) => { const o = {}; for (let i = 0; i < cols.length; i++) o[cols[i]] = r[i]; return o; });
    }
  }));
}

const CASES = { undici: (n) => viaUndici(n), sql: (n) => viaNode('sql', n), bare: (n) => viaNode('bare', n) };
const names = Object.keys(CASES);
for (const c of names) await CASES[c](2000); // warm-up
const got = Object.fromEntries(names.map((c) => [c, { wall: [], cpu: [] }]));
for (let b = 0; b < BATCHES; b++) {
  for (const c of names.map((_, i) => names[(i + b) % names.length])) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await CASES[c](BATCH);
    const wall = Number(process.hrtime.bigint() - t0) / 1e3 / BATCH;
    const cpu = process.cpuUsage(cpu0);
    got[c].wall.push(wall);
    got[c].cpu.push((cpu.user + cpu.system) / BATCH);
  }
}
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[Math.floor((s.length - 1) / 2)]; };
const m = Object.fromEntries(names.map((c) => [c, { wall: median(got[c].wall), cpu: median(got[c].cpu) }]));
for (const c of names) console.log(`${c.padEnd(7)} ${Math.round(1e6 / m[c].wall)} msg/s (median batch)  CPU ${m[c].cpu.toFixed(1)} µs/msg`);
console.log(`b/a ${(m.undici.wall / m.sql.wall).toFixed(3)} (CPU ${(m.undici.cpu / m.sql.cpu).toFixed(3)})   b/d ${(m.bare.wall / m.sql.wall).toFixed(3)} (CPU ${(m.bare.cpu / m.sql.cpu).toFixed(3)})`);
await pool.close();
await red.stop();
srv.kill();
process.exit(0);
