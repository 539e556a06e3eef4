'use strict';
/**
 * The MindsDB sidebar, SQL completion and preview in Debian's Chromium, on Node-RED 4.1 and 5.0
 * (both on this Node, 22+), against the real MindsDB that scripts/with-mindsdb.mjs --seed started
 * and seeded (MINDSDB_URL, MINDSDB_VERSION; 25.14.1 or 26.1.0) and its LLM double (LLM_DOUBLE_URL):
 *
 *   MINDSDB_VERSION=26.1.0 MINDSDB_URL=http://127.0.0.1:47534 node scripts/with-mindsdb.mjs --seed \
 *     node_modules/mocha/bin/mocha.js --config test/sidebar/.mocharc.json
 *
 * Open the sidebar, expand a PostgreSQL data source to its columns, see jobs' last runs and errors
 * as MindsDB's scheduler ran them (MINDSDB_JOBS=1 for its MindsDB), search, drag a table, a model
 * and a knowledge base onto the canvas and deploy each node to a working result, complete a column
 * name in the sql dialog, preview rows, see a refused write; and report (not assert) how long the
 * tree takes to draw a data source of 2,000 tables once the server's answer is in.
 * SIDEBAR_RUNTIMES=4.1 (or 5.0) runs one runtime; the first runtime's screenshots go to
 * SCREENSHOTS_DIR (docs/screenshots for the README), the others' to test-results/.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { root, startNodeRed, launchChromium, uiAtRest } = require('../browser/harness');
const { KB, MANY, MANY_TABLES, JOBS, makeFixtures, removeFixtures, jobRuns, mindsdb } = require('./fixtures');
const { dropRow, wireAndDeploy, inject, editorValue, setEditorValue } = require('./page');

const { MINDSDB_URL, LLM_DOUBLE_URL } = process.env;
const VERSION = process.env.MINDSDB_VERSION || '25.14.1';
const RUNTIMES = [
  { id: '4.1', nodeRed: 'node-red' },
  { id: '5.0', nodeRed: 'node-red-5-0' },
].filter((r) => (process.env.SIDEBAR_RUNTIMES || '4.1,5.0').split(',').includes(r.id));
const row = (name) => `#mindsdb-sidebar-tree .mindsdb-tree-row[data-name="${name}"]`;

describe(`the MindsDB sidebar in Chromium, against a real MindsDB ${VERSION}`, function () {
  let browser;
  before(async function () {
    if (!MINDSDB_URL || !LLM_DOUBLE_URL)
      throw new Error(
        'MINDSDB_URL and LLM_DOUBLE_URL are not set: run this suite through scripts/with-mindsdb.mjs --seed (see the top of this file)',
      );
    await removeFixtures(MINDSDB_URL);
    await makeFixtures(MINDSDB_URL, LLM_DOUBLE_URL);
    browser = await launchChromium();
  });
  after(async function () {
    if (browser) await browser.close();
    if (MINDSDB_URL) await removeFixtures(MINDSDB_URL);
  });

  RUNTIMES.forEach(
    (runtime, index) =>
      void describe(`Node-RED ${runtime.id}`, function () {
        const SHOTS = path.resolve(
          root,
          index === 0 && process.env.SCREENSHOTS_DIR
            ? process.env.SCREENSHOTS_DIR
            : path.join('test-results', 'screenshots', `sidebar-node-red-${runtime.id}-mindsdb-${VERSION}`),
        );
        const shot = (locator, name) => locator.screenshot({ path: path.join(SHOTS, name) });
        let red;
        let page;
        const problems = [];
        const dropped = {};

        before(async function () {
          fs.mkdirSync(SHOTS, { recursive: true });
          red = await startNodeRed(
            [
              { id: 'tab1', type: 'tab', label: 'MindsDB' },
              {
                id: 'srv',
                type: 'mindsdb-server',
                name: `MindsDB ${VERSION}`,
                url: MINDSDB_URL,
                apiPrefix: '/api',
                authMode: 'none',
                timeout: 120000,
                retries: 1,
                retryPost: false,
                maxInFlight: 8,
                maxQueue: 100,
                maxResponseMB: 64,
                tls: '',
                version: 1,
              },
            ],
            {},
            undefined,
            { nodeRed: runtime.nodeRed },
          );
          page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
          page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
          page.on('console', (m) => {
            if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
          });
          await page.goto(red.url);
          await page.waitForFunction(
            () =>
              window.RED &&
              RED.nodes?.getType('mindsdb-sql') &&
              RED.nodes.node('srv') &&
              $('#red-ui-palette-container .red-ui-palette-node').length > 0,
            null,
            { timeout: 60000 },
          );
          await page.evaluate(() => RED.sidebar.show('mindsdb'));
        });
        after(async function () {
          if (page) await page.close();
          if (red) await red.stop();
        });

        it("opens the sidebar on the flow's server and expands a PostgreSQL data source to its columns and types", async function () {
          await page.waitForSelector(row('sensors_pg'), { timeout: 30000 });
          assert.equal(await page.$eval('#mindsdb-sidebar-server', (s) => s.value), 'srv');
          await page.click(row('sensors_pg'));
          // Its one schema (public) opens with it. The database may hold others (the demo's shared state store keeps
          // its tables in one): then public is a row of its own, opened here.
          await page.waitForSelector(`${row('sensor_readings')}, ${row('public')}`, { timeout: 30000 });
          if (!(await page.isVisible(row('sensor_readings')))) await page.click(row('public'));
          await page.waitForSelector(row('sensor_readings'), { timeout: 30000 });
          await page.click(row('sensor_readings'));
          await page.waitForSelector(`${row('humidity')}[data-kind="column"]`, { timeout: 30000 });
          const columns = await page.$$eval('#mindsdb-sidebar-tree .mindsdb-tree-row[data-kind="column"]', (els) =>
            els.map((e) => `${e.dataset.name} ${e.querySelector('.mindsdb-tree-meta').textContent}`),
          );
          assert.deepEqual(columns, ['temperature double', 'humidity double', 'energy double']);
          await page.click(row('mindsdb'));
          await page.waitForSelector(`${row('sensor_energy')}[data-kind="model"]`, { timeout: 30000 });
          assert.match(await page.textContent(row('sensor_energy')), /complete · v1/);
          await page.waitForSelector(`${row(KB)}[data-kind="knowledge_base"]`);
          await uiAtRest(page);
          await shot(page.locator('#red-ui-sidebar'), 'sidebar.png');
        });

        it('searches what is loaded: a match shows with the way to it', async function () {
          await page.fill('#mindsdb-sidebar-search', 'humid');
          await page.waitForFunction(() => $('#mindsdb-sidebar-tree .mindsdb-tree-row').length === 4, null, {
            timeout: 5000,
          });
          assert.deepEqual(
            await page.$$eval('#mindsdb-sidebar-tree .mindsdb-tree-row', (els) => els.map((e) => e.dataset.name)),
            ['sensors_pg', 'public', 'sensor_readings', 'humidity'],
          );
          await page.fill('#mindsdb-sidebar-search', '');
          await page.waitForSelector(row(KB));
        });

        it('makes configured nodes from a dragged table, model and knowledge base, each deploying to a working result', async function () {
          dropped.sql = await dropRow(page, row('sensor_readings'), 260, 120);
          dropped.predict = await dropRow(page, row('sensor_energy'), 260, 220);
          dropped.kb = await dropRow(page, row(KB), 260, 320);
          dropped.table = await dropRow(page, row('sensor_readings'), 260, 420, 'Alt');
          assert.deepEqual(dropped.sql.props, {
            type: 'mindsdb-sql',
            server: 'srv',
            query: 'SELECT * FROM `sensors_pg`.`public`.`sensor_readings` LIMIT 100',
          });
          assert.deepEqual(dropped.predict.props, {
            type: 'mindsdb-predict',
            server: 'srv',
            project: 'mindsdb',
            model: 'sensor_energy',
          });
          assert.deepEqual(dropped.kb.props, {
            type: 'mindsdb-knowledge-base',
            server: 'srv',
            operation: 'search',
            project: 'mindsdb',
            itemName: KB,
          });
          assert.deepEqual(dropped.table.props, {
            type: 'mindsdb-table',
            server: 'srv',
            operation: 'insert',
            database: 'sensors_pg',
            table: 'sensor_readings',
          });
          await page.evaluate((id) => {
            RED.nodes.remove(id);
            RED.view.redraw(true);
          }, dropped.table.id); // not deployed: it would wait for rows
          await wireAndDeploy(page, [
            { id: dropped.sql.id, payload: '', payloadType: 'date' },
            { id: dropped.predict.id, payload: '{"temperature": 20, "humidity": 40}', payloadType: 'json' },
            { id: dropped.kb.id, payload: 'why does the pump overheat', payloadType: 'str' },
          ]);
          await uiAtRest(page);
          await shot(page.locator('#red-ui-workspace'), 'sidebar-dropped-nodes.png');
          const rows = await inject(page, red, dropped.sql.id);
          assert.equal(rows.length, 20, "the sql node answered the table's rows");
          assert.deepEqual(Object.keys(rows[0]).sort(), ['energy', 'humidity', 'temperature']);
          const prediction = await inject(page, red, dropped.predict.id);
          assert.ok(
            Array.isArray(prediction) ? 'energy' in prediction[0] : 'energy' in prediction,
            `a prediction: ${JSON.stringify(prediction)}`,
          );
          const found = await inject(page, red, dropped.kb.id);
          assert.ok(Array.isArray(found) && found.length >= 1, `the knowledge base answered: ${JSON.stringify(found)}`);
        });

        it('completes a column name in the sql dialog', async function () {
          // 5.0 loads Monaco after the editor opens
          await page.waitForFunction(() => window.monaco, null, { timeout: 60000 });
          await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), dropped.sql.id);
          await page.waitForSelector('#node-input-query-editor .monaco-editor', { timeout: 30000 });
          await uiAtRest(page);
          await setEditorValue(page, 'SELECT  FROM sensors_pg.sensor_readings', 8);
          await page.keyboard.type('hum');
          await page.keyboard.press('Control+Space');
          const option = page.locator('.monaco-editor .suggest-widget .monaco-list-row', { hasText: 'humidity' });
          await option.first().waitFor({ state: 'visible', timeout: 30000 });
          await shot(page.locator('.red-ui-tray').last(), 'sql-completion.png');
          await page.keyboard.press('Enter');
          assert.equal(await editorValue(page), 'SELECT humidity FROM sensors_pg.sensor_readings');
        });

        it('previews at most 20 rows in the dialog, and refuses a statement that writes before sending it', async function () {
          await page.click('#mindsdb-preview-button');
          await page.waitForSelector('#mindsdb-preview-result table', { timeout: 60000 });
          assert.deepEqual(await page.$$eval('#mindsdb-preview-result th', (ths) => ths.map((t) => t.textContent)), [
            'humidity',
          ]);
          const shown = await page.$$eval('#mindsdb-preview-result tbody tr', (trs) => trs.length);
          assert.ok(shown >= 1 && shown <= 20, `${shown} rows`);
          await shot(page.locator('.red-ui-tray').last(), 'sql-preview.png');
          const before = (await mindsdb(MINDSDB_URL).sql('SELECT COUNT(*) AS n FROM sensors_pg.sensor_readings'))
            .data[0][0];
          await setEditorValue(page, 'SELECT * FROM sensors_pg (DELETE FROM sensor_readings RETURNING *)', 1);
          await page.click('#mindsdb-preview-button');
          await page.waitForSelector('#mindsdb-preview-status.mindsdb-preview-failed', { timeout: 30000 });
          assert.match(await page.textContent('#mindsdb-preview-status'), /DELETE/);
          assert.equal(
            (await mindsdb(MINDSDB_URL).sql('SELECT COUNT(*) AS n FROM sensors_pg.sensor_readings')).data[0][0],
            before,
            'nothing was deleted',
          );
          await shot(page.locator('.red-ui-tray').last(), 'sql-preview-refused.png');
          await page.click('#node-dialog-cancel');
          await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
        });

        it(`reports how long the tree takes to draw a data source of ${MANY_TABLES} tables (a figure, not a limit)`, async function () {
          await page.click(row(MANY));
          await page.waitForSelector(row('t0001'), { timeout: 120000 });
          const first = JSON.parse(await page.getAttribute('#mindsdb-sidebar-tree', 'data-last-draw'));
          let last = first;
          while (await page.$('#mindsdb-sidebar-tree .mindsdb-tree-note[data-note="more"]')) {
            await page.click('#mindsdb-sidebar-tree .mindsdb-tree-note[data-note="more"]');
            last = JSON.parse(await page.getAttribute('#mindsdb-sidebar-tree', 'data-last-draw'));
          }
          assert.equal(
            await page.$$eval(
              '#mindsdb-sidebar-tree .mindsdb-tree-row[data-kind="table"]',
              (r) => r.filter((e) => /^t\d{4}$/.test(e.dataset.name)).length,
            ),
            MANY_TABLES,
            'every table drawn',
          );
          console.log(
            `      figure (Node-RED ${runtime.id}, MindsDB ${VERSION}): ${MANY_TABLES} tables: from the server's answer to the first ${Math.min(200, MANY_TABLES)} drawn ${first.ms} ms; all ${last.items} drawn after "more" ${last.ms} ms`,
          );
        });

        it("shows each job's last run as MindsDB's scheduler ran it, and a failed run's error", async function () {
          this.timeout(90000);
          const runs = await jobRuns(MINDSDB_URL);
          await page.click('#mindsdb-sidebar-refresh');
          await page.waitForSelector(row('mindsdb'), { timeout: 30000 });
          if (!(await page.$(`${row(JOBS.ok)}[data-kind="job"]`))) await page.click(row('mindsdb'));
          await page.waitForSelector(`${row(JOBS.ok)}[data-kind="job"]`, { timeout: 30000 });
          assert.equal(
            await page.textContent(`${row(JOBS.ok)} .mindsdb-tree-meta`),
            `last run ${runs[JOBS.ok].run_start}`,
          );
          assert.equal(await page.$(`${row(JOBS.ok)} .mindsdb-tree-error`), null, 'the run that worked shows no error');
          assert.equal(
            await page.textContent(`${row(JOBS.failing)} .mindsdb-tree-meta`),
            `last run ${runs[JOBS.failing].run_start}`,
          );
          const error = await page.getAttribute(`${row(JOBS.failing)} .mindsdb-tree-error`, 'title');
          assert.equal(error, runs[JOBS.failing].error);
          assert.match(error, /not found/i);
        });

        it('logged no error in the browser', function () {
          assert.deepEqual(problems, []);
        });
      }),
  );
});
