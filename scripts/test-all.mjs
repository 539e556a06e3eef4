#!/usr/bin/env node
// `npm test`: every suite, in order, on a fresh clone too (installs dependencies first).
// The package's floor is Node 22.19 (undici 8); Node-RED 3.1 and 4.1 run on Node 22, Node-RED 5.0
// on Node 22, 24 and 26 (the active LTS). Each (Node-RED, Node) pair is a leg:
//   unit      against an in-process fake MindsDB, on every leg (the legs other than 4.1 on Node 22
//             fuzz 2,000 messages per node, not 10,000)
//   runtime   the packed tarball installed into a real Node-RED, a flow through it, on every leg
//   floor     the packed tarball in a real Node-RED 4.1 and 3.1 on Node 20, below the package's floor:
//             Node-RED starts, each node type is listed with the error that names the Node.js it
//             needs and the one found (log, admin API, the palette manager in Chromium)
//   scale     examples/iot-scale-out.json on two Node-RED runtimes sharing an MQTT stream; and a
//             Node-RED killed (SIGKILL) mid-stream and mid-batch, then started again (4.1, Node 22)
//   chaos     the outbox (test/chaos/outbox-chaos.test.js): a MindsDB 25.14.1 and a 26.1.0 of its own (ports
//             MINDSDB_CHAOS_PORT / MINDSDB_CHAOS_26_PORT, default 47380 / 47580) stopped and started under
//             20,000 MQTT readings while Node-RED is SIGKILLed twice; PostgreSQL and Mosquitto. Then, on the
//             same servers (test/chaos/mindsdb-lines.js), the shared state store (test/chaos/shared-store.test.js):
//             Node-RED copies on one PostgreSQL store of the test's own (PG_CLUSTER_PORT, default 25432), one
//             SIGKILLed for good during a MindsDB outage, the store restarted; incremental reads and a
//             conversation across two copies
//   e2e       against a real MindsDB 25.14.1 and then 26.1.0 (each started, seeded and stopped by
//             scripts/with-mindsdb.mjs when its URL does not answer; test/e2e/incremental-kill.e2e.js
//             runs a real Node-RED in incremental mode over 10,000 PostgreSQL rows and kills it
//             with SIGKILL once, about 40 s a leg), each with a second one with
//             authentication on. 25.14.1 at MINDSDB_URL / MINDSDB_AUTH_PORT; 26.1.0 at MINDSDB_26_URL /
//             MINDSDB_26_AUTH_PORT, by default the same ports + 200, so neither reuses the other
//   browser   the editor in Debian's Chromium on Node-RED 4.1 and 3.1 (Node 22), and 5.0 (Node 22)
//             (Chromium installed with apt when missing and we are root)
//   sidebar   the MindsDB sidebar, SQL completion and preview in Chromium against a real MindsDB 25.14.1
//             and then 26.1.0 (started and seeded when they do not answer), on Node-RED 4.1 and 5.0, Node 22
//   dashboards the example dashboards in Chromium against a real MindsDB 25.14.1 (at MINDSDB_URL,
//             started and seeded when it does not answer), on Node-RED 4.1 and on 5.0, Node 22
// The suites that are not per leg run on Node 22, the oldest line every Node-RED here runs on; the
// floor suite on Node 20 (the machine's own when it is 20). Node 20, 22, 24 and 26 come from the npm registry on first use (scripts/node-version.mjs), MindsDB's SQL parser from
// PyPI (.cache/sql-parser-venv-<version>, test/support/mindsdb-sql-parser.js). Every suite runs even
// when an earlier one failed; the exit code says whether all passed.
//
// The suites run in two lanes side by side (TEST_LANES=1 runs them one after another), because
// most of their time is spent waiting (on MindsDB's start-up and training, on Node-RED, on a
// browser), not computing: the first lane needs no MindsDB (lint, unit, packed tarball, the floor,
// MQTT, the editor in Chromium), the second runs the real MindsDB servers (e2e, the chaos suite with
// servers of its own, sidebar, dashboards). Each unit leg runs its files in two mocha workers
// (--parallel). (Three lanes took 14 min instead of about 20, but on 2 cores the load made tests
// that wait on a browser or a timer fail now and then.) MindsDB is installed (both lines, once)
// before the first suite that needs it. Each suite's output is written to
// test-results/logs/<suite>.log and echoed with a lane prefix; the summary names the logs of the
// suites that failed and repeats what failed in each.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium, ensureDeps } from './ensure-deps.mjs';
import { nodeBinary } from './node-version.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');

ensureDeps();
// MindsDB's SQL parser (PyPI mindsdb_sql_parser, the pinned MindsDB's version) in a small venv of
// its own, before the suites that use it (the unit stand-in, the quoting tests, the browser and
// runtime suites' stand-in); without it those suites fail with the reason.
try {
  const sqlParser = createRequire(import.meta.url)('../test/support/mindsdb-sql-parser.js');
  for (const version of sqlParser.versions()) sqlParser.ensureVenv(version, (line) => console.error(line));
} catch (err) {
  console.error(`[setup] ${err.message}`);
}
// Without a Node binary the legs that need it fail with the reason; the other suites still run.
const nodeErrors = new Map();
const nodeOf = (major) => {
  try {
    return nodeBinary(major);
  } catch (err) {
    nodeErrors.set(major, err.message);
    console.error(`[setup] ${err.message}`);
    return null;
  }
};
const nodes = { 20: nodeOf(20), 22: nodeOf(22), 24: nodeOf(24), 26: nodeOf(26) };
const node22Path = nodes[22];
/** Why a leg has no Node binary: the error of the Node its name says it runs on. */
const notRun = (name) =>
  nodeErrors.get(Number((/Node (\d+)/.exec(name) ?? [])[1])) ?? [...nodeErrors.values()].join('; ');
/**
 * A command through scripts/with-mindsdb.mjs (its seeding uses the package's client), both on Node 22; none without
 * Node 22 (the leg then says why).
 */
const withMindsDB = (...args) =>
  node22Path ? [node22Path, 'scripts/with-mindsdb.mjs', ...args, node22Path, mocha] : [null];
const e2e = [...withMindsDB('--seed', '--auth'), '--config', 'test/e2e/.mocharc.json'];
const base = new URL(process.env.MINDSDB_URL || 'http://127.0.0.1:47334');
const authPort = Number(process.env.MINDSDB_AUTH_PORT) || 47336;
const url26 = process.env.MINDSDB_26_URL || `${base.protocol}//${base.hostname}:${Number(base.port || 80) + 200}`;
const authPort26 = Number(process.env.MINDSDB_26_AUTH_PORT) || authPort + 200;
/** Every supported (Node-RED, Node) pair: the package alias, its label, the Node major. */
const LEGS = [
  ['node-red', '4.1', 22],
  ['node-red-3-1', '3.1', 22],
  ['node-red-5-0', '5.0', 22],
  ['node-red-5-0', '5.0', 24],
  ['node-red-5-0', '5.0', 26],
];
const biome = path.join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');
const suites = [
  // The formatter and the linter (biome.json): a violation fails CI like a failed test.
  ['lint (Biome: formatted, linted, no warning)', [node22Path, biome, 'ci', '--error-on-warnings'], {}],
  // 4.1 on Node 22 fuzzes the full 10,000 messages per node; the other legs 2,000.
  ...LEGS.map(([pkg, nr, major], i) => [
    `unit (Node-RED ${nr}, Node ${major})`,
    [nodes[major], mocha, '--config', 'test/.mocharc.json', '--parallel', '--jobs', '2'],
    { NODE_RED_PACKAGE: pkg, ...(i === 0 ? {} : { FUZZ_PER_NODE: '2000' }) },
  ]),
  ...LEGS.map(([pkg, nr, major]) => [
    `runtime (packed tarball in Node-RED ${nr}, Node ${major})`,
    [nodes[major], mocha, '--config', 'test/runtime/.mocharc.json'],
    { NODE_RED_PACKAGE: pkg },
  ]),
  [
    'floor (the packed tarball in Node-RED 4.1 and 3.1 on Node 20, below the floor: the error each node loads with)',
    [nodes[20], mocha, '--config', 'test/floor/.mocharc.json'],
    {},
  ],
  [
    'scale-out (2 Node-RED runtimes, Node 22, Mosquitto at MQTT_URL or 127.0.0.1:1883)',
    [node22Path, mocha, '--timeout', '120000', '--exit', 'test/scale/scale-out.test.js'],
    {},
  ],
  [
    'kill and restart (Node-RED killed mid-stream and mid-batch, Node 22, Mosquitto at MQTT_URL or 127.0.0.1:1883)',
    [node22Path, mocha, '--timeout', '120000', '--exit', 'test/scale/kill-restart.test.js'],
    {},
  ],
  ['e2e (real MindsDB 25.14.1, Node 22)', e2e, { MINDSDB_VERSION: '25.14.1' }],
  [
    'e2e (real MindsDB 26.1.0, Node 22)',
    e2e,
    { MINDSDB_VERSION: '26.1.0', MINDSDB_URL: url26, MINDSDB_AUTH_PORT: String(authPort26) },
  ],
  ['browser (Node-RED 4.1, Node 22, Chromium)', [node22Path, mocha, '--config', 'test/browser/.mocharc.json'], {}],
  [
    'browser (Node-RED 3.1, Node 22, Chromium)',
    [node22Path, mocha, '--config', 'test/browser/.mocharc.json'],
    { NODE_RED_PACKAGE: 'node-red-3-1' },
  ],
  [
    'browser (Node-RED 5.0, Node 22, Chromium)',
    [node22Path, mocha, '--config', 'test/browser/.mocharc.json'],
    { NODE_RED_PACKAGE: 'node-red-5-0' },
  ],
  // Its own MindsDB of each line, stopped and started under load: after the e2e legs, in their lane.
  [
    'chaos (the outbox: 20,000 readings while MindsDB 25.14.1 and 26.1.0 of its own are stopped and started three times and Node-RED is killed twice; the shared store: two Node-RED copies on one PostgreSQL store, one killed for good, the store restarted; PostgreSQL, Mosquitto; Node 22)',
    [
      node22Path,
      mocha,
      '--timeout',
      '900000',
      '--exit',
      'test/chaos/outbox-chaos.test.js',
      'test/chaos/shared-store.test.js',
    ],
    {},
  ],
  // The sidebar, completion and preview against each real MindsDB line, Node-RED 4.1 then 5.0 (Node 22).
  [
    'sidebar (real MindsDB 25.14.1; Node-RED 4.1 and 5.0 on Node 22; Chromium)',
    [...withMindsDB('--seed'), '--config', 'test/sidebar/.mocharc.json'],
    { MINDSDB_VERSION: '25.14.1', MINDSDB_JOBS: '1' },
  ],
  [
    'sidebar (real MindsDB 26.1.0; Node-RED 4.1 and 5.0 on Node 22; Chromium)',
    [...withMindsDB('--seed'), '--config', 'test/sidebar/.mocharc.json'],
    { MINDSDB_VERSION: '26.1.0', MINDSDB_URL: url26, MINDSDB_JOBS: '1' },
  ],
  // One MindsDB for both runtimes: the suite starts Node-RED 4.1, then 5.0, both on Node 22.
  [
    'dashboards (real MindsDB 25.14.1; Node-RED 4.1 and 5.0 on Node 22; Chromium)',
    [...withMindsDB('--seed'), '--config', 'test/dashboards/.mocharc.json'],
    { MINDSDB_VERSION: '25.14.1' },
  ],
];
// A missing browser is reported by the browser suite itself; the other suites still run.
try {
  ensureChromium();
} catch (err) {
  console.error(`[setup] could not install chromium: ${err.message}`);
}

/** The suites that start a real MindsDB (and so wait until it is installed). */
const needsMindsDB = ([name]) => /^(e2e|chaos|sidebar|dashboards)/.test(name);
const lanes =
  Number(process.env.TEST_LANES) === 1
    ? [suites]
    : [suites.filter((s) => !needsMindsDB(s)), suites.filter(needsMindsDB)];

/** Installs both MindsDB lines (scripts/mindsdb-local.sh install, a no-op when installed), once, one after the other. */
let installing;
function mindsdbInstalled(prefix) {
  installing ??= (async () => {
    for (const version of ['25.14.1', '26.1.0']) {
      const code = await new Promise((resolve) => {
        const child = spawn('bash', [path.join(root, 'scripts', 'mindsdb-local.sh'), 'install'], {
          cwd: root,
          stdio: ['ignore', 'inherit', 'inherit'],
          env: { ...process.env, MINDSDB_VERSION: version },
        });
        child.on('error', () => resolve(1));
        child.on('close', resolve);
      });
      // A failed install is reported by the suites that need it (with-mindsdb tries again and says why).
      if (code !== 0) console.log(`${prefix}[setup] installing MindsDB ${version} failed (exit ${code})`);
    }
  })();
  return installing;
}
const logs = path.join(root, 'test-results', 'logs');
fs.mkdirSync(logs, { recursive: true });

/** Runs one suite, echoing its lines with the lane's prefix; resolves with its result. */
function run([name, [cmd, ...args], env], prefix) {
  const log = path.join(
    logs,
    `${name
      .replace(/[^\w.]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80)}.log`,
  );
  console.log(`${prefix}=== ${name} (log: ${path.relative(root, log)})`);
  if (!cmd) {
    console.log(`${prefix}not run: ${notRun(name)}`);
    return Promise.resolve({ name, ok: false, seconds: 0, log });
  }
  const out = fs.createWriteStream(log);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.on('data', (chunk) => {
        out.write(chunk);
        const lines = (rest + chunk).split('\n');
        rest = lines.pop();
        for (const line of lines) console.log(`${prefix}${line}`);
      });
      stream.on('end', () => {
        if (rest) console.log(`${prefix}${rest}`);
      });
    }
    child.on('error', (err) => {
      out.write(`\n${err.message}\n`);
    });
    child.on('close', (code) => {
      out.end();
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`${prefix}=== ${code === 0 ? 'passed' : 'FAILED'}: ${name} (${seconds} s)`);
      resolve({ name, ok: code === 0, seconds, log });
    });
  });
}

/** The "N failing" section of a suite's log (at most 80 lines), or its last 30 lines without one. */
function failureReport(log) {
  let text = '';
  try {
    text = fs.readFileSync(log, 'utf8');
  } catch (err) {
    return `(no log: ${err.message})`;
  }
  const lines = text.split('\n');
  const at = lines.findLastIndex((line) => /^\s*\d+ failing\b/.test(line));
  const shown = at >= 0 ? lines.slice(at, at + 80) : lines.slice(-30);
  return shown.join('\n');
}

const started = Date.now();
const results = (
  await Promise.all(
    lanes.map(async (lane, i) => {
      const prefix = lanes.length > 1 ? `[${i + 1}] ` : '';
      const done = [];
      for (const suite of lane) {
        if (needsMindsDB(suite)) await mindsdbInstalled(prefix);
        done.push(await run(suite, prefix));
      }
      return done;
    }),
  )
).flat();
console.log('\n=== summary');
for (const r of results)
  console.log(
    `${r.ok ? 'passed' : 'FAILED'}  ${r.name}  (${r.seconds} s)${r.ok ? '' : `  log: ${path.relative(root, r.log)}`}`,
  );
// CI shows only the output's last section (from the last "===" line): what each failed suite's mocha
// reported as failing (or its last lines) is in it, so the summary alone says which test broke.
for (const r of results.filter((x) => !x.ok)) {
  console.log(`\n--- what failed in ${r.name}`);
  console.log(failureReport(r.log));
}
const failed = results.filter((r) => !r.ok).length;
console.log(
  `suites: ${results.length - failed} passed, ${failed} failed, in ${Math.round((Date.now() - started) / 60000)} min (${lanes.length} lane${lanes.length > 1 ? 's' : ''})`,
);
process.exit(failed ? 1 : 0);
