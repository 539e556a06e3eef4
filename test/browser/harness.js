'use strict';
/**
 * The browser suite's moving parts: a real Node-RED (the node-red binary from devDependencies,
 * its own process and user directory, this package installed by symlink as a user would have it)
 * and Debian's Chromium driven by playwright-core. Nothing is mocked on the editor side.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { waitFor } = require('../support/wait');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Which Node-RED to drive, as in the unit suite: `node-red` (4.1) or the `node-red-3-1` or
// `node-red-5-0` alias. It runs on the Node that runs this suite (Node-RED 5 needs Node 22:
// scripts/node-version.mjs runs the suite with it).
const NODE_RED_PACKAGE = process.env.NODE_RED_PACKAGE || 'node-red';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once Node-RED answers `url`; fails at once if it exits, or after `ms`. */
function answering(url, ms, child) {
  return waitFor(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`Node-RED exited (${child.exitCode ?? child.signalCode}) before it answered`);
      try {
        const res = await fetch(url);
        return res.ok || res.status === 401; // 401: up, with adminAuth on
      } catch {
        return false; /* not listening yet */
      }
    },
    { timeoutMs: ms, intervalMs: 200, what: `Node-RED to answer ${url}` },
  );
}

/**
 * Starts Node-RED with this package and `flows` in a fresh user directory; `settings` adds to ours;
 * `credentials` (node id → credentials) becomes the flows' credential file.
 * `options.tarball`: install that `npm pack` tarball the way a user installs the package (npm
 * install in the user directory) instead of linking this checkout (test/runtime/ does);
 * `options.nodeRed`: the Node-RED package to run instead of NODE_RED_PACKAGE's;
 * `options.node`: the Node binary to run it with (default: this one; Node-RED 5 needs Node 22);
 * `options.modules`: more packages from this checkout's node_modules to install by symlink (the
 * dashboard); `options.env`: more environment for the Node-RED process;
 * `options.ownSettings`: `settings` are the whole settings (with uiPort set here), as
 * `npm start` writes them, instead of additions to this suite's.
 */
async function startNodeRed(flows, settings = {}, credentials = undefined, options = {}) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-browser-'));
  if (options.tarball) {
    fs.writeFileSync(
      path.join(userDir, 'package.json'),
      JSON.stringify({ name: 'node-red-project', version: '0.0.1', private: true }),
    );
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', options.tarball], {
        cwd: userDir,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (err) {
      fs.rmSync(userDir, { recursive: true, force: true });
      throw new Error(`npm install ${options.tarball} failed: ${err.stderr || err.message}`);
    }
  } else {
    const link = path.join(userDir, 'node_modules', ...pkg.name.split('/'));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(root, link, 'dir');
  }
  for (const name of options.modules || []) {
    const link = path.join(userDir, 'node_modules', ...name.split('/'));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules', ...name.split('/')), link, 'dir');
  }
  fs.writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flows));
  // credentialSecret: false below, so Node-RED reads this file as plain JSON.
  if (credentials) fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials));
  const port = await freePort();
  fs.writeFileSync(
    path.join(userDir, 'settings.js'),
    `module.exports = ${JSON.stringify(
      options.ownSettings
        ? { ...settings, uiPort: port }
        : {
            uiHost: '127.0.0.1',
            uiPort: port,
            flowFile: 'flows.json',
            credentialSecret: false,
            // No tours, no projects, no calls out to the public catalogue or update checks: the suite runs
            // offline and a failed outside request would look like an editor error.
            editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
            telemetry: { enabled: false },
            logging: { console: { level: 'warn' } },
            ...settings,
          },
    )};\n`,
  );
  return launch(userDir, port, options);
}

/**
 * Runs the node-red binary on `userDir` (settings.js there says the port). The handle can stop
 * it (and delete the user directory), kill it with a signal as a crash or the OOM killer would
 * (the user directory stays), and start it again on the same user directory and port.
 */
async function launch(userDir, port, options) {
  const output = [];
  const child = spawn(
    options.node || process.execPath,
    [
      path.join(root, 'node_modules', options.nodeRed || NODE_RED_PACKAGE, 'red.js'),
      '--userDir',
      userDir,
      '--settings',
      path.join(userDir, 'settings.js'),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    },
  );
  child.stdout.on('data', (d) => output.push(String(d)));
  child.stderr.on('data', (d) => output.push(String(d)));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}/`;
  try {
    await answering(`${url}settings`, 30000, child);
  } catch (err) {
    child.kill('SIGKILL');
    fs.rmSync(userDir, { recursive: true, force: true });
    err.message += `\n${output.join('')}`;
    throw err;
  }
  return {
    url,
    userDir,
    output,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        // deadline: killed if SIGINT has not stopped it in 5 s
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(userDir, { recursive: true, force: true });
    },
    /** Kills the process with `signal` (SIGKILL: no close handler runs); resolves once it is gone. */
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    /** Starts Node-RED again on the same user directory and port, as a supervisor would. */
    restart() {
      return launch(userDir, port, options);
    },
  };
}

/** Debian's Chromium, headless, through playwright-core (never a downloaded browser). */
async function launchChromium() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Waits until the editor has stopped moving: no CSS transition or animation running (the tray
 * slides in with one) and no jQuery animation, so a check or a screenshot sees the end state.
 */
function uiAtRest(page) {
  return page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity) &&
      $(':animated').length === 0,
    null,
    { timeout: 10000 },
  );
}

module.exports = { root, pkg, startNodeRed, launchChromium, freePort, uiAtRest };
