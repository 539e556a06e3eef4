/**
 * The package's Node.js floor, checked when a node file is loaded, before anything loads undici.
 * Every node file (src/mindsdb-*.ts) and the sidebar plugin import this module first. On an older
 * Node, undici 8 fails while it loads, with `TypeError: Cannot read properties of undefined
 * (reading 'bind')`, which names neither the package nor the cause. The palette's install is
 * refused there (Node-RED runs npm with --engine-strict), but a hand install only warns about
 * `engines`, and Node.js can be downgraded under the package. So each node file fails to load with
 * an error that says which Node.js the package needs and which one it found. Node-RED lists that
 * error for each node type in its log and in the palette manager, and it runs on without them.
 *
 * The floor is package.json's `engines.node`, the one place that says it.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What package.json says about the floor. */
interface PackageJson {
  name: string;
  engines: { node: string };
}

/** The oldest Node.js the range `>=22.19.0` admits, as [major, minor, patch]. */
export function floorOf(range: string): [number, number, number] {
  const m = /^>=\s*v?(\d+)\.(\d+)\.(\d+)\s*$/.exec(range);
  if (!m) throw new Error(`package.json engines.node must read ">=MAJOR.MINOR.PATCH", not "${range}"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** `found` (process.versions.node, "20.20.2") below the floor: the reason it cannot run, else undefined. */
export function belowFloor(pkg: PackageJson, found: string): string | undefined {
  const floor = floorOf(pkg.engines.node);
  const have = found.replace(/^v/, '').split('.').map(Number);
  const order = floor.map((part, i) => (have[i] ?? 0) - part).find((d) => d !== 0) ?? 0;
  if (order >= 0) return undefined;
  const needs = floor[2] === 0 ? `${floor[0]}.${floor[1]}` : floor.join('.');
  return (
    `${pkg.name} needs Node.js ${needs} or later, and this Node-RED runs on Node.js ${found}: its HTTP ` +
    `client (undici 8) cannot run there. Upgrade Node.js to ${needs} or later and restart Node-RED.`
  );
}

/**
 * The error a node file fails to load with. Node-RED keeps it as the node set's load error.
 * - The palette manager gets it as JSON, which keeps only enumerable properties: `message` is one.
 * - Node-RED 3.1 and 4.1 append "(line:N)" when the stack names the node file. Node-RED 4.1
 *   prints a plugin's whole error with console.log. So the stack is the message alone: it points
 *   at nothing but the Node.js version.
 */
export function nodeVersionError(reason: string): Error {
  const err = new Error(reason);
  Object.defineProperty(err, 'message', { value: reason, enumerable: true });
  err.stack = `Error: ${reason}`;
  return err;
}

// The package's own package.json, beside nodes/ (this file is nodes/runtime/node/floor.js).
const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as PackageJson;
const reason = belowFloor(pkg, process.versions.node);
if (reason) throw nodeVersionError(reason);
