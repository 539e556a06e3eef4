#!/usr/bin/env node
// `npm start`: Node-RED on http://127.0.0.1:1880 (PORT to change it) with this package and every
// example flow deployed, against the MindsDB at MINDSDB_URL (default http://127.0.0.1:47334), any version.
// When nothing answers there, a local MindsDB (MINDSDB_VERSION, default 25.14.1) is installed (first
// run), started and seeded, and a local stand-in LLM serves the agents example;
// Ctrl-C stops Node-RED and that MindsDB. Node-RED comes from devDependencies and keeps its user
// directory in .node-red/ (git-ignored); its flows are written on the first run only, so your
// changes survive a restart (delete .node-red/flows.json to get the examples back).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

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

/** This package, as Node-RED finds installed packages: in the user directory's node_modules. */
function linkPackage() {
  const link = path.join(userDir, 'node_modules', ...pkg.name.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(root, link, 'dir');
}

/** Every example flow in one flows file; shared config nodes (the server, the broker) once. */
function writeFlows() {
  const flowFile = path.join(userDir, 'flows.json');
  if (fs.existsSync(flowFile)) return false;
  const byId = new Map();
  const credentials = {};
  for (const file of fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).sort()) {
    for (const n of JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'))) {
      // The server node reads the URL from the environment, so MINDSDB_URL works without editing.
      if (n.type === 'mindsdb-server') n.url = '${MINDSDB_URL}';
      // The knowledge-base example embeds through the same LLM as the agents example (exampleLlm).
      if (n.type === 'mindsdb-knowledge-base') {
        if (!n.baseUrl) n.baseUrl = '${OPENAI_BASE_URL}';
        credentials[n.id] = { apiKey: '${OPENAI_API_KEY}' };
      }
      if (!byId.has(n.id)) byId.set(n.id, n);
    }
  }
  fs.writeFileSync(flowFile, JSON.stringify([...byId.values()], null, 2));
  // An example cannot carry credentials; credentialSecret is false below, so this file is plain
  // JSON, and Node-RED resolves the ${VAR} in it when the flows start.
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
  return true;
}

fs.mkdirSync(userDir, { recursive: true });
linkPackage();
const fresh = writeFlows();
fs.writeFileSync(path.join(userDir, 'settings.js'), `module.exports = ${JSON.stringify({
  uiHost: '127.0.0.1', uiPort: port, flowFile: 'flows.json', credentialSecret: false,
  editorTheme: { tours: false }, logging: { console: { level: 'info' } },
}, null, 2)};\n`);

/**
 * The agents and knowledge-base examples read their LLM from OPENAI_API_KEY / OPENAI_BASE_URL /
 * OPENAI_MODEL. Without a
 * key of the user's, they point at the local LLM double, so the example answers offline (gpt-4:
 * the model whose tokenizer file MindsDB 25.x has offline).
 */
function exampleLlm() {
  if (process.env.OPENAI_API_KEY) return {};
  return { OPENAI_API_KEY: 'llm-double', OPENAI_BASE_URL: mindsdb.env.LLM_DOUBLE_URL, OPENAI_MODEL: 'gpt-4' };
}

console.log(`[start] Node-RED ${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'node-red', 'package.json'), 'utf8')).version}` +
  ` on http://127.0.0.1:${port}, MindsDB at ${mindsdb.url}${fresh ? ', example flows deployed' : ''}`);
const red = spawn(process.execPath, [path.join(root, 'node_modules', 'node-red', 'red.js'), '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], {
  stdio: 'inherit',
  env: { ...process.env, ...mindsdb.env, ...exampleLlm() },
});
const shutdown = () => { red.kill('SIGINT'); };
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
red.on('exit', (code) => {
  mindsdb.stop();
  process.exit(code ?? 0);
});
