'use strict';
/**
 * The editor parts of the package where Node-RED 5 differs from 4.1 and 3.1, in Debian's Chromium,
 * against the fake MindsDB:
 *  - the MindsDB tab in Node-RED 5's two sidebars: moved to the left (secondary) one by dragging
 *    its header, where it fits the narrow column (its knowledge-base preview too) and works, and
 *    back there after a reload;
 *  - Node-RED 5's light and dark themes: the tab's rows, every dialog and the SQL completion list
 *    readable, as contrast measured from computed styles (test/browser/readability.js);
 *  - SQL completion on each Node-RED's Monaco (0.55 in 5.0, 0.52 in 4.1, 0.38 in 3.1), on Ace
 *    (editorTheme.codeEditor.lib "ace"), and none on Node-RED 5's plain editor.
 * On 4.1 and 3.1 (one sidebar, no built-in dark theme) the light-theme checks and completion run.
 * Node-RED 5's screenshots (dark theme) go to SCREENSHOTS_DIR (`npm run docs:screenshots`:
 * docs/screenshots), else to test-results/.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, pkg, startNodeRed, launchChromium, uiAtRest } = require('./harness');
const { measure, below } = require('./readability');
const { waitFor } = require('../support/wait');
const { mindsdbOnTheLeft, sidebarOf, moveSidebarTab, overflowing, editorPage, waitForEditor } = require('./sidebars');

const NODE_RED = process.env.NODE_RED_PACKAGE || 'node-red';
const NODE_RED_VERSION = require(`${NODE_RED}/package.json`).version;
const IS_5 = Number(NODE_RED_VERSION.split('.')[0]) >= 5;
const SHOTS = path.resolve(
  root,
  process.env.SCREENSHOTS_DIR || path.join('test-results', 'screenshots', `${NODE_RED}-sidebars-and-themes`),
);
/**
 * The least contrast of any text: 4.5 (WCAG AA for body text) on Node-RED 5, light and dark. On
 * 4.1 and 3.1 it is 3: their light theme draws secondary text, buttons among it, in #888 on white
 * (3.54), and the tab's secondary text uses the same variable.
 */
const LEAST = IS_5 ? 4.5 : 3;
/** The config nodes: the server (srv in the flow) and the state store (its dialog for a new one). */
const CONFIG_TYPES = ['mindsdb-server', 'mindsdb-state-store'];
const TYPES = Object.keys(pkg['node-red'].nodes).filter((t) => !CONFIG_TYPES.includes(t));
/** Every dialog, by the id of its node: the config nodes' first. */
const DIALOGS = ['srv', 'newStore', ...TYPES.map((t) => `n_${t}`)];
const row = (name) => `#mindsdb-sidebar-tree .mindsdb-tree-row[data-name="${name}"]`;
/** A dialog's text, without Monaco's own: its line numbers and its hidden input. */
const DIALOG = '.red-ui-tray:last-child .red-ui-tray-body';
const outsideMonaco = (entries) =>
  entries.filter((e) => !/\b(line-numbers|inputarea|mtk\d+|view-line)\b/.test(e.className));

function flow(mindsdbUrl) {
  const server = (id, name, url) => ({
    id,
    type: 'mindsdb-server',
    name,
    url,
    apiPrefix: '/api',
    authMode: 'none',
    timeout: 10000,
    retries: 0,
  });
  return [
    { id: 'tab1', type: 'tab', label: 'MindsDB' },
    server('srv', 'fake MindsDB', mindsdbUrl),
    // Nothing listens on port 9: the tab's error note for this one.
    server('srvDown', 'unreachable MindsDB', 'http://127.0.0.1:9'),
    // A small flow of its own, for the picture of the whole editor.
    { id: 'tab2', type: 'tab', label: 'Rentals' },
    {
      id: 'rentalsInject',
      type: 'inject',
      z: 'tab2',
      name: 'every minute',
      props: [{ p: 'payload' }],
      repeat: '60',
      payload: '',
      payloadType: 'date',
      x: 170,
      y: 120,
      wires: [['rentalsSql']],
    },
    {
      id: 'rentalsSql',
      type: 'mindsdb-sql',
      z: 'tab2',
      server: 'srv',
      name: 'rentals',
      query: 'SELECT * FROM files.rentals',
      x: 390,
      y: 120,
      wires: [['rentalsDebug']],
    },
    { id: 'rentalsDebug', type: 'debug', z: 'tab2', active: true, complete: 'payload', x: 590, y: 120, wires: [] },
    // One node of each type on the first server (which the tab then opens on), for its dialog.
    ...TYPES.map((type, i) => ({
      id: `n_${type}`,
      type,
      z: 'tab1',
      server: 'srv',
      x: 160 + 220 * (i % 4),
      y: 80 + 70 * Math.floor(i / 4),
      wires: [[]],
      ...(type === 'mindsdb-sql' ? { query: 'SELECT * FROM files.rentals' } : {}),
    })),
  ];
}

/** The Monaco editor of the open sql dialog. */
const MONACO_EDITOR = () =>
  window.monaco.editor.getEditors().find((e) => e.getContainerDomNode().closest('#node-input-query-editor'));

/** Opens the tab's preview of the knowledge base notes and searches it: its rows under the tree. */
async function searchNotes(page) {
  if (!(await page.isVisible(row('notes')))) await page.click(row('mindsdb'));
  await page.click(`${row('notes')}[data-kind="knowledge_base"]`);
  await page.waitForSelector('#mindsdb-kb-preview', { state: 'visible' });
  await page.fill('#mindsdb-kb-preview-text', 'pressure');
  await page.fill('#mindsdb-kb-preview-filter', '{"product": "pump"}');
  await page.click('#mindsdb-kb-preview-run');
  await page.waitForSelector('#mindsdb-kb-preview-rows td', { timeout: 20000 });
  await page.mouse.move(700, 600);
  await uiAtRest(page);
}

/** Opens the sql dialog, writes `SELECT * FROM mindsdb` and types `.`: the list of that project's items. */
async function openCompletion(page) {
  await page.waitForFunction(() => window.monaco, null, { timeout: 60000 });
  await page.evaluate(() => RED.editor.edit(RED.nodes.node('n_mindsdb-sql')));
  await page.waitForSelector('#node-input-query-editor .monaco-editor', { timeout: 30000 });
  await uiAtRest(page);
  await page.evaluate(
    `(() => { const ed = (${MONACO_EDITOR})(); ed.setValue('SELECT * FROM mindsdb'); ed.focus(); ed.setPosition({ lineNumber: 1, column: 22 }); })()`,
  );
  await page.keyboard.type('.');
  const option = page.locator('.monaco-editor .suggest-widget .monaco-list-row', { hasText: 'home_rentals' });
  await option.first().waitFor({ state: 'visible', timeout: 30000 });
  await uiAtRest(page);
}

/**
 * Opens the dialog of node `id`: the config dialog of the server node srv, a new state store's
 * (newStore: none is deployed, it would connect to its database), the edit dialog of the others.
 */
async function openDialog(page, id) {
  await page.evaluate((nodeId) => {
    if (nodeId === 'srv') RED.editor.editConfig('', 'mindsdb-server', nodeId);
    else if (nodeId === 'newStore') RED.editor.editConfig('', 'mindsdb-state-store', '_ADD_');
    else RED.editor.edit(RED.nodes.node(nodeId));
  }, id);
  const config = id === 'srv' || id === 'newStore';
  await page.waitForSelector(config ? '#node-config-dialog-ok' : '#node-dialog-ok', { state: 'visible' });
  await uiAtRest(page);
}

/**
 * The texts of the open dialog (outside Monaco), once it has drawn its rows: a dialog's form may fill in a
 * moment after its tray is at rest (CI once measured a database dialog with no text at all). After 10 s, what
 * is there (the caller's assertion then says how little).
 */
async function dialogText(page) {
  let text = [];
  await waitFor(
    async () => {
      text = outsideMonaco(await measure(page, DIALOG));
      return text.length >= 5;
    },
    { timeoutMs: 10_000, intervalMs: 50, what: 'the dialog drawn' },
  ).catch(() => undefined);
  return text;
}

async function closeDialog(page) {
  const cancel = (await page.isVisible('#node-config-dialog-cancel'))
    ? '#node-config-dialog-cancel'
    : '#node-dialog-cancel';
  await page.click(cancel);
  await page.waitForSelector(cancel, { state: 'detached' });
}

describe(`the editor on Node-RED ${NODE_RED_VERSION}: sidebars, themes and completion`, function () {
  this.timeout(120000);
  let fake;
  let red;
  let browser;
  const problems = [];

  before(async function () {
    fs.mkdirSync(SHOTS, { recursive: true });
    fake = await createFakeMindsDB().listen();
    // A knowledge base for the tab's preview of one, and the rows its search answers.
    await fetch(`${fake.url}/api/projects/mindsdb/knowledge_bases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        knowledge_base: { name: 'notes', storage: { database: 'v', table: 't' }, metadata_columns: ['product'] },
      }),
    });
    fake.state.sql = (body) =>
      /FROM `mindsdb`\.`notes`/.test(body.query)
        ? {
            type: 'table',
            column_names: ['id', 'distance', 'chunk_id', 'chunk_content', 'relevance', 'product', 'metadata'],
            data: [['d3', 0.2, 'd3:c', 'pump pressure sensor replacement', 0.8, 'pump', { product: 'pump' }]],
          }
        : null;
    red = await startNodeRed(flow(fake.url));
    browser = await launchChromium();
  });

  after(async function () {
    if (browser) await browser.close();
    if (red) await red.stop();
    if (fake) await fake.close();
  });

  /** The pages a failed test may have left a dialog open in. */
  const pages = new Set();
  afterEach(async function () {
    for (const page of pages)
      for (let i = 0; i < 3 && (await page.locator('.red-ui-tray').count()) > 0; i++) {
        await page.evaluate(() => RED.tray.close());
        await uiAtRest(page);
      }
  });

  describe('the light theme', function () {
    let page;
    before(async function () {
      page = await editorPage(browser, red.url, 'light', problems);
      pages.add(page);
    });
    after(async function () {
      if (page) {
        pages.delete(page);
        await page.context().close();
      }
    });

    it('shows the tab in the right sidebar, fitting it, its rows readable', async function () {
      await page.evaluate(() => RED.sidebar.show('mindsdb'));
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      await page.click(row('mindsdb'));
      await page.waitForSelector(row('home_rentals'), { timeout: 20000 });
      assert.equal(await sidebarOf(page), 'red-ui-sidebar');
      assert.deepEqual(await overflowing(page), []);
      const text = await measure(page, '.mindsdb-sidebar');
      assert.ok(text.length >= 6, `${text.length} texts measured`);
      assert.deepEqual(below(text, LEAST), []);
    });

    it('draws every dialog readable', async function () {
      for (const id of DIALOGS) {
        await openDialog(page, id);
        const text = await dialogText(page);
        assert.ok(text.length >= 5, `${id}: ${text.length} texts measured`);
        assert.deepEqual(below(text, LEAST), [], `${id}'s dialog`);
        await closeDialog(page);
      }
    });

    it(`completes the names of a project on this Node-RED's Monaco, in a readable list`, async function () {
      await openCompletion(page);
      const list = await measure(page, '.monaco-editor .suggest-widget');
      assert.ok(
        list.some((e) => e.text === 'model'),
        'our detail: the item is a model',
      );
      assert.deepEqual(below(list, 4.5), []);
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(`(${MONACO_EDITOR})().getValue()`), 'SELECT * FROM mindsdb.home_rentals');
      await page.waitForSelector('.monaco-editor .suggest-widget', { state: 'hidden' });
      await uiAtRest(page);
      console.log(`      (Monaco ${await page.evaluate(() => window.monaco.version)})`);
      await closeDialog(page);
    });

    it("gives Node-RED 5's plain editor (before Monaco has loaded) no completion", async function () {
      if (!(await page.evaluate(() => !!RED.editor.codeEditor?.basic))) {
        console.log('      (skipped: this Node-RED has no plain code editor; Node-RED 5 has)');
        this.skip();
      }
      // createEditor falls back to the plain editor while Monaco loads: take that path.
      await page.evaluate(() => {
        window.originalCreateEditor = RED.editor.createEditor;
        window.madeEditors = [];
        RED.editor.createEditor = (o) => {
          const made = RED.editor.codeEditor.basic.create(o);
          window.madeEditors.push(made);
          return made;
        };
      });
      try {
        await page.evaluate(() => RED.editor.edit(RED.nodes.node('n_mindsdb-sql')));
        await page.locator('#node-input-query-editor textarea.red-ui-editor-text-basic').waitFor({ state: 'visible' });
        const made = await page.evaluate(() =>
          window.madeEditors.map((e) => ({ type: e.type, ace: 'completers' in e })),
        );
        assert.ok(made.length >= 1);
        // It has Ace's getSession(), as Node-RED gives it; Ace's completers on it would do nothing.
        assert.deepEqual(
          made.filter((e) => e.type !== 'basic' || e.ace),
          [],
        );
        await closeDialog(page);
      } finally {
        await page.evaluate(() => {
          RED.editor.createEditor = window.originalCreateEditor;
        });
      }
    });
  });

  describe("Node-RED 5's left (secondary) sidebar", function () {
    let page;
    before(async function () {
      if (!IS_5) {
        console.log(`      (skipped: Node-RED ${NODE_RED_VERSION} has one sidebar; Node-RED 5 has two)`);
        this.skip();
      }
      page = await editorPage(browser, red.url, 'light', problems);
      pages.add(page);
    });
    after(async function () {
      if (page) {
        pages.delete(page);
        await page.context().close();
      }
    });

    it('takes the tab dragged there by its header, fits the 210 px column and works in it', async function () {
      await page.evaluate(() => RED.sidebar.show('mindsdb'));
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      await moveSidebarTab(page, 'secondary');
      assert.equal(await sidebarOf(page), 'red-ui-sidebar-left');
      await uiAtRest(page);
      assert.ok(await page.isVisible('#mindsdb-sidebar-tree'), 'shown where it was dropped');
      assert.deepEqual(await overflowing(page), []);
      // The tree works there: a level opens, and a row dragged onto the canvas makes its node.
      if (!(await page.isVisible(row('home_rentals')))) await page.click(row('mindsdb'));
      await page.waitForSelector(row('home_rentals'), { timeout: 20000 });
      const known = await page.evaluate(() => {
        const ids = [];
        RED.nodes.eachNode((n) => {
          ids.push(n.id);
        });
        return ids;
      });
      await page.dragAndDrop(row('home_rentals'), '#red-ui-workspace-chart', { targetPosition: { x: 500, y: 500 } });
      const made = await page.evaluate((ids) => {
        let node;
        RED.nodes.eachNode((n) => {
          if (!ids.includes(n.id)) node = n;
        });
        if (!node) return null;
        const seen = { type: node.type, server: node.server, model: node.model };
        RED.nodes.remove(node.id);
        RED.view.redraw(true);
        return seen;
      }, known);
      assert.deepEqual(made, { type: 'mindsdb-predict', server: 'srv', model: 'home_rentals' });
      assert.deepEqual(below(await measure(page, '.mindsdb-sidebar'), LEAST), []);
    });

    it('is there again after a reload, open on its server with its tree', async function () {
      // Node-RED saves the sidebars' state in the user settings a moment after the drop (it may post them more
      // than once): a reload before that save would test a place that was never kept.
      const keptInSettings = () => {
        try {
          const saved = JSON.parse(fs.readFileSync(path.join(red.userDir, '.config.users.json'), 'utf8'));
          return saved._.editor.sidebar.state.secondary.top.tabs.includes('mindsdb');
        } catch {
          return false;
        }
      };
      await waitFor(keptInSettings, {
        timeoutMs: 10_000,
        intervalMs: 50,
        what: "the tab's place in the user settings",
      });
      await page.reload();
      await waitForEditor(page);
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      assert.equal(await sidebarOf(page), 'red-ui-sidebar-left');
      assert.ok(await page.isVisible('#mindsdb-sidebar-tree'), 'the tab is the one shown');
      assert.equal(await page.$eval('#mindsdb-sidebar-server', (s) => s.value), 'srv');
      assert.ok(keptInSettings(), 'still kept in the user settings');
    });

    it("fits the column at its narrowest (180 px), an error note and a knowledge base's preview too", async function () {
      const res = await fetch(`${red.url}settings/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ editor: { sidebar: { state: mindsdbOnTheLeft(180) } } }),
      });
      assert.equal(res.status, 204);
      await page.reload();
      await waitForEditor(page);
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      assert.equal(await page.$eval('#red-ui-sidebar-left', (e) => Math.round(e.getBoundingClientRect().width)), 180);
      assert.deepEqual(await overflowing(page), []);
      await page.selectOption('#mindsdb-sidebar-server', 'srvDown');
      await page.waitForSelector('#mindsdb-sidebar-tree .mindsdb-tree-note[data-note="error"]', { timeout: 30000 });
      assert.deepEqual(await overflowing(page), [], 'with the error note');
      await page.selectOption('#mindsdb-sidebar-server', 'srv');
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      await searchNotes(page);
      assert.deepEqual(await overflowing(page), [], "with a knowledge base's preview and its rows");
      assert.ok(
        await page.$eval('#mindsdb-kb-preview-rows', (rows) => rows.clientHeight >= rows.scrollHeight),
        "the preview's rows are shown whole (the preview scrolls), not squeezed",
      );
      assert.deepEqual(below(await measure(page, '.mindsdb-sidebar'), LEAST), []);
      // Back to the width Node-RED starts the left sidebar with, for the screenshots below.
      await fetch(`${red.url}settings/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ editor: { sidebar: { state: mindsdbOnTheLeft() } } }),
      });
    });
  });

  describe("Node-RED 5's dark theme", function () {
    let page;
    before(async function () {
      if (!IS_5) {
        console.log(`      (skipped: Node-RED ${NODE_RED_VERSION} has no built-in dark theme; Node-RED 5 has)`);
        this.skip();
      }
      page = await editorPage(browser, red.url, 'dark', problems);
      pages.add(page);
      assert.ok(await page.evaluate(() => document.documentElement.classList.contains('nr-theme-dark')));
    });
    after(async function () {
      if (page) {
        pages.delete(page);
        await page.context().close();
      }
    });

    it('draws the tab readable in the left sidebar', async function () {
      await page.evaluate(() => RED.sidebar.show('mindsdb'));
      await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
      if (!(await page.isVisible(row('home_rentals')))) await page.click(row('mindsdb'));
      await page.waitForSelector(row('home_rentals'), { timeout: 20000 });
      await searchNotes(page);
      await page.hover(row('lightwood_rentals'));
      const text = await measure(page, '.mindsdb-sidebar');
      assert.ok(
        text.some((e) => e.text === 'pump pressure sensor replacement'),
        "the knowledge base's preview was measured",
      );
      assert.ok(text.length >= 6, `${text.length} texts measured`);
      // Dark: light text on a dark panel, also the row under the mouse.
      const panel = text.find((e) => e.text === 'home_rentals');
      assert.ok(panel.ratio >= 7 && /^rgb\((\d{1,2}), /.test(panel.background), `${JSON.stringify(panel)}`);
      assert.deepEqual(below(text, LEAST), []);
      // The pictures without the preview: the left sidebar's top section is short.
      await page.click('#mindsdb-kb-preview .mindsdb-kb-preview-head button');
      await page.waitForSelector('#mindsdb-kb-preview', { state: 'hidden' });
      await page.evaluate(() => $('#mindsdb-sidebar-tree').scrollTop(0));
      await page.mouse.move(700, 600);
      await uiAtRest(page);
      await page.locator('#red-ui-sidebar-left').screenshot({ path: path.join(SHOTS, 'sidebar-left-dark.png') });
      await page.evaluate(() => RED.workspaces.show('tab2'));
      await uiAtRest(page);
      await page.screenshot({ path: path.join(SHOTS, 'editor-dark.png') });
      await page.evaluate(() => RED.workspaces.show('tab1'));
    });

    it('draws every dialog readable, the preview and its rows too', async function () {
      for (const id of DIALOGS) {
        await openDialog(page, id);
        if (id === 'srv') {
          await page.click('#mindsdb-test-button');
          await page.waitForSelector('#mindsdb-test-result.mindsdb-server-test-ok', { timeout: 20000 });
          // A button under the mouse is drawn in Node-RED's hover colour (red on Node-RED 5's dark theme):
          // measure the dialog as it rests.
          await page.mouse.move(1, 1);
        }
        if (id === 'n_mindsdb-sql') {
          await page.click('#mindsdb-preview-button');
          await page.waitForSelector('#mindsdb-preview-result table', { timeout: 20000 });
          await page.mouse.move(1, 1);
        }
        const text = await dialogText(page);
        assert.ok(text.length >= 5, `${id}: ${text.length} texts measured`);
        assert.deepEqual(below(text, LEAST), [], `${id}'s dialog`);
        if (id === 'n_mindsdb-sql') {
          assert.ok(
            text.some((e) => e.text === '3901'),
            'the preview rows were measured',
          );
          await page
            .locator('.red-ui-tray')
            .last()
            .screenshot({ path: path.join(SHOTS, 'sql-dialog-dark.png') });
        }
        await closeDialog(page);
      }
    });

    it('completes in a readable list', async function () {
      await openCompletion(page);
      const list = await measure(page, '.monaco-editor .suggest-widget');
      assert.ok(list.length >= 2, `${list.length} texts measured`);
      assert.deepEqual(below(list, 4.5), []);
      await page
        .locator('.red-ui-tray')
        .last()
        .screenshot({ path: path.join(SHOTS, 'sql-completion-dark.png') });
      await page.keyboard.press('Escape');
      await closeDialog(page);
    });
  });

  describe('Ace (editorTheme.codeEditor.lib "ace")', function () {
    let aceRed;
    let page;
    before(async function () {
      aceRed = await startNodeRed(flow(fake.url), {
        // The harness's editorTheme, with Ace as the code editor.
        editorTheme: {
          tours: false,
          projects: { enabled: false },
          palette: { catalogues: [] },
          codeEditor: { lib: 'ace' },
        },
      });
      page = await editorPage(browser, aceRed.url, 'light', problems);
      pages.add(page);
    });
    after(async function () {
      if (page) {
        pages.delete(page);
        await page.context().close();
      }
      if (aceRed) await aceRed.stop();
    });

    it("completes the names of a project in Ace's list", async function () {
      await page.evaluate(() => RED.editor.edit(RED.nodes.node('n_mindsdb-sql')));
      await page.waitForSelector('#node-input-query-editor.ace_editor, #node-input-query-editor .ace_editor', {
        timeout: 30000,
      });
      await uiAtRest(page);
      // The Ace editor Node-RED made in the dialog (ace.edit(id) would make another).
      const editor = () => $('#node-input-query-editor.ace_editor, #node-input-query-editor .ace_editor')[0].env.editor;
      await page.evaluate(
        `(() => { const ed = (${editor})(); ed.setValue('SELECT * FROM mindsdb.', 1); ed.focus(); })()`,
      );
      await page.keyboard.press('Control+Space');
      const option = page.locator('.ace_autocomplete .ace_line', { hasText: 'home_rentals' });
      await option.first().waitFor({ state: 'visible', timeout: 30000 });
      assert.match(await page.textContent('.ace_autocomplete .ace_line.ace_selected'), /home_rentals/);
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(`(${editor})().getValue()`), 'SELECT * FROM mindsdb.home_rentals');
      await closeDialog(page);
    });
  });

  // In a describe of its own: mocha runs a describe's own tests before its inner describes.
  describe('at the end', function () {
    it('logged no error in the browser', function () {
      assert.deepEqual(problems, []);
    });
  });
});
