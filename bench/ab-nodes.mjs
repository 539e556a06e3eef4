// The SQL comparison of `npm run bench` alone, for iterating on the hot path: raw undici (a), our
// sql node (b), the core http request node (c) and the bare node (d) take turns in ONE process
// (worker.mjs, sqlCompare), against a fresh stand-in.
//   node bench/ab-nodes.mjs [--turns 10] [--batch 4000] [--warmup 10000]
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, d) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : d; };

const srv = spawn(process.execPath, [path.join(here, 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((resolve) => srv.stdout.once('data', (d) => resolve(`http://127.0.0.1:${String(d).trim()}`)));
const options = { origin, warmup: arg('--warmup', 10000), batch: arg('--batch', 4000), turns: arg('--turns', 10), concurrency: 32, connections: 8 };
const r = spawnSync(process.execPath, [path.join(here, 'worker.mjs'), 'sql-compare', JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
srv.kill();
if (r.status !== 0) process.exit(1);
const { cases } = JSON.parse(r.stdout.trim().split('\n').pop());
for (const [c, x] of Object.entries(cases)) console.log(`${c.padEnd(7)} ${Math.round(x.perSecond)} msg/s (median turn)  CPU ${x.cpuUsPerMsg.toFixed(1)} µs/msg  turns ${x.turns.join(' ')}`);
const { undici: a, sql: b, bare: d } = cases;
console.log(`b/a ${(b.perSecond / a.perSecond).toFixed(3)} (CPU ${(a.cpuUsPerMsg / b.cpuUsPerMsg).toFixed(3)})   b/d ${(b.perSecond / d.perSecond).toFixed(3)} (CPU ${(d.cpuUsPerMsg / b.cpuUsPerMsg).toFixed(3)})`);
