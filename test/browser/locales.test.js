'use strict';
/**
 * The editor in German, Japanese, Chinese and English, in Debian's Chromium against the real
 * node-red binary: a dialog label, the help sidebar and the status ring of deployed nodes come in
 * the editor's language. Node-RED takes that language from the browser (navigator.language, as a
 * browser set to German sends it) or from the user setting (View → Language, kept in the
 * browser's localStorage as "editor-language"); both ways are used below. The expected texts come
 * from the catalogues, and each must differ from the English one, so an untranslated or
 * half-translated editor fails.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, startNodeRed, launchChromium, uiAtRest } = require('./harness');

// Every shot goes to test-results/ (git-ignored); the German editor also to SCREENSHOTS_DIR when
// set (`npm run docs:screenshots`: the README shows it).
const RESULTS = path.resolve(root, 'test-results', 'screenshots', process.env.NODE_RED_PACKAGE || 'node-red');
const DOCS = process.env.SCREENSHOTS_DIR ? path.resolve(root, process.env.SCREENSHOTS_DIR) : undefined;
const locales = path.join(root, 'nodes', 'locales');
const catalogue = (lang, type) => JSON.parse(fs.readFileSync(path.join(locales, lang, `${type}.json`), 'utf8'))[type];
const fill = (template, values) => template.replace(/__(\w+?)__/g, (_, name) => String(values[name]));

/** What the editor must show in `lang`, from its catalogues and help. */
function expected(lang) {
  const sql = catalogue(lang, 'mindsdb-sql');
  const predict = catalogue(lang, 'mindsdb-predict');
  const help = fs.readFileSync(path.join(locales, lang, 'mindsdb-sql.html'), 'utf8');
  return {
    label: sql.label.database,
    rowFormat: sql.label.rowFormat,
    helpHeading: help.match(/<h3>([^<]+)<\/h3>/)[1].trim(),
    rows: fill(sql.status.rows, { count: 2 }),
    predicted: fill(predict.status.predicted, { count: 1 }),
    sqlError: sql.status.errors.sql,
  };
}

/** How each language reaches the editor: the browser's own language, or Node-RED's user setting. */
const LANGUAGES = [
  { lang: 'de', locale: 'de-DE', how: 'a browser set to German (de-DE)' },
  { lang: 'ja', setting: 'ja', how: "the editor's language setting" },
  { lang: 'zh-CN', locale: 'zh-CN', how: 'a browser set to Chinese (zh-CN)' },
  { lang: 'en-US', locale: 'en-US', how: 'a browser set to English' },
];

function testFlow(url) {
  const inject = (id, target, payload = '', payloadType = 'date') => ({
    id,
    type: 'inject',
    z: 'tab1',
    name: id,
    props: [{ p: 'payload' }],
    payload,
    payloadType,
    repeat: '',
    once: false,
    x: 120,
    y: 0,
    wires: [[target]],
  });
  const node = (id, type, y, config) => ({
    id,
    type,
    z: 'tab1',
    name: '',
    server: 'srv',
    outputProperty: 'payload',
    version: 1,
    x: 360,
    y,
    wires: [[]],
    ...config,
  });
  return [
    { id: 'tab1', type: 'tab', label: 'locales' },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: 'test MindsDB',
      url,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 10000,
      retries: 0,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 100,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
    { ...inject('go_rows', 'sql_rows'), y: 60 },
    node('sql_rows', 'mindsdb-sql', 60, {
      query: 'SELECT * FROM rentals',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    }),
    { ...inject('go_predict', 'predict1', '{"sqft": 917}', 'json'), y: 140 },
    node('predict1', 'mindsdb-predict', 140, {
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
    }),
    { ...inject('go_error', 'sql_error'), y: 220 },
    node('sql_error', 'mindsdb-sql', 220, {
      query: 'SELECT * FROM no_such_table',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    }),
  ];
}

describe('the editor in other languages', function () {
  this.timeout(120000);
  let fake;
  let red;
  let browser;

  const inject = async (id) => {
    const res = await fetch(`${red.url}inject/${id}`, { method: 'POST' });
    assert.equal(res.status, 200, `inject ${id}`);
  };

  before(async function () {
    fs.mkdirSync(RESULTS, { recursive: true });
    fake = await createFakeMindsDB().listen();
    red = await startNodeRed(testFlow(fake.url));
    browser = await launchChromium();
    // Before any editor is open: these statuses reach the editor as the runtime keeps them.
    await inject('go_rows');
    await inject('go_predict');
  });

  after(async function () {
    if (browser) await browser.close();
    if (red) await red.stop();
    if (fake) await fake.close();
  });

  it('has every text it checks translated (the check itself)', function () {
    const english = expected('en-US');
    for (const { lang } of LANGUAGES.filter((l) => l.lang !== 'en-US')) {
      const texts = expected(lang);
      for (const [what, text] of Object.entries(texts))
        assert.notEqual(text, english[what], `${lang} ${what} is translated`);
    }
  });

  for (const { lang, locale, setting, how } of LANGUAGES) {
    it(`shows dialog labels, help and status rings in ${lang}, for ${how}`, async function () {
      const want = expected(lang);
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        ...(locale ? { locale } : {}),
      });
      const problems = [];
      try {
        if (setting) await context.addInitScript((l) => localStorage.setItem('editor-language', l), setting);
        const page = await context.newPage();
        page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
        });
        await page.goto(red.url);
        await page.waitForFunction(
          () =>
            window.RED &&
            RED.nodes?.getType('mindsdb-sql') &&
            RED.nodes.node('sql_rows') &&
            $('#red-ui-palette-container .red-ui-palette-node').length > 0,
          null,
          { timeout: 60000 },
        );
        assert.equal(await page.evaluate(() => RED.i18n.lang()), lang, 'the editor runs in that language');

        // A status sent after the editor opened: a catalogue key, translated by Node-RED's editor.
        await inject('go_error');
        const label = (id) =>
          page.evaluate((nodeId) => {
            const el = document.getElementById(nodeId);
            return el?.__statusLabel__ ? el.__statusLabel__.textContent : null;
          }, id);
        const waitForLabel = async (id, text) => {
          await page
            .waitForFunction(
              ([nodeId, t]) => {
                const el = document.getElementById(nodeId);
                return el?.__statusLabel__ && el.__statusLabel__.textContent === t;
              },
              [id, text],
              { timeout: 15000 },
            )
            .catch(async () => assert.fail(`${id} status shows "${await label(id)}", want "${text}"`));
        };
        await waitForLabel('sql_error', want.sqlError);
        // Statuses with a count, sent before the editor opened, in English ("2 rows"): the editor
        // script shows them in the editor's language.
        await waitForLabel('sql_rows', want.rows);
        await waitForLabel('predict1', want.predicted);

        await page.evaluate(() => RED.editor.edit(RED.nodes.node('sql_rows')));
        await page.waitForSelector('#node-dialog-ok', { state: 'visible' });
        await uiAtRest(page); // the tray slides in
        assert.equal(
          (await page.locator('#dialog-form span[data-i18n$="mindsdb-sql.label.database"]').textContent()).trim(),
          want.label,
        );
        assert.equal(
          (await page.locator('#dialog-form label[for="node-input-rowFormat"]').textContent()).trim(),
          want.rowFormat,
        );
        await page
          .locator('.red-ui-tray')
          .last()
          .screenshot({ path: path.join(RESULTS, `mindsdb-sql-dialog-${lang}.png`) });
        await page.click('#node-dialog-cancel');
        await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });

        await page.evaluate(() => RED.sidebar.help.show('mindsdb-sql'));
        const help = page.locator('.red-ui-sidebar-info .red-ui-help:visible').first();
        await help.waitFor({ state: 'visible' });
        const headings = (await help.locator('h3').allTextContents()).map((h) => h.trim());
        assert.equal(headings[0], want.helpHeading, `the help's first section, got ${headings}`);
        const properties = await help.locator('dt').allTextContents();
        assert.ok(
          properties.some((p) => /^\s*payload\b/.test(p)),
          'msg property names stay as they are',
        );
        await page.screenshot({ path: path.join(RESULTS, `editor-${lang}.png`) });
        if (DOCS && lang === 'de') await page.screenshot({ path: path.join(DOCS, 'editor-de.png') });
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
