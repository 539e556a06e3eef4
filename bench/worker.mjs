// One benchmark case in a fresh process (so its peak RSS is its own), printing one JSON line.
//   node bench/worker.mjs <case> '<json options>'
// Cases: sql-compare (cases of the SQL workload taking turns in one process), undici, sql, http,
// bare (each alone in a fresh process), predict-on, predict-off, insert-on, insert-off, memory,
// large-split, large-one, stream, stream-whole, the outbox's (insert-outbox, outbox-replay, outbox-live, and on
// the shared store insert-outbox-shared, outbox-replay-shared, outbox-live-shared, outbox-takeover). Options:
// origin, messages, concurrency, connections, warmup; for sql-compare: cases, batch and turns; for the shared
// store: schema (a schema of the bench's own), leaseSeconds.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, startRed } from './lib/red.mjs';

const require = createRequire(path.join(root, 'package.json'));
const [caseName, json] = process.argv.slice(2);
const opt = JSON.parse(json || '{}');
const QUERY = 'SELECT * FROM files.sensor_readings LIMIT 10';

const server = (extra = {}) => ({
  id: 'srv',
  type: 'mindsdb-server',
  name: 'bench',
  url: opt.origin,
  apiPrefix: '/api',
  authMode: 'none',
  timeout: 60000,
  retries: 0,
  retryPost: false,
  maxInFlight: opt.connections,
  maxQueue: 1000,
  maxResponseMB: 256,
  tls: '',
  version: 1,
  ...extra,
});
const sink = { id: 'sink', z: 't', type: 'bench-sink', wires: [] };
const catcher = { id: 'catch', z: 't', type: 'catch', scope: null, uncaught: false, wires: [['sink']] };
const tab = { id: 't', type: 'tab', label: 'bench' };

/** The flow each in-runtime case runs: messages go into node `in`, results and errors reach `sink`. */
const FLOWS = {
  sql: () => [
    tab,
    server(),
    sink,
    catcher,
    {
      id: 'in',
      z: 't',
      type: 'mindsdb-sql',
      server: 'srv',
      query: '',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
      outputProperty: 'payload',
      version: 1,
      wires: [['sink']],
    },
  ],
  bare: () => [
    tab,
    sink,
    catcher,
    { id: 'in', z: 't', type: 'bench-bare', origin: opt.origin, connections: opt.connections, wires: [['sink']] },
  ],
  // What a flow builder does without us: http request (POST, parsed JSON) and a function node
  // that turns MindsDB's column_names/data into row objects.
  http: () => [
    tab,
    sink,
    catcher,
    {
      id: 'in',
      z: 't',
      type: 'http request',
      method: 'POST',
      ret: 'obj',
      paytoqs: 'ignore',
      url: `${opt.origin}/api/sql/query`,
      tls: '',
      persist: true,
      proxy: '',
      insecureHTTPParser: false,
      authType: '',
      senderr: true,
      headers: [{ keyType: 'Content-Type', keyValue: '', valueType: 'application/json', valueValue: '' }],
      wires: [['map']],
    },
    {
      id: 'map',
      z: 't',
      type: 'function',
      func: 'const c = msg.payload.column_names;\nmsg.payload = msg.payload.data.map((r) => Object.fromEntries(c.map((k, i) => [k, r[i]])));\nreturn msg;',
      outputs: 1,
      wires: [['sink']],
    },
  ],
  predict: (batch) => [
    tab,
    server(),
    sink,
    catcher,
    {
      id: 'in',
      z: 't',
      type: 'mindsdb-predict',
      server: 'srv',
      project: 'mindsdb',
      projectType: 'str',
      model: opt.model || 'sensor_energy',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch,
      batchSize: 100,
      batchWindow: 20,
      outputProperty: 'payload',
      version: 1,
      wires: [['sink']],
    },
  ],
  // single-row readings into a table, one INSERT per batch or per message; the queue holds a whole burst
  table: (batch, more = {}, origin = opt.origin) => [
    tab,
    server({ maxQueue: 20000, url: origin }),
    sink,
    catcher,
    {
      id: 'in',
      z: 't',
      type: 'mindsdb-table',
      server: 'srv',
      operation: 'insert',
      database: 'pg',
      databaseType: 'str',
      table: 'readings',
      tableType: 'str',
      select: '',
      replace: false,
      batch,
      batchSize: 100,
      batchWindow: 20,
      outputProperty: 'payload',
      version: 1,
      ...more,
      wires: [['sink']],
    },
  ],
  // 1,000,000 rows: streamed in 1,000-row parts with msg.tick flow control, or read whole into one
  // message. The tick comes back from the end of the chain (sql → sink → change → sql), as in the
  // SQL → CSV → file example: a second wire on the sql node's output would make Node-RED deep-clone
  // every part, which measured as half the CPU time of the case and is no cost of ours.
  stream: (split) => [
    tab,
    server(),
    catcher,
    { ...sink, forward: split, wires: split ? [['tick']] : [] },
    {
      id: 'in',
      z: 't',
      type: 'mindsdb-sql',
      server: 'srv',
      query: '',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split,
      rowsPerMsg: 1000,
      flowControl: split,
      partsAhead: 1,
      outputProperty: 'payload',
      version: 1,
      wires: [['sink']],
    },
    {
      id: 'tick',
      z: 't',
      type: 'change',
      name: '',
      rules: [{ t: 'set', p: 'tick', pt: 'msg', to: 'true', tot: 'bool' }],
      wires: [['in']],
    },
  ],
  // The floor of the overload case: the same burst into a function node that throws, errors to Catch.
  floor: () => [
    tab,
    sink,
    catcher,
    { id: 'in', z: 't', type: 'function', func: 'throw new Error("refused");', outputs: 1, wires: [['sink']] },
  ],
  large: (split) => [
    tab,
    server(),
    sink,
    catcher,
    {
      id: 'in',
      z: 't',
      type: 'mindsdb-sql',
      server: 'srv',
      query: '',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split,
      rowsPerMsg: 1000,
      outputProperty: 'payload',
      version: 1,
      wires: [['sink']],
    },
  ],
};

/** The message each case feeds. */
const MESSAGES = {
  sql: () => ({ query: QUERY }),
  bare: () => ({ query: QUERY }),
  http: () => ({ payload: { query: QUERY } }),
};

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;
}

/**
 * With BENCH_CPU_PROFILE=<file>, a CPU profile of the measured phase only (no start-up, no
 * warm-up), for `node bench/profile-summary.mjs <file>`.
 */
async function startProfile() {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return undefined;
  const { Session } = await import('node:inspector/promises');
  const fs = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/**
 * Peak RSS sampled while `work` runs (and the process's own high-water mark), and the CPU time the
 * process spent on it: on a shared machine, CPU per message moves far less than messages per second.
 */
async function withRss(work) {
  const profile = await startProfile();
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const cpu = process.cpuUsage();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    const used = process.cpuUsage(cpu);
    await profile?.stop();
    const cpuMs = (used.user + used.system) / 1000;
    return {
      ...result,
      rssStartMB: start / 2 ** 20,
      rssPeakMB: peak / 2 ** 20,
      cpuMs,
      ...(result.messages ? { cpuUsPerMsg: (cpuMs * 1000) / result.messages } : {}),
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Feeds `total` messages, keeping `concurrency` of them outstanding (closed loop), and waits for
 * an outcome of each (output or error; with split output, `expected(msg)` says when a message is done).
 */
function drive(red, makeMsg, total, concurrency, { outcomesPerMsg = 1, id = 'in', keepLatencies = false } = {}) {
  const input = red.node(id);
  const latencies = [];
  let fed = 0;
  let outcomes = 0;
  let errors = 0;
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const feed = () => {
      const msg = makeMsg(fed);
      // A number, not a BigInt: a message must stay JSON for what keeps it (the table node's outbox),
      // and JSON has no BigInt (the outbox then takes its slow, careful way).
      msg._benchT0 = performance.now();
      fed++;
      input.receive(msg);
    };
    globalThis.__bench = {
      arrived(msg) {
        if (msg.error) errors++;
        outcomes++;
        if (outcomes % outcomesPerMsg === 0) {
          latencies.push(performance.now() - msg._benchT0);
          if (fed < total) feed();
        }
        if (outcomes === total * outcomesPerMsg) {
          const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
          latencies.sort((a, b) => a - b);
          resolve({
            messages: total,
            seconds,
            perSecond: total / seconds,
            p50ms: percentile(latencies, 0.5),
            p99ms: percentile(latencies, 0.99),
            errors,
            ...(keepLatencies ? { latencies } : {}),
          });
        }
      },
    };
    for (let i = 0; i < Math.min(concurrency, total); i++) feed();
  });
}

/**
 * Case a: raw undici Pool.request, the same body, one JSON parse, rows mapped to objects:
 * `total` requests, `concurrency` outstanding.
 */
function undiciRun(pool, total, concurrency, { keepLatencies = false } = {}) {
  const headers = { 'content-type': 'application/json' };
  const one = async () => {
    const t = process.hrtime.bigint();
    const res = await pool.request({
      path: '/api/sql/query',
      method: 'POST',
      headers,
      body: JSON.stringify({ query: QUERY }),
    });
    const answer = await res.body.json();
    const cols = answer.column_names;
    answer.data.map((r) => {
      const o = {};
      for (let i = 0; i < cols.length; i++) o[cols[i]] = r[i];
      return o;
    });
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  return (async () => {
    const latencies = [];
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          next++;
          latencies.push(await one());
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    latencies.sort((a, b) => a - b);
    return {
      messages: total,
      seconds,
      perSecond: total / seconds,
      p50ms: percentile(latencies, 0.5),
      p99ms: percentile(latencies, 0.99),
      errors: 0,
      ...(keepLatencies ? { latencies } : {}),
    };
  })();
}

/** Case a alone in a fresh process (the `fresh` figures: the first messages after a start). */
async function rawUndici() {
  const { Pool } = require('undici');
  const pool = new Pool(opt.origin, { connections: opt.connections, pipelining: 1 });
  await undiciRun(pool, opt.warmup, opt.concurrency);
  const result = await withRss(() => undiciRun(pool, opt.messages, opt.concurrency));
  await pool.close();
  return result;
}

/**
 * The order of the turns: a cycle through `n` cases in which each case comes right after each
 * other one exactly once, the join from the cycle's end to its start included (an Euler circuit of
 * the complete directed graph; for 3 cases 0 1 0 2 1 2, where each case has 2 turns). The process's
 * CPU time of a turn also holds collection work left by the turn before, so no case may follow one
 * case more often than another.
 */
function turnCycle(n) {
  if (n <= 1) return [0];
  const next = Array.from({ length: n }, (_, v) =>
    Array.from({ length: n }, (__, w) => w)
      .filter((w) => w !== v)
      .reverse(),
  );
  const stack = [0];
  const circuit = [];
  while (stack.length) {
    const v = stack[stack.length - 1];
    if (next[v].length) stack.push(next[v].pop());
    else circuit.push(stack.pop());
  }
  return circuit.reverse().slice(0, -1); // the last step returns to the start: the cycle repeats
}

/**
 * The SQL comparison: the cases `opt.cases` (of raw undici, our sql node, the bare undici node,
 * the core http request node with a function node) in ONE process, one Node-RED runtime, taking
 * turns in batches after a warm-up of every case. "b/a" is then what the issue defines, our node
 * over raw undici in the same process, and a machine whose load drifts (2 shared cores, the
 * stand-in on one of them) hits every case alike, where separate processes were measured seconds
 * apart with their own garbage collector's state (bench/README.md, "Method"). The turns follow
 * turnCycle, so that each case follows each other one equally often. Reports, per case and turn,
 * msg/s and process CPU per message, and the latencies of all its turns pooled.
 */
async function sqlCompare() {
  const { Pool } = require('undici');
  const names = opt.cases;
  const flow = [tab, server(), sink, catcher];
  if (names.includes('sql')) flow.push({ ...FLOWS.sql().at(-1), id: 'sql' });
  if (names.includes('bare')) flow.push({ ...FLOWS.bare().at(-1), id: 'bare' });
  if (names.includes('http'))
    flow.push(
      ...FLOWS.http()
        .slice(-2)
        .map((n) => (n.id === 'in' ? { ...n, id: 'http' } : n)),
    );
  const red = await startRed(flow);
  const pool = new Pool(opt.origin, { connections: opt.connections, pipelining: 1 });
  const { concurrency } = opt;
  // c is ten times slower than the others: its batches are a tenth, so a turn takes about as long.
  const batchOf = (c, n) => (c === 'http' ? Math.ceil(n / 10) : n);
  const CASES = {
    undici: (n, keepLatencies) => undiciRun(pool, n, concurrency, { keepLatencies }),
    sql: (n, keepLatencies) => drive(red, MESSAGES.sql, n, concurrency, { id: 'sql', keepLatencies }),
    http: (n, keepLatencies) => drive(red, MESSAGES.http, n, concurrency, { id: 'http', keepLatencies }),
    bare: (n, keepLatencies) => drive(red, MESSAGES.bare, n, concurrency, { id: 'bare', keepLatencies }),
  };
  try {
    const cycle = turnCycle(names.length).map((k) => names[k]);
    const turnsPerCycle = Math.max(1, names.length - 1);
    // The warm-up takes turns as the measured phase does, `warmup` messages per case (c too: it
    // needs as many calls as the others before V8 has compiled its path); warmed one case after the
    // other, the first measured turns had still run 15-34% slower.
    for (const c of cycle) await CASES[c](Math.ceil(opt.warmup / turnsPerCycle), false);
    const turns = Object.fromEntries(names.map((c) => [c, []]));
    const latencies = Object.fromEntries(names.map((c) => [c, []]));
    const startRss = process.memoryUsage.rss();
    let peak = startRss;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 10);
    for (let t = 0; t < (opt.turns * cycle.length) / turnsPerCycle; t++) {
      const c = cycle[t % cycle.length];
      const cpu = process.cpuUsage();
      const res = await CASES[c](batchOf(c, opt.batch), true);
      const used = process.cpuUsage(cpu);
      turns[c].push({
        perSecond: res.perSecond,
        cpuUsPerMsg: (used.user + used.system) / res.messages,
        errors: res.errors,
      });
      for (const l of res.latencies) latencies[c].push(l);
    }
    clearInterval(timer);
    const cases = Object.fromEntries(
      names.map((c) => {
        const l = latencies[c].sort((x, y) => x - y);
        return [
          c,
          {
            messages: batchOf(c, opt.batch),
            p50ms: percentile(l, 0.5),
            p99ms: percentile(l, 0.99),
            errors: turns[c].reduce((n, x) => n + x.errors, 0),
            turns: turns[c].map((x) => Math.round(x.perSecond)),
            cpuTurns: turns[c].map((x) => Math.round(x.cpuUsPerMsg * 10) / 10),
          },
        ];
      }),
    );
    return { cases, rssStartMB: startRss / 2 ** 20, rssPeakMB: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20 };
  } finally {
    await pool.close();
    await red.stop();
  }
}

async function inRuntime(
  flow,
  makeMsg,
  { total = opt.messages, concurrency = opt.concurrency, warmup = opt.warmup, outcomesPerMsg } = {},
) {
  const red = await startRed(flow);
  try {
    if (warmup) await drive(red, makeMsg, warmup, concurrency, { outcomesPerMsg });
    return await withRss(() => drive(red, makeMsg, total, concurrency, { outcomesPerMsg }));
  } finally {
    await red.stop();
  }
}

/**
 * RSS, and what JavaScript still holds (V8's heap in use plus memory outside it that objects own:
 * Buffers), after the garbage collector ran to a standstill (the worker runs with --expose-gc).
 */
async function settledMemory() {
  for (let i = 0; i < 4; i++) {
    global.gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { rssMB: m.rss / 2 ** 20, heldMB: (m.heapUsed + m.external) / 2 ** 20 };
}

/**
 * Case 2: 100,000 messages pushed in as fast as Node-RED takes them while the server is slow,
 * into the sql node (`memory`) or into a function node that throws (`memory-floor`: what
 * Node-RED itself costs for 100,000 errors to Catch). Reports peak RSS growth during the burst
 * and what is retained after it ended and the GC ran.
 */
async function memory(floor) {
  const red = await startRed(floor ? FLOWS.floor() : FLOWS.sql());
  try {
    if (!floor) await drive(red, () => ({ query: QUERY }), 200, 32); // warm: pool, JIT
    const before = await settledMemory();
    const burst = await withRss(
      () =>
        new Promise((resolve) => {
          const input = red.node('in');
          const total = opt.messages;
          let outcomes = 0;
          let errors = 0;
          const t0 = process.hrtime.bigint();
          globalThis.__bench = {
            arrived(msg) {
              if (msg.error) errors++;
              if (++outcomes === total)
                resolve({
                  messages: total,
                  seconds: Number(process.hrtime.bigint() - t0) / 1e9,
                  errors,
                  answered: total - errors,
                });
            },
          };
          let fed = 0;
          // 1,000 messages per tick: a burst far faster than the server answers.
          const burst = () => {
            for (let i = 0; i < 1000 && fed < total; i++, fed++) input.receive({ query: `${QUERY} /* slow */` });
            if (fed < total) setImmediate(burst);
          };
          burst();
        }),
    );
    // the burst is over: every message has its outcome; let Node-RED's own queues drain too
    await new Promise((r) => setTimeout(r, 200));
    const after = await settledMemory();
    // RSS after the burst is the allocator's business (from Node 22 on, V8 keeps the pages it grew
    // into: a function node that throws keeps as much); what a leak would hold is the heap.
    return {
      ...burst,
      rssStartMB: before.rssMB,
      retainedMB: after.heldMB - before.heldMB,
      retainedRssMB: after.rssMB - before.rssMB,
    };
  } finally {
    await red.stop();
  }
}

/**
 * One 1,000,000-row query, timed from the feed to the part (or message) with the last row, with
 * peak RSS sampled every 10 ms; RSS before is taken after a forced GC.
 */
async function stream(split) {
  const red = await startRed(FLOWS.stream(split));
  try {
    // Warm-up: the server's version, the pool, the JIT (a small query through the same node).
    await drive(red, () => ({ query: QUERY }), 50, 1);
    global.gc?.();
    return await withRss(
      () =>
        new Promise((resolve, reject) => {
          let rows = 0;
          const t0 = process.hrtime.bigint();
          globalThis.__bench = {
            arrived(msg) {
              if (msg.error) {
                reject(new Error(msg.error.message));
                return;
              }
              rows += msg.payload.length;
              if (!split || msg.complete) {
                const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
                resolve({
                  rows,
                  seconds,
                  rowsPerSecond: rows / seconds,
                  perSecond: rows / seconds,
                  p50ms: 0,
                  p99ms: 0,
                  errors: 0,
                });
              }
            },
          };
          red.node('in').receive({ query: 'SELECT * FROM sensor_history /* million */' });
        }),
    );
  } finally {
    await red.stop();
  }
}

/** The table node's outbox (docs/outbox.md): on, with a key column, as an IoT pipeline sets it. */
const OUTBOX = { outbox: true, outboxSizeMB: 100, outboxMaxAgeH: 24, keyColumn: 'sensor_id' };
const reading = (i) => ({ payload: { sensor_id: i, temperature: 21.5, note: "it's ok" } });

/**
 * The shared state store of the bench (docs/state-store.md): the machine's PostgreSQL
 * (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/test, trust auth), in a schema of the
 * bench's own (opt.schema), chosen by the server node: `shared(flow)` is the flow on it.
 */
const PG_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const shared = (flow, leaseSeconds = 15) => [
  ...flow.map((n) => (n.id === 'srv' ? { ...n, stateStore: 'store' } : n)),
  {
    id: 'store',
    type: 'mindsdb-state-store',
    name: 'bench',
    url: PG_URL,
    schema: opt.schema,
    leaseSeconds,
    forgetDays: 7,
  },
];
async function pgQuery(text) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}
/** Kept rows in the bench's schema (none: it does not exist yet). */
const keptShared = () =>
  pgQuery(`SELECT count(*)::int AS n FROM "${opt.schema}".outbox`).then(
    (r) => r[0].n,
    () => 0,
  );
/** The bench's schema goes after each case (a fresh store per process). */
const dropShared = () => pgQuery(`DROP SCHEMA IF EXISTS "${opt.schema}" CASCADE`).catch(() => undefined);

/** Rows in the outbox of the store in `userDir` (read beside the runtime that writes them). */
function keptIn(userDir) {
  try {
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(path.join(userDir, 'node-red-mindsdb.sqlite'), { readOnly: true });
    try {
      return Number(db.prepare('SELECT count(*) AS n FROM outbox').get().n);
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/**
 * Counts outputs at the sink; `done` resolves with msg/s once `total` arrived, timed from `start()`
 * (`early`: outputs that came before it, from a replay that began while its runtime started).
 */
function outputsOf(total) {
  let t0 = process.hrtime.bigint();
  let out = 0;
  let errors = 0;
  let early = 0;
  const done = new Promise((resolve) => {
    globalThis.__bench = {
      arrived(msg) {
        if (msg.error) errors++;
        if (++out === total) {
          const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
          resolve({ messages: total, seconds, perSecond: total / seconds, p50ms: 0, p99ms: 0, errors, early });
        }
      },
    };
  });
  return {
    done,
    start() {
      t0 = process.hrtime.bigint();
      early = out;
    },
  };
}

/**
 * outbox.replay_vs_live. The replay: `messages` readings kept while MindsDB refused every
 * connection (the flow points at a port nothing listens on), Node-RED stopped, then started again
 * on the same user directory with the stand-in, which sends the backlog at once: timed from the
 * runtime's start (its nodes exist) until every kept reading came out. The live side (`live: true`)
 * is the same flow on a fresh runtime, the same readings fed at once right after its start; both
 * cold (no warm-up: a replay has none).
 */
async function outboxReplay(live) {
  const flow = (origin) => (opt.schema ? shared(FLOWS.table(true, OUTBOX, origin)) : FLOWS.table(true, OUTBOX, origin));
  if (live) {
    const red = await startRed(flow());
    try {
      return await withRss(() => {
        const outputs = outputsOf(opt.messages);
        const input = red.node('in');
        outputs.start();
        for (let i = 0; i < opt.messages; i++) input.receive(reading(i));
        return outputs.done;
      });
    } finally {
      await red.stop();
    }
  }
  // Node-RED starts once per process: the backlog is kept by a runtime in a process of its own.
  const filled = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'outbox-fill', JSON.stringify(opt)], {
    encoding: 'utf8',
  });
  if (filled.status !== 0) throw new Error(`outbox-fill failed: ${filled.stderr}`);
  const fill = JSON.parse(filled.stdout.trim().split('\n').pop());
  let red;
  try {
    return await withRss(async () => {
      const outputs = outputsOf(opt.messages);
      red = await startRed(flow(), { userDir: fill.userDir });
      // timed from the runtime's start, as the live side: the replay began while it started (`early`)
      outputs.start();
      return outputs.done;
    });
  } finally {
    if (red) await red.stop();
    else fs.rmSync(fill.userDir, { recursive: true, force: true });
  }
}

/** The backlog of the replay case: `messages` readings kept while nothing answers; the user directory is kept. */
async function outboxFill() {
  const down = FLOWS.table(true, OUTBOX, 'http://127.0.0.1:9');
  const fill = await startRed(opt.schema ? shared(down, opt.leaseSeconds) : down);
  const input = fill.node('in');
  for (let i = 0; i < opt.messages; i++) input.receive(reading(i));
  while ((opt.schema ? await keptShared() : keptIn(fill.userDir)) < opt.messages)
    await new Promise((r) => setTimeout(r, 50));
  if (opt.die) {
    // outbox.takeover_leases: this copy dies as SIGKILL kills it, its rows held under its lease
    process.stdout.write(`${JSON.stringify({ kept: opt.messages })}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
  await fill.stop({ keep: true });
  return { userDir: fill.userDir, kept: opt.messages };
}

/**
 * outbox.takeover_leases: a copy (this runtime, healthy) and another copy of the same flows on the
 * same shared store (a process of its own) that keeps `messages` readings while its MindsDB is
 * away, then dies (SIGKILL). The time from its death to the first of its readings sent by this
 * copy, in lease periods (target ≤ 2: its lease runs out within one, and this copy looks for rows
 * to take over every third of one).
 */
async function outboxTakeover() {
  const leaseSeconds = opt.leaseSeconds;
  const red = await startRed(shared(FLOWS.table(true, OUTBOX), leaseSeconds));
  let first = 0;
  globalThis.__bench = {
    arrived() {
      first ||= Date.now();
    },
  };
  try {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), 'outbox-fill', JSON.stringify({ ...opt, die: true })],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const died = await new Promise((resolve, reject) => {
      child.once('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve(Date.now()) : reject(new Error(`the other copy ended with ${code}`)),
      );
    });
    // The first of its readings; those it had in a request when it died are in doubt, and wait for the server's
    // timeout before they are looked up (docs/outbox.md), so "all" is not the figure.
    while (!first) {
      if (Date.now() - died > 20 * leaseSeconds * 1000) throw new Error('none of its readings was sent');
      await new Promise((r) => setTimeout(r, 5));
    }
    const leases = (first - died) / (leaseSeconds * 1000);
    return { leases, firstMs: first - died, perSecond: 0, p50ms: 0, p99ms: 0, errors: 0 };
  } finally {
    await red.stop();
  }
}

/**
 * health.probes_per_min_busy: the sql node answered for `seconds` (closed loop, 8 in flight), and
 * the probes its server's health watcher sent meanwhile (it counts them), per minute.
 */
async function healthBusy() {
  const red = await startRed(FLOWS.sql());
  try {
    const health = red.node('srv').client.health;
    const before = health.probes;
    const until = Date.now() + opt.seconds * 1000;
    let messages = 0;
    while (Date.now() < until) messages += (await drive(red, MESSAGES.sql, 2000, 8)).messages;
    const probes = health.probes - before;
    return {
      messages,
      seconds: opt.seconds,
      probes,
      probesPerMinute: probes / (opt.seconds / 60),
      perSecond: messages / opt.seconds,
      p50ms: 0,
      p99ms: 0,
      errors: 0,
    };
  } finally {
    await red.stop();
  }
}

const CASES = {
  stream: () => stream(true),
  'stream-whole': () => stream(false),
  undici: rawUndici,
  'sql-compare': sqlCompare,
  sql: () => inRuntime(FLOWS.sql(), MESSAGES.sql),
  http: () => inRuntime(FLOWS.http(), MESSAGES.http),
  bare: () => inRuntime(FLOWS.bare(), MESSAGES.bare),
  // A stream of single-row readings, all in flight at once as a burst of sensor messages would be.
  // 1,000 messages of warm-up first, as the SQL cases get: a colder runtime measures the JIT.
  'predict-on': () =>
    inRuntime(FLOWS.predict(true), (i) => ({ payload: { sensor_id: i, temperature: 21.5, humidity: 40 } }), {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.predictWarmup ?? 1000,
    }),
  'predict-off': () =>
    inRuntime(FLOWS.predict(false), (i) => ({ payload: { sensor_id: i, temperature: 21.5, humidity: 40 } }), {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.predictWarmup ?? 1000,
    }),
  'insert-on': () =>
    inRuntime(FLOWS.table(true), (i) => ({ payload: { sensor_id: i, temperature: 21.5, note: "it's ok" } }), {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.warmup,
    }),
  'insert-off': () =>
    inRuntime(FLOWS.table(false), (i) => ({ payload: { sensor_id: i, temperature: 21.5, note: "it's ok" } }), {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.warmup,
    }),
  // outbox.cost: micro-batched inserts with the outbox on (each written to the store first) against insert-on
  'insert-outbox': () =>
    inRuntime(FLOWS.table(true, OUTBOX), reading, {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.warmup,
    }),
  // The same three on the shared store (PostgreSQL), each process in a schema of its own.
  'insert-outbox-shared': () =>
    inRuntime(shared(FLOWS.table(true, OUTBOX)), reading, {
      total: opt.messages,
      concurrency: opt.messages,
      warmup: opt.warmup,
    }),
  'outbox-replay-shared': () => outboxReplay(false),
  'outbox-live-shared': () => outboxReplay(true),
  'outbox-takeover': outboxTakeover,
  'outbox-replay': () => outboxReplay(false),
  'outbox-live': () => outboxReplay(true),
  'outbox-fill': outboxFill,
  'health-busy': healthBusy,
  memory: () => memory(false),
  'memory-floor': () => memory(true),
  'large-split': () =>
    inRuntime(FLOWS.large(true), () => ({ query: 'SELECT big' }), {
      total: 1,
      concurrency: 1,
      warmup: 0,
      outcomesPerMsg: 200,
    }),
  'large-one': () =>
    inRuntime(FLOWS.large(false), () => ({ query: 'SELECT big' }), { total: 1, concurrency: 1, warmup: 0 }),
};

const run = CASES[caseName];
if (!run) {
  console.error(`unknown case ${caseName}`);
  process.exit(2);
}
// A case on the shared store drops its schema after itself (the fill leaves it for the replay that follows).
const cleanup = opt.schema && caseName !== 'outbox-fill' ? dropShared : async () => undefined;
const ran = (r) => cleanup().then(() => r);
run()
  .then(ran, (err) => cleanup().then(() => Promise.reject(err)))
  .then(
    (r) => {
      process.stdout.write(
        `${JSON.stringify({ case: caseName, ...r, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
      );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
