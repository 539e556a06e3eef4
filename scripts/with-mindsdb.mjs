#!/usr/bin/env node
// Runs a command against a real MindsDB:
//   node scripts/with-mindsdb.mjs [--seed] [--auth] <command> [args...]
// Uses the MindsDB at $MINDSDB_URL (default http://127.0.0.1:47334) when one answers there;
// otherwise installs (first time) and starts a local one with scripts/mindsdb-local.sh, and stops
// it again afterwards. --seed seeds it (scripts/seed-mindsdb.mjs). --auth also starts a second
// local MindsDB with HTTP authentication on (port $MINDSDB_AUTH_PORT, default 47336) and exports MINDSDB_AUTH_URL,
// MINDSDB_AUTH_USERNAME and MINDSDB_AUTH_PASSWORD for the login tests.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seed } from './seed-mindsdb.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const localScript = path.join(root, 'scripts', 'mindsdb-local.sh');
const AUTH_PORT = Number(process.env.MINDSDB_AUTH_PORT) || 47336;

const say = (m) => console.error(`[with-mindsdb] ${m}`);

export async function answers(url) {
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}/api/util/ping`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

function local(command, env = {}) {
  const r = spawnSync('bash', [localScript, command], { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`scripts/mindsdb-local.sh ${command} failed`);
}

/**
 * Makes sure a MindsDB answers at MINDSDB_URL. Returns its URL and a stop() that stops only
 * what this call started.
 */
export async function ensureMindsDB({ withSeed = false, withAuth = false } = {}) {
  const url = (process.env.MINDSDB_URL || 'http://127.0.0.1:47334').replace(/\/+$/, '');
  const started = [];
  const stop = () => {
    for (const port of started.splice(0).reverse()) {
      try { local('stop', { MINDSDB_PORT: String(port) }); } catch { /* already gone */ }
    }
  };
  try {
    let seeded = false;
    if (await answers(url)) {
      say(`using the MindsDB that answers at ${url}`);
    } else {
      const { hostname, port } = new URL(url);
      if (!['127.0.0.1', 'localhost'].includes(hostname)) throw new Error(`nothing answers at ${url}, and it is not a local address this script can start MindsDB on`);
      say(`nothing answers at ${url}: starting a local MindsDB 25.14.1 (the first time installs it, a few minutes)`);
      local('install');
      local('start', { MINDSDB_PORT: port || '80', MINDSDB_USERNAME: '', MINDSDB_PASSWORD: '' });
      started.push(Number(port));
    }
    if (withSeed || started.length) {
      say('seeding the demo data and model...');
      await seed(url);
      seeded = true;
    }
    const env = { MINDSDB_URL: url };
    if (withAuth) {
      const password = crypto.randomBytes(12).toString('base64url');
      local('start', { MINDSDB_PORT: String(AUTH_PORT), MINDSDB_USERNAME: 'nodered', MINDSDB_PASSWORD: password });
      started.push(AUTH_PORT);
      Object.assign(env, { MINDSDB_AUTH_URL: `http://127.0.0.1:${AUTH_PORT}`, MINDSDB_AUTH_USERNAME: 'nodered', MINDSDB_AUTH_PASSWORD: password });
    }
    return { url, env, seeded, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

async function main() {
  const args = process.argv.slice(2);
  const withSeed = args[0] === '--seed' ? (args.shift(), true) : false;
  const withAuth = args[0] === '--auth' ? (args.shift(), true) : false;
  if (args.length === 0) { console.error('usage: with-mindsdb.mjs [--seed] [--auth] <command> [args...]'); process.exit(2); }
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
