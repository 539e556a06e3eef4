'use strict';
/**
 * The MindsDB sidebar's preview of a knowledge base, in Chromium against the fake MindsDB (the same
 * search on the real servers: test/e2e/kb-search.e2e.js): a click on a knowledge base opens the
 * search, its filter reaches MindsDB as bound conditions and the rows show; a filter on a column in
 * another case than stored shows the error that names the stored one, and nothing is searched.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { startNodeRed, launchChromium, uiAtRest } = require('./harness');

describe("the MindsDB sidebar's preview of a knowledge base, in Chromium", function () {
  this.timeout(120000);
  let fake;
  let red;
  let browser;
  let page;
  const problems = [];
  const searches = [];

  before(async function () {
    fake = await createFakeMindsDB().listen();
    await fetch(`${fake.url}/api/projects/mindsdb/knowledge_bases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        knowledge_base: { name: 'notes', storage: { database: 'v', table: 't' }, metadata_columns: ['product'] },
      }),
    });
    fake.state.sql = (body) => {
      if (!/FROM `mindsdb`\.`notes`/.test(body.query)) return null;
      searches.push(body);
      return {
        type: 'table',
        column_names: ['id', 'distance', 'chunk_id', 'chunk_content', 'relevance', 'product', 'metadata'],
        data: [['d3', 0.2, 'd3:c', 'pump pressure sensor replacement', 0.8, 'pump', { product: 'pump' }]],
      };
    };
    const flows = [
      { id: 'f1', type: 'tab', label: 'kb preview' },
      { id: 'srv', type: 'mindsdb-server', name: 'fake', url: fake.url, apiPrefix: '/api', authMode: 'none' },
      { id: 'sql1', type: 'mindsdb-sql', z: 'f1', server: 'srv', query: 'SELECT 1', x: 200, y: 100, wires: [[]] },
    ];
    red = await startNodeRed(flows);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    });
    await page.goto(red.url);
    await page.waitForFunction(() => window.RED && RED.nodes?.node('srv') && window.MindsDBSidebar, null, {
      timeout: 60000,
    });
    await uiAtRest(page);
  });
  after(async function () {
    if (browser) await browser.close();
    if (red) await red.stop();
    if (fake) await fake.close();
  });

  it('searches a knowledge base with a filter and shows its rows; a wrong-case column shows why not', async function () {
    await page.evaluate(() => RED.sidebar.show('mindsdb'));
    const row = (name) => `#mindsdb-sidebar-tree .mindsdb-tree-row[data-name="${name}"]`;
    await page.waitForSelector(row('mindsdb'), { timeout: 20000 });
    await page.click(row('mindsdb'));
    await page.click(`${row('notes')}[data-kind="knowledge_base"]`);
    await page.waitForSelector('#mindsdb-kb-preview', { state: 'visible' });
    assert.equal((await page.textContent('#mindsdb-kb-preview .mindsdb-kb-preview-head')).trim(), 'mindsdb.notes');
    await page.fill('#mindsdb-kb-preview-text', 'pressure');
    await page.fill('#mindsdb-kb-preview-filter', '{"product": ["pump", "heater"]}');
    await page.click('#mindsdb-kb-preview-run');
    await page.waitForSelector('#mindsdb-kb-preview-rows td');
    const cells = await page.$$eval('#mindsdb-kb-preview-rows tr', (trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent)),
    );
    assert.deepEqual(cells, [
      ['id', 'chunk_content', 'relevance', 'product'],
      ['d3', 'pump pressure sensor replacement', '0.8', 'pump'],
    ]);
    assert.equal(searches.length, 1);
    assert.match(searches[0].query, /WHERE content = :q AND `product` IN \(:f1, :f2\) LIMIT 20$/);
    assert.deepEqual(searches[0].params, { q: 'pressure', f1: 'pump', f2: 'heater' });

    await page.fill('#mindsdb-kb-preview-filter', '{"Product": "pump"}');
    await page.click('#mindsdb-kb-preview-run');
    await page.waitForSelector('#mindsdb-kb-preview-status.failed');
    assert.match(await page.textContent('#mindsdb-kb-preview-status'), /MindsDB stored it as "product"/);
    await page.fill('#mindsdb-kb-preview-filter', '{product: pump}');
    await page.click('#mindsdb-kb-preview-run');
    assert.match(await page.textContent('#mindsdb-kb-preview-status'), /not JSON/);
    assert.equal(searches.length, 1, 'nothing was searched for the refused filters');
  });

  it('logged no error in the browser', function () {
    assert.deepEqual(problems, []);
  });
});
