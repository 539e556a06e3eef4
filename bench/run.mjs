#!/usr/bin/env node
// `npm run bench`: our nodes against the alternatives, in one run, on this machine.
//   node bench/run.mjs [--rounds N] [--quick] [--real]
// Every case runs in a fresh worker process (bench/worker.mjs) against a loopback stand-in for
// MindsDB in its own process (bench/server.mjs); the SQL cases alternate their order from round to
// round and the median round is reported. --real adds predict batched vs single against a real
// local MindsDB (started, seeded and stopped by scripts/with-mindsdb.mjs when none answers).
// Prints a table and writes the same figures to bench/results.json.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFloor } from '../scripts/node-version.mjs';
import { nodeRedVersion } from './lib/red.mjs';
import { median, quantile } from './lib/stats.mjs';

// The package needs Node >= 22.19: on an older Node this runs again on the pinned Node 22.
await ensureFloor();

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

const QUICK = flag('--quick');
const ROUNDS = value('--rounds', QUICK ? 2 : 5);
// The SQL comparison: a, b and d take turns in one process after a warm-up of every case, c the same
// way in a process of its own (worker.mjs, sqlCompare; bench/README.md, "Method"), each in
// `processes` fresh processes; in the order of the turns each case comes right after each other
// one equally often (worker.mjs, turnCycle). FRESH is the same workload each case alone in a fresh
// process, first 11,000 messages.
const SQL = {
  warmup: QUICK ? 2000 : 10000,
  batch: QUICK ? 2000 : 4000,
  turns: QUICK ? 6 : 12,
  processes: QUICK ? 1 : 3,
  concurrency: 32,
  connections: 8,
};
const FRESH = { messages: QUICK ? 2000 : 10000, warmup: 1000, concurrency: 32, connections: 8 };
const PREDICT = { messages: 1000, connections: 8 };
const INSERT = { messages: QUICK ? 2000 : 10000, warmup: 1000, connections: 8 };
const MEMORY = { messages: 100000, concurrency: 32, connections: 8 };
const OUTBOX = { messages: 10000, connections: 8 };
// The shared store's cases (issue 38): the machine's PostgreSQL (BENCH_PG_URL), a schema per case run.
const TAKEOVER = { messages: 1000, connections: 8, leaseSeconds: 2 };
const benchSchema = () => `bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
// --only outbox: the outbox's figures alone (embedded and shared store), for work on them.
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
// Longer than the watcher's idle time (30 s), so that a probe while answers come would show.
const HEALTH = { seconds: QUICK ? 10 : 70, connections: 8 };

function worker(caseName, options) {
  // every run of a shared-store case gets a schema of its own
  const opts = /shared|takeover/.test(caseName) ? { ...options, schema: benchSchema() } : options;
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', path.join(here, 'worker.mjs'), caseName, JSON.stringify(opts)],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (r.status !== 0) throw new Error(`bench case ${caseName} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function startServer(env = {}) {
  const child = spawn(process.execPath, [path.join(here, 'server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d) =>
      resolve({ origin: `http://127.0.0.1:${String(d).trim()}`, stop: () => child.kill('SIGTERM') }),
    );
  });
}

/** Runs `cases` for ROUNDS rounds, rotating their order, and keeps every round's figures. */
function rounds(cases, options, log, count = ROUNDS) {
  const all = Object.fromEntries(cases.map((c) => [c, []]));
  for (let r = 0; r < count; r++) {
    const order = cases.map((_, i) => cases[(i + r) % cases.length]);
    for (const c of order) {
      const res = worker(c, options);
      all[c].push(res);
      log(
        `  round ${r + 1}/${count} ${c.padEnd(12)} ${res.perSecond.toFixed(0).padStart(7)}/s  p50 ${res.p50ms.toFixed(1)} ms  CPU ${res.cpuUsPerMsg.toFixed(0)} µs/msg`,
      );
    }
  }
  return all;
}

/** The median of each figure over the rounds. */
const summarise = (runs) =>
  Object.fromEntries(
    Object.entries(runs).map(([c, rs]) => [
      c,
      {
        perSecond: median(rs.map((x) => x.perSecond)),
        p50ms: median(rs.map((x) => x.p50ms)),
        p99ms: median(rs.map((x) => x.p99ms)),
        peakRssMB: median(rs.map((x) => x.maxRssMB)),
        cpuUsPerMsg: median(rs.map((x) => x.cpuUsPerMsg)),
        errors: rs.reduce((n, x) => n + x.errors, 0),
        rounds: rs.map((x) => Math.round(x.perSecond)),
      },
    ]),
  );

/**
 * The SQL comparison (worker.mjs, sqlCompare): a, b and d taking turns in one process, c in one of
 * its own, each in SQL.processes fresh processes. Per case: msg/s and CPU per message are the
 * medians over every turn of every process; p50 and p99 the medians over the processes of each
 * process's pooled latencies; `spread` the middle half of the turns' msg/s around their median.
 */
function sqlComparison(log) {
  const shared = Array.from({ length: SQL.processes }, () =>
    worker('sql-compare', { ...SQL, cases: ['undici', 'sql', 'bare'], origin: server.origin }),
  );
  const alone = Array.from({ length: SQL.processes }, () =>
    worker('sql-compare', { ...SQL, cases: ['http'], origin: server.origin }),
  );
  const out = {};
  for (const [c, runs] of [
    ['undici', shared],
    ['sql', shared],
    ['http', alone],
    ['bare', shared],
  ]) {
    const perTurn = runs.flatMap((r) => r.cases[c].turns);
    const m = median(perTurn);
    out[c] = {
      perSecond: m,
      cpuUsPerMsg: median(runs.flatMap((r) => r.cases[c].cpuTurns)),
      p50ms: median(runs.map((r) => r.cases[c].p50ms)),
      p99ms: median(runs.map((r) => r.cases[c].p99ms)),
      // one process for a, b and d: its peak, the same for each
      peakRssMB: median(runs.map((r) => r.maxRssMB)),
      errors: runs.reduce((n, r) => n + r.cases[c].errors, 0),
      spread: {
        q1: quantile(perTurn, 0.25) / m - 1,
        q3: quantile(perTurn, 0.75) / m - 1,
        min: Math.min(...perTurn) / m - 1,
        max: Math.max(...perTurn) / m - 1,
      },
      rounds: perTurn,
      cpuTurns: runs.flatMap((r) => r.cases[c].cpuTurns),
    };
    const pct = (x) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`;
    const sp = out[c].spread;
    log(
      `  ${c.padEnd(7)} ${Math.round(m).toString().padStart(6)}/s  p50 ${out[c].p50ms.toFixed(1)} ms  CPU ${out[c].cpuUsPerMsg.toFixed(0)} µs/msg  ${perTurn.length} turns, middle half ${pct(sp.q1)}…${pct(sp.q3)}, all ${pct(sp.min)}…${pct(sp.max)}: ${perTurn.join(' ')}`,
    );
  }
  return out;
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    nodeRed: nodeRedVersion(),
    platform: `${os.platform()} ${os.arch()}`,
  };
}

function realRun(log) {
  // Re-enter under with-mindsdb.mjs, which provides MINDSDB_URL (a running or a freshly started, seeded MindsDB).
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'scripts', 'with-mindsdb.mjs'),
      '--seed',
      process.execPath,
      path.join(here, 'run.mjs'),
      '--real-inner',
      '--rounds',
      '3',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error('the --real run failed (see above)');
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  for (const line of out.log) log(line);
  return out.result;
}

if (flag('--real-inner')) {
  const origin = (process.env.MINDSDB_URL || 'http://127.0.0.1:47334').replace(/\/$/, '');
  const lines = [];
  // A model's first predictions load it (seconds): warm it up before anything is measured.
  worker('predict-on', { ...PREDICT, origin, model: 'sensor_energy', messages: 200 });
  worker('predict-off', { ...PREDICT, origin, model: 'sensor_energy', messages: 50 });
  // The model is warm now; 100 messages of runtime warm-up (single calls take ~230 ms each here).
  const runs = rounds(
    ['predict-on', 'predict-off'],
    { ...PREDICT, origin, model: 'sensor_energy', messages: 200, predictWarmup: 100 },
    (l) => lines.push(l),
  );
  const s = summarise(runs);
  process.stdout.write(
    `${JSON.stringify({ log: lines, result: { origin, messages: 200, ...s, ratio: s['predict-on'].perSecond / s['predict-off'].perSecond } })}\n`,
  );
  process.exit(0);
}

/**
 * The outbox's figures (docs/outbox.md): its cost on the embedded store and on the shared one
 * (table inserts with the outbox on over off), replaying a backlog over sending it live on each,
 * and on the shared store the time a dead copy's backlog waits for another copy, in lease periods.
 */
function outboxFigures(log) {
  const n = Math.min(ROUNDS, 3);
  log(
    `outbox: the same micro-batched inserts with the outbox on (each reading kept in the store first: the embedded file, or the shared PostgreSQL store) vs off; replaying ${OUTBOX.messages.toLocaleString('en')} kept readings vs inserting them live, both on a fresh runtime, on each store (at most 3 rounds)`,
  );
  const costs = summarise(
    rounds(['insert-outbox', 'insert-outbox-shared', 'insert-on'], { ...INSERT, origin: server.origin }, log, n),
  );
  const replays = summarise(rounds(['outbox-replay', 'outbox-live'], { ...OUTBOX, origin: server.origin }, log, n));
  const sharedReplays = summarise(
    rounds(['outbox-replay-shared', 'outbox-live-shared'], { ...OUTBOX, origin: server.origin }, log, n),
  );
  log(
    `outbox.takeover_leases: a copy keeps ${TAKEOVER.messages.toLocaleString('en')} readings on the shared store (lease ${TAKEOVER.leaseSeconds} s) and dies (SIGKILL); the time until the first is sent by the other copy`,
  );
  const takeovers = Array.from({ length: n }, (_, i) => {
    const t = worker('outbox-takeover', { ...TAKEOVER, origin: server.origin });
    log(`  round ${i + 1}/${n} the first sent ${t.firstMs} ms after its death (${t.leases.toFixed(2)} lease periods)`);
    return t;
  });
  return {
    cost: costs['insert-outbox'].perSecond / costs['insert-on'].perSecond,
    replay_vs_live: replays['outbox-replay'].perSecond / replays['outbox-live'].perSecond,
    cost_shared: costs['insert-outbox-shared'].perSecond / costs['insert-on'].perSecond,
    replay_shared_vs_live:
      sharedReplays['outbox-replay-shared'].perSecond / sharedReplays['outbox-live-shared'].perSecond,
    takeover_leases: median(takeovers.map((t) => t.leases)),
    takeover_rounds: takeovers.map((t) => t.leases),
    ...costs,
    ...replays,
    ...sharedReplays,
  };
}

/** The outbox's figures as rows of the ratio table. */
function outboxRows(o) {
  const ok = (x) => (x ? 'met' : 'NOT met');
  const rate = (c) => Math.round(o[c].perSecond).toLocaleString('en');
  return [
    `| outbox.cost: f on with the outbox on / off (${rate('insert-outbox')} vs ${rate('insert-on')} msg/s) | ${o.cost.toFixed(2)} | ≥ 0.9: ${ok(o.cost >= 0.9)} |`,
    `| outbox.replay_vs_live: rows/s replaying ${OUTBOX.messages.toLocaleString('en')} kept readings / inserting them live, fresh runtimes (${rate('outbox-replay')} vs ${rate('outbox-live')}) | ${o.replay_vs_live.toFixed(2)} | ≥ 0.8: ${ok(o.replay_vs_live >= 0.8)} |`,
    `| outbox.cost_shared: the same with the outbox on the shared PostgreSQL store / off (${rate('insert-outbox-shared')} vs ${rate('insert-on')} msg/s) | ${o.cost_shared.toFixed(2)} | ≥ 0.8: ${ok(o.cost_shared >= 0.8)} |`,
    `| outbox.replay_shared_vs_live: replaying on the shared store / live on it (${rate('outbox-replay-shared')} vs ${rate('outbox-live-shared')}) | ${o.replay_shared_vs_live.toFixed(2)} | ≥ 0.8: ${ok(o.replay_shared_vs_live >= 0.8)} |`,
    `| outbox.takeover_leases: a dead copy's first kept reading sent by the other, lease periods after its death (rounds ${o.takeover_rounds.map((x) => x.toFixed(2)).join(', ')}) | ${o.takeover_leases.toFixed(2)} | ≤ 2: ${ok(o.takeover_leases <= 2)} |`,
  ];
}

const started = Date.now();
const log = (l) => console.log(l);
const server = await startServer();
// A stand-in that says it is MindsDB 26.1, so the sql node asks it for jsonlines.
const server26 = await startServer({ BENCH_VERSION: '26.1.0' });
const results = {
  machine: machine(),
  date: new Date().toISOString(),
  rounds: ROUNDS,
  settings: {
    sql: SQL,
    fresh: FRESH,
    predict: PREDICT,
    insert: INSERT,
    memory: MEMORY,
    outbox: OUTBOX,
    takeover: TAKEOVER,
    health: HEALTH,
  },
};
if (ONLY === 'outbox') {
  try {
    results.outbox = outboxFigures(log);
  } finally {
    server.stop();
    server26.stop();
  }
  results.seconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(path.join(here, 'results-outbox.json'), `${JSON.stringify(results, null, 2)}\n`);
  log(
    `\n| ratio | value | target |\n|---|---|---|\n${outboxRows(results.outbox).join('\n')}\n\n(${results.seconds} s)`,
  );
  process.exit(0);
}
try {
  log(`MindsDB stand-in at ${server.origin}; ${ROUNDS} rounds`);
  log(
    `SQL, taking turns (${SQL.turns} turns of ${SQL.batch.toLocaleString('en')} messages each after ${SQL.warmup.toLocaleString('en')} of warm-up, in ${SQL.processes} processes): raw undici (a), our sql node (b) and bare undici node (d) in one process; core http request + function (c, a tenth of the messages) in its own`,
  );
  results.sql = sqlComparison(log);
  log(
    'SQL from a fresh start: a, b and d each alone in a new process, 1,000 messages of warm-up then 10,000 (V8 still compiling; no target)',
  );
  results.fresh = summarise(
    rounds(['undici', 'sql', 'bare'], { ...FRESH, origin: server.origin }, log, Math.min(ROUNDS, 3)),
  );
  log('predict: micro-batching on vs off, 1,000 single-row messages');
  results.predict = summarise(
    rounds(['predict-on', 'predict-off'], { ...PREDICT, origin: server.origin, model: 'sensor_energy' }, log),
  );
  log(
    `insert: ${INSERT.messages.toLocaleString('en')} single-row messages into a table, micro-batching on vs off (at most 3 rounds)`,
  );
  const inserts = summarise(
    rounds(['insert-on', 'insert-off'], { ...INSERT, origin: server.origin }, log, Math.min(ROUNDS, 3)),
  );
  results.insert = { batched_vs_single: inserts['insert-on'].perSecond / inserts['insert-off'].perSecond, ...inserts };
  results.outbox = outboxFigures(log);
  log(`health: the sql node answered for ${HEALTH.seconds} s; probes its server sent meanwhile`);
  const busy = worker('health-busy', { ...HEALTH, origin: server.origin });
  results.health = { probes_per_min_busy: busy.probesPerMinute, ...busy };
  log(`  ${busy.messages.toLocaleString('en')} messages answered, ${busy.probes} probes`);
  log(
    'memory: 100,000 messages into the sql node while the server answers in 50 ms, and into a function node that throws (the floor)',
  );
  // Peak RSS during a burst swings with the garbage collector's timing (the same case measured
  // +51 and +86 MB here), so each side runs up to 3 times, alternating, and the medians are compared.
  const bursts = { memory: [], 'memory-floor': [] };
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) {
    for (const c of r % 2 ? ['memory-floor', 'memory'] : ['memory', 'memory-floor'])
      bursts[c].push(worker(c, { ...MEMORY, origin: server.origin }));
  }
  const growthOf = (x) => x.rssPeakMB - x.rssStartMB;
  const medianRun = (runs) => [...runs].sort((x, y) => growthOf(x) - growthOf(y))[Math.floor((runs.length - 1) / 2)];
  const mem = medianRun(bursts.memory);
  const floor = medianRun(bursts['memory-floor']);
  results.memory = { ...mem, growthMB: growthOf(mem), growthRoundsMB: bursts.memory.map(growthOf) };
  results.overload = {
    growth_mb: results.memory.growthMB,
    floor_growth_mb: growthOf(floor),
    vs_floor: results.memory.growthMB / growthOf(floor),
    retained_mb: median(bursts.memory.map((x) => x.retainedMB)),
    floor_retained_mb: median(bursts['memory-floor'].map((x) => x.retainedMB)),
    retained_rss_mb: median(bursts.memory.map((x) => x.retainedRssMB)),
    floor_retained_rss_mb: median(bursts['memory-floor'].map((x) => x.retainedRssMB)),
    rounds: {
      growth_mb: bursts.memory.map(growthOf),
      floor_growth_mb: bursts['memory-floor'].map(growthOf),
      retained_mb: bursts.memory.map((x) => x.retainedMB),
      retained_rss_mb: bursts.memory.map((x) => x.retainedRssMB),
    },
  };
  log(
    `  sql node peak +${bursts.memory.map((x) => growthOf(x).toFixed(0)).join(', ')} MB, heap retained ${bursts.memory.map((x) => x.retainedMB.toFixed(1)).join(', ')} MB (RSS ${bursts.memory.map((x) => x.retainedRssMB.toFixed(1)).join(', ')}); floor peak +${bursts['memory-floor'].map((x) => growthOf(x).toFixed(0)).join(', ')} MB, heap retained ${bursts['memory-floor'].map((x) => x.retainedMB.toFixed(1)).join(', ')} MB (RSS ${bursts['memory-floor'].map((x) => x.retainedRssMB.toFixed(1)).join(', ')})`,
  );
  log(
    'stream: 1,000,000 rows of 5 columns, 1,000-row parts with msg.tick (MindsDB 26.1 stand-in: jsonlines) vs the same result read whole into one message',
  );
  const streams = { stream: [], 'stream-whole': [], 'stream-json': [] };
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) {
    for (const c of r % 2 ? ['stream-whole', 'stream'] : ['stream', 'stream-whole'])
      streams[c].push(worker(c, { origin: server26.origin, connections: 8 }));
    // The same parts from a 25.x stand-in: one JSON body, rows before the column names.
    streams['stream-json'].push(worker('stream', { origin: server.origin, connections: 8 }));
    log(
      `  round ${r + 1}: streamed ${Math.round(streams.stream[r].rowsPerSecond).toLocaleString('en')} rows/s +${(streams.stream[r].rssPeakMB - streams.stream[r].rssStartMB).toFixed(0)} MB; whole ${Math.round(streams['stream-whole'][r].rowsPerSecond).toLocaleString('en')} rows/s +${(streams['stream-whole'][r].rssPeakMB - streams['stream-whole'][r].rssStartMB).toFixed(0)} MB; 25.x JSON body ${Math.round(streams['stream-json'][r].rowsPerSecond).toLocaleString('en')} rows/s +${(streams['stream-json'][r].rssPeakMB - streams['stream-json'][r].rssStartMB).toFixed(0)} MB`,
    );
  }
  const rate = (c) => median(streams[c].map((x) => x.rowsPerSecond));
  const growth = (c) => median(streams[c].map((x) => x.rssPeakMB - x.rssStartMB));
  results.stream = {
    rows: streams.stream[0].rows,
    rows_per_s: rate('stream'),
    peak_rss_growth_mb: growth('stream'),
    whole_body_rows_per_s: rate('stream-whole'),
    whole_body_peak_rss_growth_mb: growth('stream-whole'),
    vs_whole_body: rate('stream') / rate('stream-whole'),
    json_body_rows_per_s: rate('stream-json'),
    json_body_peak_rss_growth_mb: growth('stream-json'),
    // The name for the same figure (target < 100): rows before the column names are spooled.
    json_peak_rss_growth_mb: growth('stream-json'),
  };
  log('large result: 200,000 rows, split into 1,000-row messages vs one message');
  const large = { 'large-split': [], 'large-one': [] };
  for (let r = 0; r < Math.min(ROUNDS, 3); r++)
    for (const c of r % 2 ? ['large-one', 'large-split'] : ['large-split', 'large-one'])
      large[c].push(worker(c, { ...SQL, origin: server.origin }));
  results.large = Object.fromEntries(
    Object.entries(large).map(([c, rs]) => [
      c,
      { rowsPerSecond: 200000 / median(rs.map((x) => x.seconds)), peakRssMB: median(rs.map((x) => x.maxRssMB)) },
    ]),
  );
} finally {
  server.stop();
  server26.stop();
}
if (flag('--real')) {
  log('real MindsDB: predict batched vs single (200 single-row messages)');
  results.real = realRun(log);
  results.real.note = 'real MindsDB 25.14.1 on this machine, model mindsdb.sensor_energy (seeded)';
}

const s = results.sql;
results.ratios = {
  sql_vs_undici: s.sql.perSecond / s.undici.perSecond,
  sql_vs_http_request: s.sql.perSecond / s.http.perSecond,
  sql_vs_bare_node: s.sql.perSecond / s.bare.perSecond,
  // The same comparison in CPU time per message (bare / sql): steadier than msg/s on a busy machine.
  sql_vs_bare_node_cpu: s.bare.cpuUsPerMsg / s.sql.cpuUsPerMsg,
  sql_vs_undici_cpu: s.undici.cpuUsPerMsg / s.sql.cpuUsPerMsg,
  // Each case alone in a fresh process, the first 11,000 messages after start: no target, shown so
  // that the figures above hide nothing (bench/README.md, "Method").
  fresh_sql_vs_bare_node: results.fresh.sql.perSecond / results.fresh.bare.perSecond,
  fresh_sql_vs_undici: results.fresh.sql.perSecond / results.fresh.undici.perSecond,
  predict_batched_vs_single: results.predict['predict-on'].perSecond / results.predict['predict-off'].perSecond,
  insert_batched_vs_single: results.insert.batched_vs_single,
  outbox_cost: results.outbox.cost,
  outbox_replay_vs_live: results.outbox.replay_vs_live,
  outbox_cost_shared: results.outbox.cost_shared,
  outbox_replay_shared_vs_live: results.outbox.replay_shared_vs_live,
  outbox_takeover_leases: results.outbox.takeover_leases,
  health_probes_per_min_busy: results.health.probes_per_min_busy,
  ...(results.real ? { real_predict_batched_vs_single: results.real.ratio } : {}),
};
results.memory_growth_mb = results.memory.growthMB;
results.seconds = Math.round((Date.now() - started) / 1000);
fs.writeFileSync(path.join(here, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);

const m = results.machine;
const row = (name, x, unit = 'msg/s') =>
  `| ${name} | ${Math.round(x.perSecond).toLocaleString('en')} ${unit} | ${x.p50ms.toFixed(1)} | ${x.p99ms.toFixed(1)} | ${Math.round(x.peakRssMB)} |`;
const target = (ok) => (ok ? 'met' : 'NOT met');
const r = results.ratios;
const o = results.overload;
const st = results.stream;
const table = [
  `${m.cpu}, ${m.cores} cores, Node ${m.node}, Node-RED ${m.nodeRed}; a, b, d: median of ${SQL.turns * SQL.processes} turns taking turns in one process (its peak RSS shown for each), c: the same in its own, the others: median of ${ROUNDS} rounds`,
  '',
  '| case | throughput | p50 ms | p99 ms | peak RSS MB |',
  '|---|---|---|---|---|',
  row('a. raw undici Pool', s.undici),
  row('b. our sql node', s.sql),
  row('c. core http request + function', s.http),
  row('d. bare undici node', s.bare),
  row('e. predict, micro-batching on', results.predict['predict-on'], 'rows/s'),
  row('e. predict, micro-batching off', results.predict['predict-off'], 'rows/s'),
  row('f. table insert, micro-batching on', results.insert['insert-on']),
  row('f. table insert, micro-batching off', results.insert['insert-off']),
  ...(results.real
    ? [
        row('real MindsDB predict, batching on', results.real['predict-on'], 'rows/s'),
        row('real MindsDB predict, batching off', results.real['predict-off'], 'rows/s'),
      ]
    : []),
  '',
  '| ratio | value | target |',
  '|---|---|---|',
  `| ratios.sql_vs_undici (b/a sql vs raw undici) | ${r.sql_vs_undici.toFixed(2)} | ≥ 0.9: ${target(r.sql_vs_undici >= 0.9)} |`,
  `| b/c sql vs http request | ${r.sql_vs_http_request.toFixed(2)} | ≥ 4: ${target(r.sql_vs_http_request >= 4)} |`,
  `| ratios.sql_vs_bare_node (b/d sql vs bare node) | ${r.sql_vs_bare_node.toFixed(2)} | ≥ 1.1: ${target(r.sql_vs_bare_node >= 1.1)} |`,
  `| b/d in CPU time per message (bare ÷ sql: ${s.bare.cpuUsPerMsg.toFixed(0)} ÷ ${s.sql.cpuUsPerMsg.toFixed(0)} µs) | ${r.sql_vs_bare_node_cpu.toFixed(2)} | ≥ 1.1: ${target(r.sql_vs_bare_node_cpu >= 1.1)} |`,
  `| b/a in CPU time per message (undici ÷ sql: ${s.undici.cpuUsPerMsg.toFixed(0)} ÷ ${s.sql.cpuUsPerMsg.toFixed(0)} µs) | ${r.sql_vs_undici_cpu.toFixed(2)} | |`,
  `| fresh start b/d: each alone in a new process, messages 1,001–11,000 after start (${Math.round(results.fresh.sql.perSecond).toLocaleString('en')} vs ${Math.round(results.fresh.bare.perSecond).toLocaleString('en')} msg/s, V8 still compiling) | ${r.fresh_sql_vs_bare_node.toFixed(2)} | none |`,
  `| fresh start b/a (raw undici ${Math.round(results.fresh.undici.perSecond).toLocaleString('en')} msg/s) | ${r.fresh_sql_vs_undici.toFixed(2)} | none |`,
  `| e on/off predict batched vs single | ${r.predict_batched_vs_single.toFixed(1)} | ≥ 20: ${target(r.predict_batched_vs_single >= 20)} |`,
  `| insert.batched_vs_single: f on/off, ${INSERT.messages.toLocaleString('en')} single-row messages into a table | ${r.insert_batched_vs_single.toFixed(1)} | ≥ 20: ${target(r.insert_batched_vs_single >= 20)} |`,
  ...(results.real
    ? [`| real MindsDB predict batched vs single | ${r.real_predict_batched_vs_single.toFixed(1)} | |`]
    : []),
  ...outboxRows(results.outbox),
  `| health.probes_per_min_busy: probes while the sql node is answered for ${HEALTH.seconds} s (${results.health.probes} probes) | ${r.health_probes_per_min_busy.toFixed(1)} | 0: ${target(r.health_probes_per_min_busy === 0)} |`,
  `| memory growth, 100k msgs, slow server | ${results.memory_growth_mb.toFixed(0)} MB (${results.memory.answered} answered, ${results.memory.errors} refused: queue full) | none of its own: Node-RED's 100,000 errors alone grow about as much, so the target is the ratio below |`,
  `| overload.vs_floor: that growth over a function node throwing 100k errors (${o.floor_growth_mb.toFixed(0)} MB) | ${o.vs_floor.toFixed(2)} | ≤ 1.25: ${target(o.vs_floor <= 1.25)} |`,
  `| overload.retained_mb: what JavaScript holds (heap in use + Buffers) after the burst and a forced GC, minus before | ${o.retained_mb.toFixed(1)} MB (floor ${o.floor_retained_mb.toFixed(1)} MB) | < 10 MB: ${target(o.retained_mb < 10)} |`,
  `| RSS after the burst and a forced GC, minus before (the allocator keeps its pages) | ${o.retained_rss_mb.toFixed(1)} MB (floor ${o.floor_retained_rss_mb.toFixed(1)} MB) | |`,
  `| stream.rows: 1,000-row parts with msg.tick | ${st.rows.toLocaleString('en')} rows | 1,000,000: ${target(st.rows === 1_000_000)} |`,
  `| stream.rows_per_s (jsonlines, 26.1 stand-in) | ${Math.round(st.rows_per_s).toLocaleString('en')} rows/s (whole body: ${Math.round(st.whole_body_rows_per_s).toLocaleString('en')}) | |`,
  `| stream.vs_whole_body (rows/s ratio) | ${st.vs_whole_body.toFixed(2)} | ≥ 0.9: ${target(st.vs_whole_body >= 0.9)} |`,
  `| stream.peak_rss_growth_mb | ${st.peak_rss_growth_mb.toFixed(0)} MB (whole body: ${st.whole_body_peak_rss_growth_mb.toFixed(0)} MB) | < 100 MB: ${target(st.peak_rss_growth_mb < 100)} |`,
  `| stream.json_peak_rss_growth_mb: the same parts from a 25.x JSON body (rows before the column names, spooled until the names; ${Math.round(st.json_body_rows_per_s).toLocaleString('en')} rows/s) | ${st.json_peak_rss_growth_mb.toFixed(0)} MB | < 100 MB: ${target(st.json_peak_rss_growth_mb < 100)} |`,
  `| 200k rows, split vs one message | ${Math.round(results.large['large-split'].rowsPerSecond).toLocaleString('en')} vs ${Math.round(results.large['large-one'].rowsPerSecond).toLocaleString('en')} rows/s; peak RSS ${Math.round(results.large['large-split'].peakRssMB)} vs ${Math.round(results.large['large-one'].peakRssMB)} MB | |`,
];
log(`\n${table.join('\n')}\n\n(${results.seconds} s; figures in bench/results.json)`);
