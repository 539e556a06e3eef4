#!/usr/bin/env node
// Runs a command against a real MindsDB:
//   node scripts/with-mindsdb.mjs [--seed] [--auth] <command> [args...]
// MINDSDB_VERSION (25.14.1, the default, or 26.1.0) is the version wanted. Uses the MindsDB at
// $MINDSDB_URL (default http://127.0.0.1:47334) when one of that version answers there (another
// version there is an error, never reused); otherwise installs (first time) and starts a local one
// with scripts/mindsdb-local.sh, and stops it again afterwards. --seed seeds it
// (scripts/seed-mindsdb.mjs). --auth also starts a second local MindsDB with HTTP authentication on
// (port $MINDSDB_AUTH_PORT, default 47336) and exports MINDSDB_AUTH_URL, MINDSDB_AUTH_USERNAME and
// MINDSDB_AUTH_PASSWORD for the login tests; on 26.x it also sets a static MINDSDB_AUTH_TOKEN there,
// exported as MINDSDB_AUTH_STATIC_TOKEN.
// An OpenAI-compatible LLM double (test/support/llm-double.js) runs on loopback for as long as the
// command does, at $LLM_DOUBLE_URL: agents and 26.x's seeded model use it, and nothing leaves the machine.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureFloor } from './node-version.mjs';
import { seed } from './seed-mindsdb.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const localScript = path.join(root, 'scripts', 'mindsdb-local.sh');
const require = createRequire(import.meta.url);
export const DEFAULT_VERSION = '25.14.1';

const say = (m) => console.error(`[with-mindsdb] ${m}`);

export async function answers(url) {
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}/api/util/ping`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** The mindsdb_version a server reports on its public /api/status (undefined when it does not say). */
export async function versionAt(url) {
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}/api/status`, { signal: AbortSignal.timeout(5000) });
    const body = await res.json();
    return typeof body.mindsdb_version === 'string' ? body.mindsdb_version : undefined;
  } catch {
    return undefined;
  }
}

function local(command, env = {}) {
  const r = spawnSync('bash', [localScript, command], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`scripts/mindsdb-local.sh ${command} failed`);
}

/**
 * Makes sure a MindsDB of `version` answers at MINDSDB_URL (any version with `anyVersion`), with the
 * LLM double beside it. Returns its URL, the environment for the command, the version and a stop()
 * that stops only what this call started.
 */
export async function ensureMindsDB({
  withSeed = false,
  withAuth = false,
  version = process.env.MINDSDB_VERSION || DEFAULT_VERSION,
  anyVersion = false,
} = {}) {
  const url = (process.env.MINDSDB_URL || 'http://127.0.0.1:47334').replace(/\/+$/, '');
  const authPort = Number(process.env.MINDSDB_AUTH_PORT) || 47336;
  const started = [];
  let llm;
  const stop = () => {
    for (const port of started.splice(0).reverse()) {
      try {
        local('stop', { MINDSDB_PORT: String(port), MINDSDB_VERSION: version });
      } catch {
        /* already gone */
      }
    }
    if (llm) {
      llm.close();
      llm = undefined;
    }
  };
  try {
    const { startLlmDouble } = require(path.join(root, 'test', 'support', 'llm-double.js'));
    llm = await startLlmDouble();
    say(`LLM double (OpenAI-compatible) at ${llm.url}`);
    let seeded = false;
    if (await answers(url)) {
      const running = await versionAt(url);
      // A server of the other version would run this version's tests against the wrong server
      // (anyVersion: `npm start` takes whatever answers).
      if (running !== version && !anyVersion)
        throw new Error(
          `MindsDB ${running ?? '(unknown version)'} answers at ${url}, but MindsDB ${version} is wanted: stop it, or point MINDSDB_URL elsewhere`,
        );
      say(`using the MindsDB ${running} that answers at ${url}`);
      version = running ?? version;
    } else {
      const { hostname, port } = new URL(url);
      if (!['127.0.0.1', 'localhost'].includes(hostname))
        throw new Error(`nothing answers at ${url}, and it is not a local address this script can start MindsDB on`);
      say(`nothing answers at ${url}: starting a local MindsDB ${version} (the first time installs it, a few minutes)`);
      local('install', { MINDSDB_VERSION: version });
      local('start', {
        MINDSDB_VERSION: version,
        MINDSDB_PORT: port || '80',
        MINDSDB_USERNAME: '',
        MINDSDB_PASSWORD: '',
        MINDSDB_AUTH_TOKEN: '',
      });
      started.push(Number(port));
    }
    if (withSeed || started.length) {
      say('seeding the demo data and model...');
      await seed(url, { llmUrl: llm.url });
      seeded = true;
    }
    const env = { MINDSDB_URL: url, MINDSDB_VERSION: version, LLM_DOUBLE_URL: llm.url };
    if (withAuth) {
      const password = crypto.randomBytes(12).toString('base64url');
      // 26.x's static token; 25.x has none, and the tests skip its case there.
      const token = Number(version.split('.')[0]) >= 26 ? crypto.randomBytes(18).toString('base64url') : '';
      local('start', {
        MINDSDB_VERSION: version,
        MINDSDB_PORT: String(authPort),
        MINDSDB_USERNAME: 'nodered',
        MINDSDB_PASSWORD: password,
        MINDSDB_AUTH_TOKEN: token,
      });
      started.push(authPort);
      Object.assign(env, {
        MINDSDB_AUTH_URL: `http://127.0.0.1:${authPort}`,
        MINDSDB_AUTH_USERNAME: 'nodered',
        MINDSDB_AUTH_PASSWORD: password,
      });
      if (token) env.MINDSDB_AUTH_STATIC_TOKEN = token;
    }
    return { url, env, seeded, stop, version };
  } catch (err) {
    stop();
    throw err;
  }
}

async function main() {
  // Seeding uses the package's client (undici 8, Node >= 22.19): on an older Node this script
  // runs again on the pinned Node 22.
  await ensureFloor();
  const args = process.argv.slice(2);
  const flag = (name) => {
    if (args[0] !== name) return false;
    args.shift();
    return true;
  };
  const withSeed = flag('--seed');
  const withAuth = flag('--auth');
  if (args.length === 0) {
    console.error('usage: with-mindsdb.mjs [--seed] [--auth] <command> [args...]');
    process.exit(2);
  }
  let server;
  try {
    server = await ensureMindsDB({ withSeed, withAuth });
  } catch (err) {
    say(err.message);
    process.exit(1);
  }
  const child = spawn(args[0], args.slice(1), { stdio: 'inherit', env: { ...process.env, ...server.env } });
  const forward = (sig) => () => child.kill(sig);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('exit', (code, signal) => {
    server.stop();
    process.exit(code ?? (signal ? 1 : 0));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
