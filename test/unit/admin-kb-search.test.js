'use strict';
/**
 * The sidebar's preview of a knowledge base (src/runtime/editor/admin-kb-search.ts): POST
 * mindsdb/kb-search searches as the knowledge-base node does, the filter checked against the
 * columns MindsDB stored and its values bound, at most 20 rows; a refused filter says why and sends
 * nothing. On the real servers the same search runs in test/e2e/kb-search.e2e.js.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, allNodes } = require('../support/nr');

describe("the sidebar's preview of a knowledge base", function () {
  this.timeout(20000);
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await fetch(`${fake.url}/api/projects/mindsdb/knowledge_bases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        knowledge_base: {
          name: 'notes',
          storage: { database: 'v', table: 't' },
          metadata_columns: ['product', 'year'],
        },
      }),
    });
    await new Promise((r) => helper.startServer(r));
    await helper.load(allNodes(), [
      { id: 'f1', type: 'tab' },
      {
        id: 'srv',
        type: 'mindsdb-server',
        url: fake.url,
        apiPrefix: '/api',
        authMode: 'none',
        timeout: 5000,
        retries: 0,
      },
    ]);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const post = (body) =>
    helper
      .request()
      .post('/mindsdb/kb-search')
      .send(body)
      .expect(200)
      .then((res) => res.body);

  it('searches with the filter bound, at most 20 rows; the rows and columns as the node has them', async () => {
    const seen = [];
    fake.state.sql = (body) => {
      seen.push(body);
      return {
        type: 'table',
        column_names: ['id', 'chunk_content', 'relevance', 'product', 'metadata'],
        data: [['d1', 'pump seal', 0.8, 'boiler', { product: 'pump' }]],
      };
    };
    const answer = await post({
      server: 'srv',
      project: 'mindsdb',
      name: 'notes',
      text: 'seal',
      filter: { product: 'pump', year: { '>=': 2024 } },
    });
    assert.deepEqual(answer, {
      ok: true,
      columns: ['id', 'chunk_content', 'relevance', 'product', 'metadata'],
      rows: [{ id: 'd1', chunk_content: 'pump seal', relevance: 0.8, product: 'pump', metadata: { product: 'pump' } }],
    });
    assert.equal(
      seen[0].query,
      'SELECT * FROM `mindsdb`.`notes` WHERE content = :q AND `product` = :f1 AND `year` >= :f2 LIMIT 20',
    );
    assert.deepEqual(seen[0].params, { q: 'seal', f1: 'pump', f2: 2024 });
  });

  it('refuses a filter on a column in another case, or without text, before anything is searched', async () => {
    const base = { server: 'srv', project: 'mindsdb', name: 'notes', text: 'seal' };
    const wrongCase = await post({ ...base, filter: { Product: 'pump' } });
    assert.equal(wrongCase.ok, false);
    assert.match(wrongCase.error, /no metadata column "Product": MindsDB stored it as "product"/);
    assert.match((await post({ ...base, text: ' ' })).error, /has no text/);
    assert.match((await post({ ...base, filter: 'product=pump' })).error, /the filter must be an object/);
    assert.equal(fake.requestsTo('/sql/query').length, 0);
  });
});
