// A real Node-RED runtime in this process, started the way node-red's own red.js does it
// (RED.init + RED.start), without the editor or the HTTP nodes, and without the test helper (its
// spies on every node would distort timing). This package and the benchmark's own nodes are
// installed into a temporary user directory by symlink, as a user would have them.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
const require = createRequire(path.join(root, 'package.json'));
const pkg = require('./package.json');

export function nodeRedVersion() {
  return require('node-red/package.json').version;
}

/**
 * Starts Node-RED with `flows`; resolves once every node in the flow exists. `userDir`: start on
 * that user directory (made by an earlier run, which kept it: `stop({ keep: true })`), so what the
 * nodes stored there (an outbox) is there again.
 */
export async function startRed(flows, { userDir: reuse } = {}) {
  const userDir = reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-bench-'));
  const link = (target, name) => {
    const at = path.join(userDir, 'node_modules', ...name.split('/'));
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at, 'dir');
  };
  if (!reuse) {
    link(root, pkg.name);
    link(path.join(root, 'bench', 'red-nodes'), 'bench-nodes');
  }
  fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'bench-user', private: true }));
  // Node-RED tells flow nodes from config nodes by their x/y position.
  const placed = flows.map((n, i) => (n.z && n.x === undefined ? { x: 100, y: 40 * (i + 1), ...n } : n));
  fs.writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(placed));
  const RED = require('node-red');
  RED.init(http.createServer(), {
    userDir,
    flowFile: 'flows.json',
    credentialSecret: false,
    // node-red's red.js sets this; without it the core nodes (catch, function, http request) are missing.
    coreNodesDir: path.dirname(require.resolve('@node-red/nodes/package.json')),
    httpAdminRoot: false,
    httpNodeRoot: false,
    disableEditor: true,
    logging: { console: { level: 'error', metrics: false, audit: false } },
    externalModules: { autoInstall: false },
  });
  await RED.start();
  const ids = flows.filter((n) => n.type !== 'tab').map((n) => n.id);
  for (let i = 0; i < 500 && !ids.every((id) => RED.nodes.getNode(id)); i++)
    await new Promise((r) => setTimeout(r, 20));
  const missing = ids.filter((id) => !RED.nodes.getNode(id));
  if (missing.length) throw new Error(`Node-RED did not start nodes ${missing.join(', ')}`);
  return {
    node: (id) => RED.nodes.getNode(id),
    userDir,
    async stop({ keep = false } = {}) {
      await RED.stop();
      if (!keep) fs.rmSync(userDir, { recursive: true, force: true });
    },
  };
}
