// The demo that `npm start` deploys, in one place so the dashboard browser suite deploys the same:
// the example flows merged into one flows file, the dashboard package beside ours, and the LLM
// settings the agent and knowledge-base examples read.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** FlowFuse Dashboard 2.0: a devDependency of this repository for the demo, never of the package. */
export const DASHBOARD_PACKAGE = '@flowfuse/node-red-dashboard';

/** The example dashboards, in the order of their pages (and of their tabs in the editor). */
export const DASHBOARDS = [
  'dashboard-live-predictions',
  'dashboard-report',
  'dashboard-ask-agent',
  'dashboard-model-status',
];

/**
 * The example files: the dashboards first (what a new user should see first), then the others
 * by name; every one, or those whose name (without .json) `only` accepts.
 */
export function exampleFiles(only = () => true) {
  const rank = (name) => (DASHBOARDS.includes(name) ? DASHBOARDS.indexOf(name) : DASHBOARDS.length);
  return fs
    .readdirSync(path.join(root, 'examples'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .filter((name) => only(name))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((name) => `${name}.json`);
}

/**
 * The examples as one flows file: each example is a tab; shared config nodes (the server, the
 * broker, the dashboard's base and theme) appear once. Returns the flows and the credentials file
 * to write beside them (plain JSON: the settings use credentialSecret: false).
 */
export function demoFlows(files = exampleFiles()) {
  const byId = new Map();
  const credentials = {};
  for (const file of files) {
    for (const n of JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'))) {
      // The server node reads the URL from the environment, so MINDSDB_URL works without editing.
      if (n.type === 'mindsdb-server') n.url = '${MINDSDB_URL}';
      // The knowledge-base nodes embed through the same LLM as the agents (demoLlmEnv).
      if (n.type === 'mindsdb-knowledge-base') {
        if (!n.baseUrl) n.baseUrl = '${OPENAI_BASE_URL}';
        credentials[n.id] = { apiKey: '${OPENAI_API_KEY}' };
      }
      // The ML engine example's key, from the same environment (its Settings may name an api_base).
      if (n.type === 'mindsdb-ml-engine') credentials[n.id] = { apiKey: '${OPENAI_API_KEY}' };
      // The shared state store example signs in to the local PostgreSQL as the other examples' data source does
      // (user postgres, trusted on 127.0.0.1); an example cannot carry credentials.
      if (n.type === 'mindsdb-state-store') credentials[n.id] = { user: 'postgres', password: '' };
      if (!byId.has(n.id)) byId.set(n.id, n);
    }
  }
  return { flows: [...byId.values()], credentials };
}

/**
 * Installs a package into a Node-RED user directory the way Node-RED finds it (userDir/node_modules),
 * as a symlink: this checkout for our package, node_modules/<name> for the dashboard.
 */
export function linkInto(
  userDir,
  name,
  target = name === pkg.name ? root : path.join(root, 'node_modules', ...name.split('/')),
) {
  const link = path.join(userDir, 'node_modules', ...name.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(target, link, 'dir');
}

/** Whether the dashboard package is installed (npm ci installs devDependencies; npm ci --omit=dev does not). */
export function dashboardInstalled() {
  return fs.existsSync(path.join(root, 'node_modules', ...DASHBOARD_PACKAGE.split('/'), 'package.json'));
}

/**
 * The agents and knowledge-base examples read their LLM from OPENAI_API_KEY / OPENAI_BASE_URL /
 * OPENAI_MODEL. Without a key of the user's they point at the local LLM double, so the examples
 * answer offline (gpt-4: the model whose tokenizer file MindsDB 25.x has offline).
 */
export function demoLlmEnv(llmDoubleUrl, env = process.env) {
  if (env.OPENAI_API_KEY) return {};
  return { OPENAI_API_KEY: 'llm-double', OPENAI_BASE_URL: llmDoubleUrl, OPENAI_MODEL: 'gpt-4' };
}

/**
 * Node-RED's settings for the demo: no welcome tour or "what's new" tour (editorTheme.tours), and
 * no first-run prompt about update notifications (Node-RED 4.1+ asks unless telemetry is decided).
 */
export function demoSettings(port, extra = {}) {
  return {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: false,
    editorTheme: { tours: false },
    telemetry: { enabled: false },
    logging: { console: { level: 'info' } },
    ...extra,
  };
}
