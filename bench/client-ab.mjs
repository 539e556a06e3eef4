// The client's per-message cost, A against B: two checkouts' built clients (nodes/client) in one
// process, alternating rounds, each sending small SQL requests (32 outstanding, 8 slots) to the bench
// stand-in (bench/server.mjs, its own process). Prints the median msg/s and CPU µs per request; the
// CPU figure is the steadier one on a busy machine.
//   npm run build (in both) && node bench/client-ab.mjs /path/to/A /path/to/B [requests]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { ensureFloor } from '../scripts/node-version.mjs';

await ensureFloor(); // the package needs Node >= 22.19 (undici 8)
const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const [, , dirA, dirB, n] = process.argv;
if (!dirA || !dirB) {
  console.error('usage: node bench/client-ab.mjs <checkout A> <checkout B> [requests]');
  process.exit(2);
}
const builds = { A: require(path.resolve(dirA, 'nodes', 'client')), B: require(path.resolve(dirB, 'nodes', 'client')) };
const server = spawn(process.execPath, [path.join(here, 'server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
// The stand-in goes with this process, however it ends.
process.on('exit', () => server.kill());
const port = await new Promise((r) => server.stdout.once('data', (d) => r(Number(String(d).trim()))));
const N = Number(n || 20000);
async function run(name) {
  const client = new builds[name].MindsDBClient({ baseUrl: `http://127.0.0.1:${port}`, maxInFlight: 8 });
  const q = { query: 'SELECT * FROM sensors' };
  // A build whose client.sql hands its answer to a callback (three parameters), or an older one's promise.
  const one =
    client.sql.length >= 3
      ? () =>
          new Promise((resolve, reject) =>
            client.sql(q, undefined, (err, answer) => (err ? reject(err) : resolve(answer))),
          )
      : () => client.sql(q);
  for (let i = 0; i < 2000; i += 32) await Promise.all(Array.from({ length: 32 }, one));
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await new Promise((resolve, reject) => {
    let sent = 0,
      done = 0;
    const next = () => {
      if (sent >= N) return;
      sent++;
      one().then(() => {
        if (++done === N) resolve();
        else next();
      }, reject);
    };
    for (let i = 0; i < 32; i++) next();
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(cpu0);
  await client.close(0);
  return { rate: N / secs, cpu: (c.user + c.system) / N };
}
const res = { A: [], B: [] };
for (let r = 0; r < 6; r++) for (const name of r % 2 ? ['A', 'B'] : ['B', 'A']) res[name].push(await run(name));
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const k of ['A', 'B'])
  console.log(
    k,
    'rate',
    Math.round(med(res[k].map((x) => x.rate))),
    'cpu µs/req',
    med(res[k].map((x) => x.cpu)).toFixed(1),
    'all cpu',
    res[k].map((x) => x.cpu.toFixed(1)).join(' '),
  );
server.kill();
