#!/usr/bin/env node
// `npm test`: every suite, in order, on a fresh clone too (installs dependencies first).
//   unit      against an in-process fake MindsDB, on Node-RED 4.1
//   compat    the same unit suite on Node-RED 3.1
//   e2e       against a real MindsDB (started, seeded and stopped by scripts/with-mindsdb.mjs
//             when MINDSDB_URL does not answer), plus a second one with authentication on
//   browser   the editor in Debian's Chromium on Node-RED 4.1 and 3.1 (Chromium installed with
//             apt when missing and we are root)
// Every suite runs even when an earlier one failed; the exit code says whether all passed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium, ensureDeps } from './ensure-deps.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');

ensureDeps();
const suites = [
  ['unit (Node-RED 4.1)', [process.execPath, mocha, '--config', 'test/.mocharc.json'], {}],
  ['unit (Node-RED 3.1)', [process.execPath, mocha, '--config', 'test/.mocharc.json'], { NODE_RED_PACKAGE: 'node-red-3-1' }],
  ['e2e (real MindsDB)', [process.execPath, 'scripts/with-mindsdb.mjs', '--seed', '--auth', process.execPath, mocha, '--config', 'test/e2e/.mocharc.json'], {}],
  ['browser (Node-RED 4.1, Chromium)', [process.execPath, mocha, '--config', 'test/browser/.mocharc.json'], {}],
  ['browser (Node-RED 3.1, Chromium)', [process.execPath, mocha, '--config', 'test/browser/.mocharc.json'], { NODE_RED_PACKAGE: 'node-red-3-1' }],
];
// A missing browser is reported by the browser suite itself; the other suites still run.
try { ensureChromium(); } catch (err) { console.error(`[setup] could not install chromium: ${err.message}`); }

const results = [];
for (const [name, [cmd, ...args], env] of suites) {
  console.log(`\n=== ${name}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  results.push({ name, ok: r.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log('\n=== summary');
for (const r of results) console.log(`${r.ok ? 'passed' : 'FAILED'}  ${r.name}  (${r.seconds} s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`suites: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
