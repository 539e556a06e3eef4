#!/usr/bin/env node
// `npm start`: Node-RED on http://127.0.0.1:1880 (PORT to change it) with this package and every
// example flow deployed, against the MindsDB at MINDSDB_URL (default http://127.0.0.1:47334), any version.
// When nothing answers there, a local MindsDB (MINDSDB_VERSION, default 25.14.1) is installed (first
// run), started and seeded, and a local stand-in LLM serves the agents example; the example
// dashboards (FlowFuse Dashboard 2.0, a devDependency) are at http://127.0.0.1:1880/dashboard.
// Ctrl-C stops Node-RED and that MindsDB. Node-RED comes from devDependencies and keeps its user
// directory in .node-red/ (git-ignored); its flows are written on the first run only, so your
// changes survive a restart (delete .node-red/flows.json to get the examples back).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DASHBOARD_PACKAGE,
  dashboardInstalled,
  demoFlows,
  demoLlmEnv,
  demoSettings,
  linkInto as linkPackage,
} from './demo-flows.mjs';
import { ensureDeps } from './ensure-deps.mjs';
import { ensureFloor } from './node-version.mjs';

// The package needs Node >= 22.19: on an older Node (these machines run 20) this script runs again
// on the pinned Node 22, which then runs Node-RED.
await ensureFloor();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const userDir = path.join(root, '.node-red');
const port = Number(process.env.PORT || 1880);
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

ensureDeps();
const { ensureMindsDB } = await import('./with-mindsdb.mjs');
let mindsdb;
try {
  mindsdb = await ensureMindsDB({ anyVersion: true });
} catch (err) {
  console.error(`[start] ${err.message}`);
  process.exit(1);
}

fs.mkdirSync(userDir, { recursive: true });
linkPackage(userDir, pkg.name);
// The example dashboards need FlowFuse Dashboard 2.0, a devDependency (npm ci installs it).
const withDashboard = dashboardInstalled();
if (withDashboard) linkPackage(userDir, DASHBOARD_PACKAGE);
else
  console.error(
    `[start] ${DASHBOARD_PACKAGE} is not installed (npm ci installs it): the dashboard examples will show unknown nodes`,
  );

/** Every example flow in one flows file, on the first run only (so the user's changes survive). */
function writeFlows() {
  const flowFile = path.join(userDir, 'flows.json');
  if (fs.existsSync(flowFile)) return false;
  const { flows, credentials } = demoFlows();
  fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
  // An example cannot carry credentials; credentialSecret is false below, so this file is plain
  // JSON, and Node-RED resolves the ${VAR} in it when the flows start.
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
  return true;
}

const fresh = writeFlows();
fs.writeFileSync(
  path.join(userDir, 'settings.js'),
  `module.exports = ${JSON.stringify(demoSettings(port), null, 2)};\n`,
);

console.log(
  `[start] Node-RED ${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'node-red', 'package.json'), 'utf8')).version}` +
    ` on http://127.0.0.1:${port}, MindsDB at ${mindsdb.url}${fresh ? ', example flows deployed' : ''}`,
);
if (withDashboard) {
  console.log(
    `[start] the example dashboards: http://127.0.0.1:${port}/dashboard` +
      (fresh
        ? ''
        : ' (flows from an earlier run kept: delete .node-red/flows.json to get the examples, dashboards included, back)'),
  );
}
const red = spawn(
  process.execPath,
  [
    path.join(root, 'node_modules', 'node-red', 'red.js'),
    '--userDir',
    userDir,
    '--settings',
    path.join(userDir, 'settings.js'),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, ...mindsdb.env, ...demoLlmEnv(mindsdb.env.LLM_DOUBLE_URL) },
  },
);
const shutdown = () => {
  red.kill('SIGINT');
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
red.on('exit', (code) => {
  mindsdb.stop();
  process.exit(code ?? 0);
});
