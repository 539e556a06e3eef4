'use strict';
/**
 * The package on a Node.js below its floor (22.19, undici 8's minimum), as a user has it who
 * installed it by hand (`npm install` in the user directory only warns about `engines`) on a
 * Node-RED that still runs on Node 20. The tarball is packed and installed into a real Node-RED
 * 4.1 and 3.1, with a flow that uses two of its nodes. Node-RED must start and keep running. Each
 * node type must be listed with the load error that names the Node.js the package needs and the
 * one it found: in the log, in the admin API, and in the palette manager (Chromium). undici's
 * `TypeError: Cannot read properties of undefined (reading 'bind')`, which every node failed with
 * before, must not appear.
 *
 * Runs on Node 20 (`npm run test:floor`: scripts/node-version.mjs 20, the machine's own Node when it
 * is 20), after a build.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, pkg, startNodeRed, launchChromium } = require('../browser/harness');
const { holdsFor } = require('../support/wait');

const FOUND = process.versions.node;
const RUNTIMES = [
  { id: '4.1', nodeRed: 'node-red' },
  { id: '3.1', nodeRed: 'node-red-3-1' },
];
const OUR_TYPES = Object.keys(pkg['node-red'].nodes).sort();

/** A flow that uses the package's nodes: after an upgrade of the package or a downgrade of Node.js. */
const FLOW = [
  { id: 'tab1', type: 'tab', label: 'below the floor' },
  { id: 'srv', type: 'mindsdb-server', name: 'MindsDB', url: 'http://127.0.0.1:9', authMode: 'none' },
  { id: 'sql1', type: 'mindsdb-sql', z: 'tab1', server: 'srv', query: 'SELECT 1', wires: [] },
];

/** The error each node set must carry: the version needed and the one found, nothing from undici. */
function assertNamesVersions(text, what) {
  assert.match(text, /needs Node\.js 22\.19 or later/, `${what} names the version the package needs`);
  assert.ok(text.includes(`runs on Node.js ${FOUND}`), `${what} names the version found (${FOUND}): ${text}`);
  assert.doesNotMatch(text, /reading 'bind'|\(line:\d+\)/, `${what} is the package's own error`);
}

describe(`the package on Node.js ${FOUND}, below its floor`, function () {
  this.timeout(180000);
  let tmp;
  let tarball;

  before(function () {
    const [major, minor] = FOUND.split('.').map(Number);
    assert.ok(
      major < 22 || (major === 22 && minor < 19),
      `this suite needs a Node.js below 22.19, this is ${FOUND}: run npm run test:floor`,
    );
    assert.ok(fs.existsSync(path.join(root, 'nodes', 'mindsdb-sql.js')), 'nodes/ is not built: npm run build first');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-floor-'));
    // The build has run (test:floor builds first); --ignore-scripts packs what it made.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    tarball = path.join(tmp, packed[0].filename);
  });

  after(function () {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const runtime of RUNTIMES) {
    describe(`in Node-RED ${runtime.id}`, function () {
      let red;
      let browser;

      before(async function () {
        // At info, the log also says what Node-RED does with the flow whose types did not load.
        const settings = { logging: { console: { level: 'info' } } };
        // It answers once it has loaded the nodes and logged which failed.
        red = await startNodeRed(FLOW, settings, undefined, { tarball, nodeRed: runtime.nodeRed });
      });

      after(async function () {
        if (browser) await browser.close();
        if (red) await red.stop();
      });

      it('lists each node type with the error that names the Node.js needed and the one found', async function () {
        const res = await fetch(`${red.url}nodes`, { headers: { accept: 'application/json' } });
        assert.equal(res.status, 200);
        const sets = (await res.json()).filter((s) => s.module === pkg.name);
        assert.deepEqual(sets.flatMap((s) => s.types).sort(), OUR_TYPES);
        assert.ok(
          sets.every((s) => s.version === pkg.version),
          'installed from the tarball',
        );
        for (const s of sets) {
          assert.ok(s.err, `${s.id} has a load error`);
          assertNamesVersions(s.err.message, `${s.id}'s error`);
        }
        const plugins = (
          await (await fetch(`${red.url}plugins`, { headers: { accept: 'application/json' } })).json()
        ).filter((p) => p.module === pkg.name);
        assert.equal(plugins.length, 1);
        assertNamesVersions(plugins[0].err.message, 'the sidebar plugin');
        // An editor script whose runtime failed is not sent to the editor.
        const html = await (await fetch(`${red.url}plugins`, { headers: { accept: 'text/html' } })).text();
        assert.doesNotMatch(html, /mindsdb-sidebar\.js/);
      });

      it('says so in its log, a line for each node type, and nothing of undici', function () {
        const log = red.output.join('');
        for (const type of OUR_TYPES) {
          const line = log.split('\n').find((l) => l.includes(`[warn] [${pkg.name}/${type}] `));
          assert.ok(line, `no warning for ${type} in:\n${log}`);
          assertNamesVersions(line, `the log line of ${type}`);
        }
        assert.doesNotMatch(log, /TypeError|reading 'bind'|undici[\\/]/);
        assert.match(log, /Waiting for missing types to be registered:/);
      });

      it('keeps running: no crash, its admin API answers', async function () {
        await holdsFor(() => red.child.exitCode === null && red.child.signalCode === null, {
          forMs: 2000,
          intervalMs: 100,
          what: 'the Node-RED process',
        });
        assert.equal((await fetch(`${red.url}flows`)).status, 200);
        assert.doesNotMatch(red.output.join(''), /Unhandled|uncaught|\[error\]/i);
      });

      it('shows the error in the palette manager', async function () {
        browser = await launchChromium();
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(red.url);
        await page.waitForFunction(() => window.RED?.actions && $('#red-ui-palette-container').length > 0, null, {
          timeout: 60000,
        });
        await page.evaluate(() => RED.actions.invoke('core:manage-palette'));
        const name = `.red-ui-palette-module-name:contains("${pkg.name}")`;
        // The entry is drawn first, its node sets' errors after, and its warning sign once the tray is at rest.
        await page
          .waitForFunction(
            (sel) => {
              const entry = $(sel).closest('.red-ui-editableList-item-content');
              return (
                entry.find('.red-ui-palette-module-error-list li').length &&
                entry.find('.red-ui-palette-module-errors').is(':visible')
              );
            },
            name,
            { timeout: 20000 },
          )
          .catch(() => undefined); // what is there by then is asserted below, each part with its own message
        const listed = await page.evaluate((sel) => {
          const entry = $(sel).closest('.red-ui-editableList-item-content');
          return {
            shown: entry.find('.red-ui-palette-module-errors').is(':visible'),
            errors: entry
              .find('.red-ui-palette-module-error-list li')
              .toArray()
              .map((li) => li.textContent),
          };
        }, name);
        assert.ok(listed.shown, 'the warning sign is shown');
        assert.equal(listed.errors.length, OUR_TYPES.length);
        for (const e of listed.errors) assertNamesVersions(e, 'the palette manager');
        assert.deepEqual(errors, []);
      });
    });
  }
});
