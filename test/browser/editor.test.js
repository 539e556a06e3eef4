'use strict';
/**
 * The editor as a flow builder meets it, in Debian's Chromium: the palette, every edit dialog,
 * the help sidebar, the config node's Test connection, the name pickers and the example flows.
 * Node-RED is the real binary with this package installed; the MindsDB behind it is the fake
 * (test/support/fake-mindsdb.js), so that the answers are known.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { root, pkg, startNodeRed, launchChromium, freePort, uiAtRest } = require('./harness');

// Screenshots land in test-results/ (git-ignored) unless SCREENSHOTS_DIR says otherwise:
// `npm run docs:screenshots` points it at docs/screenshots, the ones the README shows.
const SHOTS = path.resolve(
  root,
  process.env.SCREENSHOTS_DIR || path.join('test-results', 'screenshots', process.env.NODE_RED_PACKAGE || 'node-red'),
);
const SERVER_ID = 'srv';

/** Every action node: its id in the test flow, its saved config, and what its dialog must show. */
const NODES = [
  {
    type: 'mindsdb-sql',
    id: 'sql1',
    config: {
      query: 'SELECT * FROM files.sensor_readings',
      database: 'mindsdb',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    },
    fields: [
      '#node-input-server',
      '#node-input-database',
      '#node-input-query-editor',
      '#node-input-rowFormat',
      '#node-input-split',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 2,
    change: { select: ['#node-input-rowFormat', 'arrays'], check: '#node-input-split' },
    expect: { rowFormat: 'arrays', split: true },
  },
  {
    type: 'mindsdb-predict',
    id: 'predict1',
    config: {
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
    },
    fields: [
      '#node-input-server',
      '#node-input-project',
      '#node-input-model',
      '#node-input-params',
      '#node-input-batch',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 4,
    change: { check: '#node-input-batch', fill: ['#node-input-batchSize', '250'] },
    expect: { batch: true, batchSize: '250' },
  },
  {
    type: 'mindsdb-database',
    id: 'db1',
    config: {
      operation: 'create',
      dbName: 'sensors_pg',
      dbNameType: 'str',
      engine: 'postgres',
      host: '127.0.0.1',
      port: '5432',
      user: 'postgres',
      database: 'test',
      extraParams: '',
      checkConnection: false,
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-dbName',
      '#node-input-engine',
      '#node-input-host',
      '#node-input-port',
      '#node-input-user',
      '#node-input-password',
      '#node-input-database',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 2,
    change: { select: ['#node-input-operation', 'get'] },
    expect: { operation: 'get' },
  },
  {
    type: 'mindsdb-chatbot',
    id: 'chatbot1',
    config: { operation: 'list', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str' },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { select: ['#node-input-operation', 'get'] },
    expect: { operation: 'get' },
  },
  {
    type: 'mindsdb-skill',
    id: 'skill1',
    config: { operation: 'list', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', agent: '' },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-agent',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { fill: ['#node-input-agent', 'support_agent'] },
    expect: { agent: 'support_agent' },
  },
  {
    type: 'mindsdb-agent',
    id: 'agent1',
    config: {
      operation: 'completions',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'support_agent',
      itemNameType: 'str',
      streamMode: 'final',
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-streamMode',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { select: ['#node-input-streamMode', 'chunks'] },
    expect: { streamMode: 'chunks' },
  },
  {
    type: 'mindsdb-file',
    id: 'file1',
    config: {
      operation: 'upload',
      fileName: 'readings',
      fileNameType: 'str',
      format: 'csv',
      replace: false,
      maxSizeMB: 100,
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-fileName',
      '#node-input-format',
      '#node-input-replace',
      '#node-input-maxSizeMB',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 2,
    change: { select: ['#node-input-format', 'json'], check: '#node-input-replace' },
    expect: { format: 'json', replace: true },
  },
  {
    type: 'mindsdb-job',
    id: 'job1',
    config: {
      operation: 'create',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'nightly',
      itemNameType: 'str',
      query: 'RETRAIN mindsdb.sensor_energy',
      schedule: 'every 1 day',
      startAt: '',
      endAt: '',
      ifQuery: '',
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-query-editor',
      '#node-input-schedule',
      '#node-input-startAt',
      '#node-input-endAt',
      '#node-input-ifQuery',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { fill: ['#node-input-endAt', '2099-12-31'] },
    expect: { endAt: '2099-12-31', query: 'RETRAIN mindsdb.sensor_energy' },
  },
  {
    type: 'mindsdb-model',
    id: 'model1',
    config: {
      operation: 'train',
      project: 'mindsdb',
      projectType: 'str',
      model: 'energy',
      modelType: 'str',
      modelVersion: '',
      statement: '',
      database: 'files',
      select: 'SELECT * FROM sensor_readings',
      predict: 'energy',
      engine: 'linear',
      using: '',
      wait: true,
      waitTimeout: 600,
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-model',
      '#node-input-statement-editor',
      '#node-input-database',
      '#node-input-select-editor',
      '#node-input-predict',
      '#node-input-engine',
      '#node-input-using',
      '#node-input-wait',
      '#node-input-waitTimeout',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 4,
    change: { fill: ['#node-input-waitTimeout', '900'] },
    expect: { waitTimeout: '900', select: 'SELECT * FROM sensor_readings', wait: true },
  },
  {
    type: 'mindsdb-knowledge-base',
    id: 'kb1',
    config: {
      operation: 'create',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'docs',
      itemNameType: 'str',
      provider: 'openai',
      embeddingModel: 'text-embedding-3-small',
      baseUrl: '',
      storageDatabase: 'kb_vectors',
      storageTable: 'docs',
      contentColumns: '',
      metadataColumns: 'area',
      idColumn: '',
      insertQuery: '',
      limit: 10,
      threshold: '',
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-provider',
      '#node-input-embeddingModel',
      '#node-input-baseUrl',
      '#node-input-apiKey',
      '#node-input-storageDatabase',
      '#node-input-storageTable',
      '#node-input-metadataColumns',
      '#node-input-insertQuery-editor',
      '#node-input-limit',
      '#node-input-threshold',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { select: ['#node-input-operation', 'search'], fill: ['#node-input-threshold', '0.5'] },
    expect: { operation: 'search', threshold: '0.5' },
  },
  {
    type: 'mindsdb-table',
    id: 'table1',
    config: {
      operation: 'insert',
      database: 'sensors_pg',
      databaseType: 'str',
      table: 'readings',
      tableType: 'str',
      select: '',
      replace: false,
      batch: true,
      batchSize: 100,
      batchWindow: 50,
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-database',
      '#node-input-table',
      '#node-input-select-editor',
      '#node-input-replace',
      '#node-input-batch',
      '#node-input-batchSize',
      '#node-input-batchWindow',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { fill: ['#node-input-batchSize', '250'] },
    expect: { batchSize: '250', operation: 'insert', table: 'readings', batch: true },
  },
  {
    type: 'mindsdb-project',
    id: 'project1',
    config: { operation: 'get', itemName: 'sales', itemNameType: 'str' },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-itemName',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 2,
    change: { select: ['#node-input-operation', 'delete'] },
    expect: { operation: 'delete', itemName: 'sales' },
  },
  {
    type: 'mindsdb-view',
    id: 'view1',
    config: {
      operation: 'query',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'warm_readings',
      itemNameType: 'str',
      query: 'SELECT * FROM files.sensor_readings',
      rowFormat: 'objects',
      split: true,
      rowsPerMsg: 100,
      flowControl: false,
      partsAhead: 1,
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-project',
      '#node-input-itemName',
      '#node-input-query-editor',
      '#node-input-rowFormat',
      '#node-input-split',
      '#node-input-rowsPerMsg',
      '#node-input-flowControl',
      '#node-input-partsAhead',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 3,
    change: { fill: ['#node-input-rowsPerMsg', '25'], check: '#node-input-flowControl' },
    expect: { rowsPerMsg: '25', flowControl: true, query: 'SELECT * FROM files.sensor_readings' },
  },
  {
    type: 'mindsdb-ml-engine',
    id: 'mle1',
    config: {
      operation: 'create',
      engineName: 'llm_engine',
      engineNameType: 'str',
      handler: 'openai',
      apiKeyParam: '',
      settings: '{"api_base": "http://127.0.0.1:9/v1"}',
    },
    fields: [
      '#node-input-server',
      '#node-input-operation',
      '#node-input-engineName',
      '#node-input-handler',
      '#node-input-apiKey',
      '#node-input-apiKeyParam',
      '#node-input-settings',
      '#node-input-outputProperty',
      '#node-input-name',
    ],
    typedInputs: 2,
    change: { select: ['#node-input-operation', 'delete'] },
    expect: { operation: 'delete', handler: 'openai' },
  },
];

function testFlow(mindsdbUrl) {
  const flow = [
    { id: 'tab1', type: 'tab', label: 'MindsDB nodes' },
    {
      id: SERVER_ID,
      type: 'mindsdb-server',
      name: 'test MindsDB',
      url: mindsdbUrl,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 60000,
      retries: 2,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
    // Two more servers a message may choose (msg.server): one named, one without a name.
    {
      id: 'srvB',
      type: 'mindsdb-server',
      name: 'site b',
      url: mindsdbUrl,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 60000,
      retries: 2,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
    {
      id: 'srvC',
      type: 'mindsdb-server',
      name: '',
      url: 'http://127.0.0.1:9',
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 60000,
      retries: 2,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
  ];
  NODES.forEach((n, i) => {
    flow.push({
      id: n.id,
      type: n.type,
      z: 'tab1',
      name: '',
      server: SERVER_ID,
      outputProperty: 'payload',
      version: 1,
      x: 200 + 260 * (i % 3),
      y: 80 + 80 * Math.floor(i / 3),
      wires: [[]],
      ...n.config,
    });
  });
  return flow;
}

/** Untranslated labels: a [data-i18n] element whose text is blank or still the catalogue key. */
async function untranslatedLabels(page, scope) {
  return page.$$eval(`${scope} [data-i18n]`, (els) =>
    els
      .map((el) => {
        const key = el.getAttribute('data-i18n');
        if (/^\[placeholder\]/.test(key)) {
          const p = el.getAttribute('placeholder') || '';
          return p && p !== key.replace(/^\[placeholder\]/, '') ? null : key;
        }
        const text = el.textContent.trim();
        return text && text !== key.replace(/^\[html\]/, '') ? null : key;
      })
      .filter(Boolean),
  );
}

describe('the editor in Chromium', function () {
  this.timeout(120000);
  let fake;
  let red;
  let browser;
  let page;
  const problems = [];

  before(async function () {
    fs.mkdirSync(SHOTS, { recursive: true });
    fake = await createFakeMindsDB().listen();
    // Dashboard 2.0 beside our package, as under `npm start`: the dashboard examples import with it.
    const { DASHBOARD_PACKAGE } = await import('../../scripts/demo-flows.mjs');
    red = await startNodeRed(testFlow(fake.url), {}, undefined, { modules: [DASHBOARD_PACKAGE] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    });
    await page.goto(red.url);
    // The editor is ready once our node types are registered and the deployed flow is loaded.
    await page.waitForFunction(
      () =>
        window.RED &&
        RED.nodes?.getType('mindsdb-agent') &&
        RED.nodes.node('agent1') &&
        $('#red-ui-palette-container .red-ui-palette-node').length > 0,
      null,
      { timeout: 60000 },
    );
    await uiAtRest(page);
  });

  after(async function () {
    if (browser) await browser.close();
    if (red) await red.stop();
    if (fake) await fake.close();
  });

  afterEach(async function () {
    // A failed test must not leave a dialog open for the next one.
    if (page)
      await page
        .evaluate(() => {
          while (RED.tray && $('.red-ui-tray').length) {
            RED.tray.close();
            break;
          }
        })
        .catch(() => {});
  });

  it("loads the shared editor script from the package's resources", async function () {
    const res = await fetch(`${red.url}resources/${pkg.name}/mindsdb-editor.js`);
    assert.equal(res.status, 200);
    assert.equal(await page.evaluate(() => typeof window.MindsDBEditor), 'object');
  });

  it('shows every node in one MindsDB palette category, with its label and icon', async function () {
    // Only the palette's own headers: the config sidebar also has headers that mention mindsdb-server.
    const headers = await page.$$eval('#red-ui-palette .red-ui-palette-header', (els) =>
      els.map((el) => el.textContent.trim()),
    );
    assert.equal(headers.filter((h) => /mindsdb/i.test(h)).length, 1, `one MindsDB category, got ${headers}`);
    for (const { type } of NODES) {
      const item = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
      assert.equal(await item.count(), 1, `${type} is in the palette`);
      assert.ok(await item.isVisible(), `${type} is visible`);
      const label = (await item.locator('.red-ui-palette-label').textContent()).trim();
      assert.ok(
        label && !label.includes('paletteLabel') && !label.startsWith('mindsdb-'),
        `${type} has a palette label, got "${label}"`,
      );
      const icon = await item.locator('.red-ui-palette-icon').evaluate((el) => getComputedStyle(el).backgroundImage);
      assert.match(
        icon,
        new RegExp(`icons/${pkg.name.replace('/', '\\/')}/${type}\\.svg`),
        `${type} shows its own icon`,
      );
      const iconRes = await fetch(`${red.url}icons/${pkg.name}/${type}.svg`);
      assert.equal(iconRes.status, 200, `${type}.svg is served`);
    }
    assert.ok(await page.evaluate(() => RED.nodes.getType('mindsdb-server').category === 'config'));
    // The shots show our category, as a user who typed "mindsdb" into the palette filter sees it.
    const filter = page.locator('#red-ui-palette-search input');
    await filter.click();
    await filter.pressSequentially('mindsdb');
    // the filter applies after a short debounce: wait until only our nodes show
    await page.waitForFunction(
      () => {
        const shown = $('#red-ui-palette .red-ui-palette-node:visible').toArray();
        return shown.length > 0 && shown.every((el) => /^mindsdb-/.test(el.getAttribute('data-palette-type')));
      },
      null,
      { timeout: 10000 },
    );
    await uiAtRest(page);
    await page.locator('#red-ui-palette').screenshot({ path: path.join(SHOTS, 'palette.png') });
    await page.screenshot({ path: path.join(SHOTS, 'editor.png') });
    await page.evaluate(() => $('#red-ui-palette-search input').searchBox('value', ''));
  });

  for (const n of NODES) {
    it(`opens, renders and saves the ${n.type} dialog`, async function () {
      await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), n.id);
      await page.waitForSelector('#node-dialog-ok', { state: 'visible' });
      await page.waitForSelector(`#dialog-form ${n.fields[0]}`, { state: 'attached' });
      await uiAtRest(page); // the tray slides in
      for (const sel of n.fields) {
        assert.equal(await page.locator(`#dialog-form ${sel}`).count(), 1, `${n.type} dialog has ${sel}`);
      }
      // In the order listed, and with the node's tip: buildForm adds the rows every dialog shares
      // (server, operation, project, item first; output, name, tip last) around the template's own.
      const inOrder = await page.evaluate(
        (sels) =>
          sels
            .map((sel) => $(`#dialog-form ${sel}`)[0])
            .every(
              (el, i, all) =>
                i === 0 || Boolean(all[i - 1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING),
            ),
        n.fields,
      );
      assert.ok(inOrder, `${n.type}: rows in the order ${n.fields.join(', ')}`);
      const tip = await page.evaluate(
        (type) => RED.nodes.getType(type)._(`${type}.label.tip`) !== `${type}.label.tip`,
        n.type,
      );
      assert.equal(
        await page.locator(`#dialog-form .form-tips[data-i18n$="${n.type}.label.tip"]`).count(),
        tip ? 1 : 0,
        `${n.type}: its tip`,
      );
      const typed = await page.locator('#dialog-form .red-ui-typedInput-container').count();
      assert.ok(typed >= n.typedInputs, `${n.type}: ${typed} TypedInputs rendered, want at least ${n.typedInputs}`);
      assert.deepEqual(await untranslatedLabels(page, '#dialog-form'), [], `${n.type}: every label translated`);
      // The server picker shows the deployed config node.
      assert.equal(await page.locator('#node-input-server').inputValue(), SERVER_ID);
      if (n.type === 'mindsdb-sql') {
        const code = page.locator('#node-input-query-editor');
        // Monaco or ACE; on Node-RED 5 a plain textarea until Monaco has loaded (tested below).
        assert.ok(
          (await code.locator('.monaco-editor, .ace_editor, textarea.red-ui-editor-text-basic').count()) >= 1,
          'the SQL field is a code editor',
        );
        assert.match(await code.textContent(), /sensor_readings/, 'the code editor shows the saved query');
      }
      await page
        .locator('.red-ui-tray')
        .last()
        .screenshot({ path: path.join(SHOTS, `${n.type}-dialog.png`) });

      const name = `renamed ${n.id}`;
      await page.fill('#node-input-name', name);
      if (n.change.select) await page.selectOption(n.change.select[0], n.change.select[1]);
      if (n.change.check) await page.check(n.change.check);
      if (n.change.fill) await page.fill(n.change.fill[0], n.change.fill[1]);
      await page.click('#node-dialog-ok');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
      const saved = await page.evaluate((id) => {
        const node = RED.nodes.node(id);
        return {
          name: node.name,
          changed: node.changed,
          valid: node.valid,
          props: JSON.parse(JSON.stringify(node, (k, v) => (k.startsWith('_') || k === 'wires' ? undefined : v))),
        };
      }, n.id);
      assert.equal(saved.name, name);
      assert.equal(saved.changed, true);
      assert.equal(saved.valid, true, `${n.type} is valid after saving`);
      for (const [k, v] of Object.entries(n.expect)) assert.equal(saved.props[k], v, `${n.type}.${k}`);
      const shown = await page
        .locator(`#red-ui-workspace-chart .red-ui-flow-node-group[id="${n.id}"] text`)
        .first()
        .textContent();
      assert.equal(shown.trim(), name, 'the node on the canvas shows its name');
    });
  }

  it("gives the sql dialog's query editor the height the tray leaves, and its text to the larger editor", async function () {
    const editorHeight = () => page.$eval('#node-input-query-editor', (el) => el.getBoundingClientRect().height);
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('sql1')));
    await page.waitForSelector('#node-input-query-editor', { state: 'visible' });
    await uiAtRest(page);
    const before = await editorHeight();
    try {
      await page.setViewportSize({ width: 1440, height: 2000 });
      await page.waitForFunction((h) => $('#node-input-query-editor').height() > h + 300, before, { timeout: 10000 });
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
    await page.waitForFunction((h) => Math.abs($('#node-input-query-editor').outerHeight() - h) < 2, before, {
      timeout: 10000,
    });
    // The expand button takes the query into Node-RED's larger SQL editor.
    await page.click('#node-input-query-expand');
    await page.waitForSelector('#node-input-text', { state: 'visible' });
    await uiAtRest(page);
    assert.match(
      await page.$eval('#node-input-text', (el) => el.textContent),
      /sensor_readings/,
      'the larger editor shows the query',
    );
    await page.locator('#node-dialog-cancel').last().click();
    await page.waitForSelector('#node-input-text', { state: 'detached' });
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it("lists the flow's servers a message may choose by name (msg.server), and saves the chosen ones", async function () {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('predict1')));
    await page.waitForSelector('#dialog-form #node-input-servers', { state: 'attached' });
    await uiAtRest(page);
    const options = await page.$$eval('#node-input-servers option', (els) =>
      els.map((o) => ({ id: o.value, text: o.textContent, disabled: o.disabled })),
    );
    assert.deepEqual(
      options.map((o) => o.id).sort(),
      [SERVER_ID, 'srvB', 'srvC'].sort(),
      'every server node of the flows',
    );
    assert.equal(options.find((o) => o.id === 'srvB').text, 'site b');
    const unnamed = options.find((o) => o.id === 'srvC');
    assert.ok(
      unnamed.disabled && /127\.0\.0\.1:9/.test(unnamed.text),
      `a server without a name cannot be chosen by name: ${unnamed.text}`,
    );
    const order = await page.evaluate(() =>
      Boolean(
        $('#node-input-server')[0].compareDocumentPosition($('#node-input-servers')[0]) &
          Node.DOCUMENT_POSITION_FOLLOWING,
      ),
    );
    assert.ok(order, "right after the node's own server");
    await page.selectOption('#node-input-servers', ['srvB']);
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    assert.deepEqual(await page.evaluate(() => RED.nodes.node('predict1').servers), ['srvB']);
    // Opened again, the dialog shows what was saved.
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('predict1')));
    await page.waitForSelector('#dialog-form #node-input-servers', { state: 'attached' });
    assert.deepEqual(
      await page.$eval('#node-input-servers', (el) => Array.from(el.selectedOptions).map((o) => o.value)),
      ['srvB'],
    );
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it("edits SQL in Node-RED 5's plain code editor, the one createEditor returns until Monaco has loaded", async function () {
    if (!(await page.evaluate(() => !!RED.editor.codeEditor?.basic))) {
      console.log('      (skipped: this Node-RED has no plain code editor; Node-RED 5 has)');
      this.skip();
    }
    // Make createEditor take its not-yet-loaded fallback, for the dialog and its expand tray.
    await page.evaluate(() => {
      window.originalCreateEditor = RED.editor.createEditor;
      RED.editor.createEditor = (o) => RED.editor.codeEditor.basic.create(o);
    });
    try {
      await page.evaluate(() => RED.editor.edit(RED.nodes.node('sql1')));
      const code = page.locator('#node-input-query-editor textarea.red-ui-editor-text-basic');
      await code.waitFor({ state: 'visible' });
      assert.match(await code.inputValue(), /sensor_readings/, 'the plain editor shows the saved query');
      await code.fill('SELECT 1');
      // The expand button takes the SQL into a larger editor and writes it back on Done.
      await page.click('#node-input-query-expand');
      const big = page.locator('#node-input-text textarea.red-ui-editor-text-basic');
      await big.waitFor({ state: 'visible' });
      assert.equal(await big.inputValue(), 'SELECT 1');
      const sql = 'SELECT * FROM files.sensor_readings LIMIT 5';
      await big.fill(sql);
      await page.locator('#node-dialog-ok').last().click();
      await big.waitFor({ state: 'detached' });
      assert.equal(await code.inputValue(), sql, 'Done writes the SQL back into the dialog');
      await page.click('#node-dialog-ok');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
      assert.equal(await page.evaluate(() => RED.nodes.node('sql1').query), sql, 'the node saves the SQL');
    } finally {
      await page.evaluate(() => {
        RED.editor.createEditor = window.originalCreateEditor;
      });
    }
  });

  it("shows a dialog's rows only when they apply, following the fields they depend on", async function () {
    // The row, not the input: a TypedInput hides its own input behind its widget.
    const visible = (sel) => page.evaluate((s) => $(`#dialog-form ${s}`).closest('.form-row').is(':visible'), sel);
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('db1')));
    await page.waitForSelector('#node-input-host', { state: 'attached' });
    await uiAtRest(page);
    await page.selectOption('#node-input-operation', 'create');
    assert.ok(
      (await visible('#node-input-host')) && (await visible('#node-input-dbName')),
      'create: the connection and the name show',
    );
    await page.selectOption('#node-input-operation', 'list');
    assert.ok(!(await visible('#node-input-host')) && !(await visible('#node-input-dbName')), 'list: neither shows');
    await page.selectOption('#node-input-operation', 'get');
    assert.ok(!(await visible('#node-input-host')) && (await visible('#node-input-dbName')), 'get: the name only');
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });

    await page.evaluate(() => RED.editor.edit(RED.nodes.node('sql1')));
    await page.waitForSelector('#node-input-split', { state: 'attached' });
    await uiAtRest(page);
    await page.uncheck('#node-input-split');
    assert.ok(
      !(await visible('#node-input-rowsPerMsg')) && !(await visible('#node-input-partsAhead')),
      'no split: no split rows',
    );
    await page.check('#node-input-split');
    assert.ok(
      (await visible('#node-input-rowsPerMsg')) && !(await visible('#node-input-partsAhead')),
      'split without flow control',
    );
    await page.check('#node-input-flowControl');
    assert.ok(await visible('#node-input-partsAhead'), 'split with flow control: parts ahead too');
    await page.uncheck('#node-input-incremental');
    assert.ok(
      !(await visible('#node-input-watermarkColumn')) && !(await visible('#node-input-keyColumn')),
      'not incremental: no watermark or key',
    );
    await page.check('#node-input-incremental');
    assert.ok(
      (await visible('#node-input-watermarkColumn')) && (await visible('#node-input-keyColumn')),
      'incremental: the watermark and the key columns',
    );
    assert.match(
      await page.textContent('.form-tips[data-i18n$="mindsdb-sql.label.incrementalTip"]'),
      /^Each run sends only the rows after the last \(watermark, key\)/,
      'the tip of the shared incremental rows, in the sql catalogue',
    );
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });

    await page.evaluate(() => RED.editor.edit(RED.nodes.node('agent1')));
    await page.waitForSelector('#node-input-memory', { state: 'attached' });
    await uiAtRest(page);
    await page.selectOption('#node-input-operation', 'list');
    assert.ok(!(await visible('#node-input-memory')), 'list: no memory');
    await page.selectOption('#node-input-operation', 'completions');
    await page.uncheck('#node-input-memory');
    assert.ok(
      (await visible('#node-input-memory')) && !(await visible('#node-input-conversationKey')),
      'completions without memory',
    );
    await page.check('#node-input-memory');
    assert.ok(
      (await visible('#node-input-conversationKey')) &&
        (await visible('#node-input-maxTurns')) &&
        (await visible('#node-input-idleMinutes')),
      'completions with memory: the conversation, turns and idle time',
    );
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });

    await page.evaluate((id) => RED.editor.editConfig('', 'mindsdb-server', id), SERVER_ID);
    await page.waitForSelector('#node-config-input-authMode', { state: 'attached' });
    await uiAtRest(page);
    await page.selectOption('#node-config-input-authMode', 'none');
    const shown = () =>
      page.$$eval('#node-config-dialog-edit-form [data-when]', (rows) =>
        rows.filter((r) => r.style.display !== 'none').map((r) => r.querySelector('input').id),
      );
    assert.deepEqual(await shown(), [], 'no authentication: no secret fields');
    await page.selectOption('#node-config-input-authMode', 'login');
    assert.deepEqual(await shown(), ['node-config-input-username', 'node-config-input-password']);
    await page.selectOption('#node-config-input-authMode', 'token');
    assert.deepEqual(await shown(), ['node-config-input-token']);
    await page.click('#node-config-dialog-cancel');
    await page.waitForSelector('#node-config-dialog-cancel', { state: 'detached' });
  });

  it('flags a bad value in a dialog as invalid', async function () {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('predict1')));
    await page.waitForSelector('#node-input-batchSize', { state: 'attached' });
    await page.check('#node-input-batch');
    await page.fill('#node-input-batchSize', '0');
    await page.locator('#node-input-batchSize').blur();
    await page.waitForFunction(() => $('#node-input-batchSize').hasClass('input-error'));
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it('suggests names from the selected server while still taking free text', async function () {
    await page.evaluate(() => RED.editor.edit(RED.nodes.node('predict1')));
    await page.waitForSelector('#node-input-model', { state: 'attached' });
    const before = fake.requestsTo('/projects/mindsdb/models').length;
    const model = page.locator('#node-input-model').locator('xpath=..').locator('input.red-ui-typedInput-input');
    await model.click();
    await model.fill('');
    await model.pressSequentially('home');
    const option = page.locator('.red-ui-autoComplete-container li', { hasText: 'home_rentals' });
    await option.first().waitFor({ state: 'visible', timeout: 10000 });
    assert.ok(
      fake.requestsTo('/projects/mindsdb/models').length > before,
      'the picker asked the server for its models',
    );
    await page
      .locator('.red-ui-tray')
      .last()
      .screenshot({ path: path.join(SHOTS, 'mindsdb-predict-picker.png') });
    await page.keyboard.press('Escape');
    await model.fill('a_model_that_is_not_listed');
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    assert.equal(await page.evaluate(() => RED.nodes.node('predict1').model), 'a_model_that_is_not_listed');
  });

  it("suggests the server's ML engines for the model's Engine and its ML handlers for an ML engine's Handler", async function () {
    fake.state.mlEngines.set('llm_engine', {
      name: 'llm_engine',
      handler: 'openai',
      settings: { openai_api_key: 'sk-browser' },
    });
    const suggests = async (nodeId, input, typed, expected, shot) => {
      await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
      await page.waitForSelector('#node-input-operation', { state: 'visible' });
      // The dialog test above may have left the node on an operation that hides the field.
      if (nodeId === 'mle1') await page.selectOption('#node-input-operation', 'create');
      await page.waitForSelector(input, { state: 'visible' });
      await uiAtRest(page);
      const field = page.locator(input);
      await field.click();
      await field.fill('');
      await field.pressSequentially(typed);
      await page
        .locator('.red-ui-autoComplete-container li', { hasText: expected })
        .first()
        .waitFor({ state: 'visible', timeout: 10000 });
      if (shot)
        await page
          .locator('.red-ui-tray')
          .last()
          .screenshot({ path: path.join(SHOTS, shot) });
      await page.keyboard.press('Escape');
      await page.click('#node-dialog-cancel');
      await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
    };
    const asked = (p) => fake.requests.filter((r) => r.path.startsWith(`/api${p}`)).length;
    const engines = asked('/sql/query');
    await suggests('model1', '#node-input-engine', 'llm', 'llm_engine');
    assert.ok(asked('/sql/query') > engines, "the model's engine picker asked the server (SHOW ML_ENGINES)");
    const handlers = asked('/handlers/');
    await suggests('mle1', '#node-input-handler', 'open', 'openai', 'mindsdb-ml-engine-picker.png');
    assert.ok(asked('/handlers/') > handlers, 'the handler picker asked the server (GET /api/handlers/?lazy=1)');
    assert.equal(await page.evaluate(() => RED.nodes.node('model1').engine), 'linear', 'cancel kept the saved engine');
  });

  it("tests the config node's connection: the server's version, or the error for a wrong URL", async function () {
    await page.evaluate((id) => RED.editor.editConfig('', 'mindsdb-server', id), SERVER_ID);
    await page.waitForSelector('#mindsdb-test-button', { state: 'visible' });
    await uiAtRest(page);
    assert.deepEqual(await untranslatedLabels(page, '#node-config-dialog-edit-form'), [], 'every label translated');
    await page.click('#mindsdb-test-button');
    const result = page.locator('#mindsdb-test-result');
    await page.waitForSelector('#mindsdb-test-result.mindsdb-server-test-ok', { timeout: 20000 });
    const shown = await result.textContent();
    assert.match(shown, /25\.14\.1/, 'shows the server version');
    assert.match(
      shown,
      /MindsDB 25\.14\.1 has no integration capabilities/,
      'names the version that lacks the 26.2 capabilities route',
    );
    await page
      .locator('.red-ui-tray')
      .last()
      .screenshot({ path: path.join(SHOTS, 'mindsdb-server-dialog.png') });

    const closed = await freePort(); // nothing listens there
    await page.fill('#node-config-input-url', `http://127.0.0.1:${closed}`);
    await page.click('#mindsdb-test-button');
    await page.waitForSelector('#mindsdb-test-result.mindsdb-server-test-failed', { timeout: 20000 });
    const text = await result.textContent();
    assert.match(text, /refused|connect/i, `explains the failure, got "${text}"`);
    await page
      .locator('.red-ui-tray')
      .last()
      .screenshot({ path: path.join(SHOTS, 'mindsdb-server-test-failed.png') });
    await page.click('#node-config-dialog-cancel');
    await page.waitForSelector('#node-config-dialog-cancel', { state: 'detached' });
  });

  for (const type of ['mindsdb-server', ...NODES.map((n) => n.type)]) {
    it(`shows the ${type} help in the sidebar`, async function () {
      await page.evaluate((t) => RED.sidebar.help.show(t), type);
      // The info sidebar keeps hidden help panels around; the shown one is the visible one.
      const help = page.locator('.red-ui-sidebar-info .red-ui-help:visible').first();
      await help.waitFor({ state: 'visible' });
      const text = await help.textContent();
      assert.ok(text.length > 200, `${type} help has real content`);
      const headings = await help.locator('h3').allTextContents();
      if (type === 'mindsdb-server') {
        assert.ok(headings.length >= 1, 'the config node help has sections');
      } else {
        assert.ok(
          headings.some((h) => /Inputs/.test(h)),
          `${type} help has Inputs, got ${headings}`,
        );
        assert.ok(
          headings.some((h) => /Outputs/.test(h)),
          `${type} help has Outputs, got ${headings}`,
        );
        assert.ok((await help.locator('dl.message-properties').count()) >= 2, `${type} help lists message properties`);
      }
      assert.ok(
        headings.some((h) => /Details/.test(h)),
        `${type} help has Details`,
      );
      if (type === 'mindsdb-predict')
        await page.locator('#red-ui-sidebar').screenshot({ path: path.join(SHOTS, 'help-sidebar.png') });
    });
  }

  it('lists every example under Import → Examples and imports each with no unknown node types', async function () {
    const files = fs
      .readdirSync(path.join(root, 'examples'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    const listed = await page.evaluate((mod) => $.getJSON(`library/examples/flows/${mod}`), pkg.name);
    const names = listed
      .map((e) => (typeof e === 'string' ? e : e.fn || e.name))
      .map((s) => String(s).replace(/\.json$/, ''))
      .sort();
    assert.deepEqual(names, files, 'the editor lists every example');
    for (const file of files) {
      const flow = await page.evaluate(([mod, f]) => $.getJSON(`library/examples/flows/${mod}/${f}`), [pkg.name, file]);
      const result = await page.evaluate((nodes) => {
        const before = new Set(RED.nodes.createCompleteNodeSet().map((n) => n.id));
        RED.view.importNodes(nodes, { generateIds: true, addFlow: true });
        const added = RED.nodes.createCompleteNodeSet().filter((n) => !before.has(n.id));
        const unknown = [];
        for (const n of added) {
          if (n.type === 'tab' || n.type === 'group' || n.type === 'junction') continue;
          const node = RED.nodes.node(n.id);
          if (
            !RED.nodes.getType(n.type) ||
            (node?._def?.set && node._def.set.module === undefined && node._def.category === undefined)
          )
            unknown.push(n.type);
        }
        const tab = added.find((n) => n.type === 'tab');
        return {
          count: added.length,
          unknown,
          tab: tab?.id,
          comments: added.filter((n) => n.type === 'comment').length,
        };
      }, flow);
      assert.ok(result.count > 2, `${file}: imported its nodes`);
      assert.deepEqual(result.unknown, [], `${file}: no unknown node types`);
      assert.ok(result.comments >= 1, `${file}: explains itself in a comment node`);
      if (file === 'iot-predict') {
        await page.evaluate((tab) => RED.workspaces.show(tab), result.tab);
        await page.waitForFunction(
          (tab) => RED.workspaces.active() === tab && $('#red-ui-workspace-chart .red-ui-flow-node').length > 0,
          result.tab,
          { timeout: 10000 },
        );
        await uiAtRest(page);
        await page.evaluate(() => $('.red-ui-notification').hide()); // "imported 11 nodes" would cover the flow
        await page.locator('#red-ui-workspace').screenshot({ path: path.join(SHOTS, 'example-iot-predict.png') });
      }
    }
  });

  // Last but one: after Chromium's native drag and drop, a later fill() of a textarea in the same
  // page appended to its text instead of replacing it (Node-RED 5's plain code editor test).
  it("has the MindsDB sidebar (an editor plugin): the server's tree, and a model dragged onto the canvas makes a predict node", async function () {
    await page.evaluate(() => RED.sidebar.show('mindsdb'));
    const row = (name) => `#mindsdb-sidebar-tree .mindsdb-tree-row[data-name="${name}"]`;
    await page.waitForSelector(row('mindsdb'), { timeout: 20000 }).catch(async (err) => {
      throw new Error(`${err.message}: the sidebar shows ${await page.textContent('#red-ui-sidebar')}`);
    });
    assert.equal(await page.$eval('#mindsdb-sidebar-server', (s) => s.value), SERVER_ID);
    await page.click(row('mindsdb'));
    await page.waitForSelector(`${row('home_rentals')}[data-kind="model"]`, { timeout: 20000 });
    assert.match(await page.textContent(row('home_rentals')), /complete · v1 · byom/);
    const before = await page.evaluate(() => {
      const ids = [];
      RED.nodes.eachNode((n) => {
        ids.push(n.id);
      });
      return ids;
    });
    await page.dragAndDrop(row('home_rentals'), '#red-ui-workspace-chart', { targetPosition: { x: 400, y: 500 } });
    const made = await page.evaluate((known) => {
      let node;
      RED.nodes.eachNode((n) => {
        if (!known.includes(n.id)) node = n;
      });
      if (!node) return null;
      const seen = {
        type: node.type,
        server: node.server,
        project: node.project,
        model: node.model,
        valid: node.valid,
      };
      RED.nodes.remove(node.id);
      RED.view.redraw(true);
      return seen;
    }, before);
    assert.deepEqual(made, {
      type: 'mindsdb-predict',
      server: SERVER_ID,
      project: 'mindsdb',
      model: 'home_rentals',
      valid: true,
    });
    await page.evaluate(() => RED.sidebar.show('info'));
  });

  it('logged no error in the browser', function () {
    assert.deepEqual(problems, []);
  });
});
