'use strict';
/**
 * The example dashboards as a user meets them under `npm start`, in Debian's Chromium: the four
 * dashboard flows (examples/dashboard-*.json), deployed the way scripts/start.mjs deploys them and
 * with its settings, in a real Node-RED 4.1 on this Node and a real Node-RED 5.0 on Node 22, against
 * the real MindsDB that scripts/with-mindsdb.mjs --seed started and seeded (MINDSDB_URL) and its
 * stand-in LLM (LLM_DOUBLE_URL). One MindsDB and one Chromium serve both runtimes, one after the
 * other. Every wait is on what the page shows, with a deadline.
 *
 *   node scripts/with-mindsdb.mjs --seed mocha --config test/dashboards/.mocharc.json
 *
 * DASHBOARD_RUNTIMES=4.1 (or 5.0) runs one runtime only; DASHBOARD_RUNTIMES=3.1 runs Node-RED 3.1.
 * The first runtime's screenshots go to SCREENSHOTS_DIR (`npm run docs:screenshots`:
 * docs/screenshots, the ones the README shows), the others' to test-results/.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { root, startNodeRed, launchChromium } = require('../browser/harness');

const MINDSDB_URL = process.env.MINDSDB_URL;
const LLM_DOUBLE_URL = process.env.LLM_DOUBLE_URL;
const nodeMajor = process.versions.node.split('.')[0];
const RUNTIMES = [
  { id: '4.1', label: `Node-RED 4.1 on Node ${nodeMajor}`, nodeRed: 'node-red', node: async () => process.execPath },
  {
    id: '5.0',
    label: 'Node-RED 5.0 on Node 22',
    nodeRed: 'node-red-5-0',
    node: async () => (await import('../../scripts/node-version.mjs')).node22(),
  },
  // Not run by default (CI time): DASHBOARD_RUNTIMES=3.1 checks the oldest Node-RED this package supports.
  {
    id: '3.1',
    label: `Node-RED 3.1 on Node ${nodeMajor}`,
    nodeRed: 'node-red-3-1',
    node: async () => process.execPath,
    optional: true,
  },
];
const wanted = (
  process.env.DASHBOARD_RUNTIMES ||
  RUNTIMES.filter((r) => !r.optional)
    .map((r) => r.id)
    .join(',')
)
  .split(',')
  .map((s) => s.trim());
const runtimes = RUNTIMES.filter((r) => wanted.includes(r.id));

const shotsFor = (index, runtime) =>
  path.resolve(
    root,
    index === 0 && process.env.SCREENSHOTS_DIR
      ? process.env.SCREENSHOTS_DIR
      : path.join('test-results', 'screenshots', `dashboards-node-red-${runtime.id}`),
  );

async function sql(query) {
  const res = await fetch(`${MINDSDB_URL}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  if (!res.ok || body.type === 'error') throw new Error(`${query}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The rows of a ui-table (Vuetify's data table) as arrays of cell texts; [] for "No data available". */
function tableRows(page, className) {
  return page.$$eval(`.${className} tbody tr`, (trs) =>
    trs
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))
      .filter((cells) => cells.length > 1),
  );
}

/** The points the live chart has drawn, per series: Dashboard 2.0's client keeps them in its store. */
function chartPoints(page) {
  return page.evaluate((id) => {
    const store = document.querySelector('#app')?.__vue_app__?.config.globalProperties.$store;
    const series = {};
    for (const m of store?.state.data.messages[id] || []) {
      const { category, x } = m._datapoint || {};
      (series[category] = series[category] || []).push(x);
    }
    return series;
  }, 'dlive-chart');
}

describe('the example dashboards in Chromium, against a real MindsDB', function () {
  let browser;
  let demo;

  before(async function () {
    if (!MINDSDB_URL || !LLM_DOUBLE_URL) {
      throw new Error(
        'MINDSDB_URL and LLM_DOUBLE_URL are not set: run this suite through scripts/with-mindsdb.mjs --seed (see the top of this file)',
      );
    }
    if (runtimes.length === 0)
      throw new Error(
        `DASHBOARD_RUNTIMES=${process.env.DASHBOARD_RUNTIMES} names no runtime (${RUNTIMES.map((r) => r.id)})`,
      );
    demo = await import('../../scripts/demo-flows.mjs');
    browser = await launchChromium();
  });

  after(async function () {
    if (browser) await browser.close();
  });

  runtimes.forEach(
    (runtime, index) =>
      void describe(runtime.label, function () {
        const SHOTS = shotsFor(index, runtime);
        let red;
        let page;
        let failed = false;
        const problems = [];

        before(async function () {
          fs.mkdirSync(SHOTS, { recursive: true });
          // Each runtime trains the model from scratch (the Train button fails on a model that exists).
          await sql('DROP MODEL IF EXISTS mindsdb.dashboard_energy');
          const { flows, credentials } = demo.demoFlows(demo.exampleFiles((name) => demo.DASHBOARDS.includes(name)));
          red = await startNodeRed(flows, demo.demoSettings(0), credentials, {
            ownSettings: true,
            nodeRed: runtime.nodeRed,
            node: await runtime.node(),
            modules: [demo.DASHBOARD_PACKAGE],
            // The stand-in LLM always, even when the user has an OPENAI_API_KEY: its answers are known.
            env: { MINDSDB_URL, ...demo.demoLlmEnv(LLM_DOUBLE_URL, {}) },
          });
          page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
          page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
          page.on('console', (m) => {
            if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
          });
        });

        afterEach(function () {
          if (this.currentTest.state === 'failed') failed = true;
        });

        after(async function () {
          if (page) await page.close();
          if (red) {
            // Node-RED's log tells why a flow did not do what the page waited for.
            if (failed) console.log(`      Node-RED's log:\n${red.output.join('').split('\n').slice(-40).join('\n')}`);
            await red.stop();
          }
        });

        async function open(pagePath, title) {
          await page.goto(`${red.url}dashboard/${pagePath}`);
          await page.getByRole('banner').getByText(title, { exact: true }).waitFor({ timeout: 30000 });
        }

        it('opens the editor without a first-run dialog (welcome tour, update notifications)', async function () {
          const editor = await browser.newPage({ viewport: { width: 1280, height: 760 } });
          try {
            await editor.goto(red.url);
            // The editor runs its first-run checks right after it hides the loading bar, once the flows are in.
            await editor.waitForFunction(
              () =>
                window.RED &&
                RED.nodes?.getType('mindsdb-model') &&
                RED.nodes.workspace('dlive-tab') &&
                $('#red-ui-loading-progress').length === 1 &&
                !$('#red-ui-loading-progress').is(':visible'),
              null,
              { timeout: 60000 },
            );
            const seen = await editor.evaluate(() => ({
              tours: RED.settings.theme('tours'),
              telemetryEnabled: RED.settings.telemetryEnabled,
              popovers: $('.red-ui-popover:visible')
                .map((_i, el) => el.innerText)
                .get(),
              tour: $('.red-ui-tourGuide-shade:visible, .red-ui-tourGuide-popover:visible').length,
              firstTab: RED.workspaces.active(),
            }));
            assert.equal(seen.tours, false, 'editorTheme.tours is false: no welcome tour');
            // Node-RED 3.1 has no update notifications (and no telemetryEnabled); 4.1+ ask unless it is decided.
            if (runtime.id !== '3.1')
              assert.equal(
                seen.telemetryEnabled,
                false,
                'telemetry is decided: no "update notifications?" question (Node-RED 4.1+)',
              );
            assert.deepEqual(seen.popovers, [], 'no dialog over the editor');
            assert.equal(seen.tour, 0, 'no tour');
            assert.equal(seen.firstTab, 'dlive-tab', "the editor opens on the first dashboard's flow");
          } finally {
            await editor.close();
          }
        });

        it('Report: the report is saved as a view; the table holds its rows with the row count and duration, and Refresh runs it again', async function () {
          const { READINGS } = await import('../../scripts/seed-mindsdb.mjs');
          await open('report', 'Report');
          await page.waitForFunction(
            ([cls, n]) =>
              document.querySelectorAll(`.${cls} tbody tr`).length === n &&
              [...document.querySelectorAll(`.${cls} tbody tr`)].every((tr) => tr.querySelectorAll('td').length === 5),
            ['mindsdb-report-table', READINGS.length],
            { timeout: 60000 },
          );
          const headers = await page.$$eval('.mindsdb-report-table thead th', (ths) =>
            ths.map((th) => th.innerText.trim()),
          );
          assert.deepEqual(headers, ['temperature', 'humidity', 'measured', 'predicted', 'error']);
          const rows = (await tableRows(page, 'mindsdb-report-table'))
            .map((cells) => cells.map(Number))
            .sort((a, b) => a[0] - b[0]);
          assert.deepEqual(
            rows,
            READINGS.map((r) => [r.temperature, r.humidity, r.energy, r.energy, 0]),
            "every seeded reading with the model's prediction",
          );
          assert.equal(
            await page
              .locator('.mindsdb-report-rows')
              .innerText()
              .then((s) => s.replace(/\s+/g, ' ').trim()),
            `Rows ${READINGS.length} rows`,
          );
          assert.match(await page.locator('.mindsdb-report-duration').innerText(), /Query took\s*\d+ ms/);
          const view = await fetch(`${MINDSDB_URL}/api/projects/mindsdb/views/energy_report`).then((res) => res.json());
          assert.match(
            view.query,
            /JOIN mindsdb\.sensor_energy/,
            'the report runs from the view the flow saved in MindsDB',
          );

          await page.getByRole('button', { name: 'Refresh now' }).click();
          await page.locator('.mindsdb-report-updated', { hasText: 'by the button' }).waitFor({ timeout: 30000 });
          assert.equal(
            (await tableRows(page, 'mindsdb-report-table')).length,
            READINGS.length,
            'the refreshed table holds the rows again',
          );
          assert.equal((await page.locator('.mindsdb-error').innerText()).trim(), '', 'no error on the page');
          await page.mouse.move(0, 0); // no button left hovered in the screenshot
          await page.screenshot({ path: path.join(SHOTS, 'dashboard-report.png') });
        });

        it("Ask an agent: a question gets the knowledge-base rows and the agent's answer, streamed into the page; the area narrows both", async function () {
          await open('ask-agent', 'Ask an agent');
          // Setup after deploy: vector store, knowledge base with embedded notes, agent (made once per MindsDB).
          await page.locator('.mindsdb-setup-status', { hasText: /Ready|Error/ }).waitFor({ timeout: 120000 });
          assert.match(await page.locator('.mindsdb-setup-status').innerText(), /^Ready/);
          await page.evaluate(() => {
            window.answerStates = [];
            new MutationObserver(() => {
              const state = document.querySelector('.mindsdb-answer')?.dataset.state;
              if (state && window.answerStates[window.answerStates.length - 1] !== state)
                window.answerStates.push(state);
            }).observe(document.body, {
              subtree: true,
              childList: true,
              attributes: true,
              attributeFilter: ['data-state'],
            });
          });
          const question = 'Why does the pump overheat?';
          const box = page.locator('.mindsdb-question input');
          await box.fill(question);
          await box.press('Enter');
          await page.waitForFunction(
            () => /^(answered|error)/.test(document.querySelector('.mindsdb-answer')?.dataset.state || ''),
            null,
            { timeout: 120000 },
          );
          const answer = await page.locator('.mindsdb-answer .answer').innerText();
          assert.match(
            await page.locator('.mindsdb-answer').getAttribute('data-state'),
            /^answered/,
            `answered, got "${answer}"`,
          );
          // The stand-in LLM echoes the last line of the prompt: the question, after the notes.
          assert.equal(answer, `Echo: ${question}`);
          const states = await page.evaluate(() => window.answerStates);
          assert.ok(
            states.indexOf('streaming…') >= 0 &&
              states.indexOf('streaming…') < states.findIndex((s) => s.startsWith('answered')),
            `the agent's events reached the page before the answer was complete: ${states.join(' → ')}`,
          );
          const rows = await tableRows(page, 'mindsdb-kb-rows');
          assert.equal(rows.length, 3, 'the three most relevant notes');
          assert.equal(rows[0][0], 'pump-a', `the note about the pump first, got ${JSON.stringify(rows)}`);
          assert.equal(rows[0][1], 'hall A', 'the area of each note, from its metadata');
          assert.match(rows[0][3], /pump in hall A overheats/);

          // The area narrows the search (msg.filter on the metadata column area): hall B's notes and all halls'.
          await page.locator('.mindsdb-area').getByRole('button', { name: 'hall B' }).click();
          // The page still shows the first answer ("answered …") until the new question's search starts:
          // wait for this question's own states, its search first, then its answer.
          await page.evaluate(() => {
            window.answerStates = [];
          });
          await box.fill(question);
          await box.press('Enter');
          await page.waitForFunction(
            () => {
              const seen = window.answerStates;
              const searching = seen.findIndex((s) => s.startsWith('searching'));
              return searching >= 0 && seen.slice(searching).some((s) => /^(answered|error)/.test(s));
            },
            null,
            { timeout: 120000 },
          );
          assert.equal(await page.locator('.mindsdb-answer .answer').innerText(), `Echo: ${question}`);
          const steps = await page.locator('.mindsdb-answer .steps').innerText();
          assert.match(
            steps,
            /3 notes found in the notes of hall B and all halls/,
            `the agent was given the notes of the chosen area, the page says: ${steps}`,
          );
          const narrowed = await tableRows(page, 'mindsdb-kb-rows');
          assert.equal(narrowed.length, 3, JSON.stringify(narrowed));
          assert.deepEqual(
            narrowed.filter((r) => !['hall B', 'all halls'].includes(r[1])),
            [],
            `only notes of hall B and all halls, got ${JSON.stringify(narrowed)}`,
          );
          assert.ok(!narrowed.some((r) => r[0] === 'pump-a'), "hall A's pump note is left out");
          await page.locator('.mindsdb-question input').blur();
          await page.mouse.move(0, 0);
          await page.screenshot({ path: path.join(SHOTS, 'dashboard-ask-agent.png') });
        });

        it('Model status: Train moves through the training states to complete, Retrain makes version 2', async function () {
          await open('model-status', 'Model status');
          const state = page.locator('.mindsdb-model-state');
          await state.filter({ hasText: 'not trained yet' }).waitFor({ timeout: 30000 });

          const run = async (button, version) => {
            await page.getByRole('button', { name: button, exact: true }).click();
            // Done when the list of this run's states ends with the version's "complete".
            await page.waitForFunction(
              ([v]) => {
                const rows = [...document.querySelectorAll('.mindsdb-model-steps tbody tr')].map((tr) =>
                  [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()),
                );
                const last = rows[rows.length - 1] || [];
                return (last[1] === 'complete' && last[2].includes(`v${v} `)) || last[1] === 'error';
              },
              [version],
              { timeout: 120000 },
            );
            const steps = await tableRows(page, 'mindsdb-model-steps');
            const names = steps.map((s) => s[1]);
            assert.equal(names.at(-1), 'complete', `${button}: ${JSON.stringify(steps)}`);
            assert.equal(names[0], 'requested');
            // Between them, the model node's status while it worked: "requesting", then each state
            // MindsDB reported when polled. Which ones show depends on how fast MindsDB trains (and the
            // node's status shows at most two a second), so only their kind is checked, not their number.
            assert.ok(
              names.slice(1, -1).every((s) => ['requesting', 'generating', 'training', 'complete'].includes(s)),
              `${button}: ${names}`,
            );
            assert.equal((await state.innerText()).replace(/\s+/g, ' ').trim(), 'Status complete');
            return names;
          };

          const trained = await run('Train', 1);
          await page.waitForFunction(() => document.querySelectorAll('.mindsdb-model-versions tbody tr td').length > 1);
          assert.deepEqual(
            (await tableRows(page, 'mindsdb-model-versions')).map((r) => r.slice(0, 3)),
            [['1', 'complete', 'yes']],
          );
          const retrained = await run('Retrain', 2);
          await page.waitForFunction(() => document.querySelectorAll('.mindsdb-model-versions tbody tr').length === 2);
          assert.deepEqual(
            (await tableRows(page, 'mindsdb-model-versions')).map((r) => r.slice(0, 3)),
            [
              ['1', 'complete', ''],
              ['2', 'complete', 'yes'],
            ],
          );
          console.log(`      states: train ${trained.join(' → ')}; retrain ${retrained.join(' → ')}`);
          await page.mouse.move(0, 0); // no button left hovered in the screenshot
          await page.screenshot({ path: path.join(SHOTS, 'dashboard-model-status.png') });
        });

        // Last, so that the chart has the readings of the whole run behind it (and in the screenshot).
        it('Live predictions: measured, predicted and error series get points and keep growing, the gauge shows the last prediction', async function () {
          await open('live-predictions', 'Live predictions');
          const SERIES = ['measured', 'predicted', 'error'];
          await page.waitForFunction(
            ([id, series]) => {
              const msgs =
                document.querySelector('#app')?.__vue_app__?.config.globalProperties.$store?.state.data.messages[id] ||
                [];
              return series.every((s) => msgs.filter((m) => m._datapoint && m._datapoint.category === s).length >= 3);
            },
            ['dlive-chart', SERIES],
            { timeout: 60000 },
          );
          const first = await chartPoints(page);
          const newest = Object.fromEntries(SERIES.map((s) => [s, Math.max(...first[s])]));
          // Moving in real time: each series gets new points while the page stays open.
          await page.waitForFunction(
            ([id, since]) => {
              const msgs =
                document.querySelector('#app')?.__vue_app__?.config.globalProperties.$store?.state.data.messages[id] ||
                [];
              return Object.entries(since).every(
                ([s, x]) =>
                  msgs.filter((m) => m._datapoint && m._datapoint.category === s && m._datapoint.x > x).length >= 2,
              );
            },
            ['dlive-chart', newest],
            { timeout: 30000 },
          );
          assert.ok((await page.locator('.mindsdb-energy-chart canvas').count()) >= 1, 'the chart is drawn');

          // The model's prediction for the reading shown: sensor_energy is energy = 2·t + 0.5·h + 3.
          const reading = await page.locator('.mindsdb-last-reading').innerText();
          const m = /([\d.]+) °C, ([\d.]+) % → predicted ([\d.]+) kWh, measured ([\d.]+) kWh/.exec(reading);
          assert.ok(m, `the last reading is shown, got "${reading}"`);
          const [t, h, predicted] = m.slice(1, 4).map(Number);
          assert.ok(
            Math.abs(predicted - (2 * t + 0.5 * h + 3)) < 0.011,
            `MindsDB's prediction for ${t} °C, ${h} %: ${predicted}`,
          );
          assert.match(
            await page.locator('.mindsdb-gauge').innerText(),
            /\d+(\.\d+)?\s*kWh/,
            'the gauge shows a value in kWh',
          );
          assert.equal((await page.locator('.mindsdb-error').innerText()).trim(), '', 'no error on the page');
          // MindsDB's health, as the store and predict nodes' rings show it (the store keeps readings in its outbox
          // while MindsDB is away)
          await page.waitForFunction(
            () =>
              /^MindsDB health: MindsDB reachable$/.test(
                (document.querySelector('.mindsdb-health')?.innerText || '').trim(),
              ),
            null,
            { timeout: 30000 },
          );
          const stored = await sql("SELECT count(*) AS n FROM live_pg.live_readings WHERE reading_id <> 'setup'");
          assert.ok(stored.data[0][0] > 0, 'the readings are stored in PostgreSQL through the outbox');
          await page.screenshot({ path: path.join(SHOTS, 'dashboard-live-predictions.png') });
        });

        it('logged no error in the browser', function () {
          assert.deepEqual(problems, []);
        });
      }),
  );
});
