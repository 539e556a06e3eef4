// The SQL comparison of `npm run bench` alone, for iterating on the hot path: raw undici (a), our
// sql node (b) and the bare node (d) take turns in ONE process (worker.mjs, sqlCompare), against a
// fresh stand-in; one process, not three.
//   node bench/ab-nodes.mjs [--turns 12] [--batch 4000] [--warmup 10000]
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';
import { ensureFloor } from '../scripts/node-version.mjs';

await ensureFloor(); // the package needs Node >= 22.19 (undici 8)

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, d) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};

const srv = spawn(process.execPath, [path.join(here, 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((resolve) =>
  srv.stdout.once('data', (d) => resolve(`http://127.0.0.1:${String(d).trim()}`)),
);
const options = {
  origin,
  cases: ['undici', 'sql', 'bare'],
  warmup: arg('--warmup', 10000),
  batch: arg('--batch', 4000),
  turns: arg('--turns', 12),
  concurrency: 32,
  connections: 8,
};
const r = spawnSync(process.execPath, [path.join(here, 'worker.mjs'), 'sql-compare', JSON.stringify(options)], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
srv.kill();
if (r.status !== 0) process.exit(1);
const { cases } = JSON.parse(r.stdout.trim().split('\n').pop());
const m = {};
for (const [c, x] of Object.entries(cases)) {
  m[c] = { perSecond: median(x.turns), cpu: median(x.cpuTurns) };
  console.log(
    `${c.padEnd(7)} ${Math.round(m[c].perSecond)} msg/s (median turn)  CPU ${m[c].cpu.toFixed(1)} µs/msg  turns ${x.turns.join(' ')}`,
  );
}
const { undici: a, sql: b, bare: d } = m;
console.log(
  `b/a ${(b.perSecond / a.perSecond).toFixed(3)} (CPU ${(a.cpu / b.cpu).toFixed(3)})   b/d ${(b.perSecond / d.perSecond).toFixed(3)} (CPU ${(d.cpu / b.cpu).toFixed(3)})`,
);
