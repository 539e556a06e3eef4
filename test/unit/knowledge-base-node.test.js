'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { knowledgeInsert } = require('../../nodes/client');

const nodes = [node('mindsdb-server'), node('mindsdb-knowledge-base'), catchNode];
const base = {
  type: 'mindsdb-knowledge-base',
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  provider: 'openai',
  embeddingModel: 'text-embedding-3-small',
  baseUrl: 'http://127.0.0.1:9/v1',
  storageDatabase: '',
  storageTable: '',
  contentColumns: '',
  metadataColumns: '',
  idColumn: '',
  insertQuery: '',
  limit: '',
  threshold: '',
};
const SECRET = 'sk-unit-kb-secret-123';

describe('mindsdb-knowledge-base node', function () {
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const load = (def = {}) =>
    helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url }), { n1: { apiKey: SECRET } });
  const run = async (msg) => {
    const got = nextMessage('out');
    helper.getNode('n1').receive(msg);
    return got;
  };
  const fail = async (msg) => {
    const got = nextMessage('caught');
    helper.getNode('n1').receive(msg);
    return got;
  };

  it('creates with the embedding settings and the api key from the credential; the key never comes back', async () => {
    await load({
      operation: 'create',
      itemName: 'docs',
      storageDatabase: 'vec',
      storageTable: 'docs',
      metadataColumns: 'area, kind',
      idColumn: 'doc_id',
    });
    const m = await run({ payload: { embedding_model: { dimensions: 256, provider: 'other' }, params: { x: 1 } } });
    assert.deepEqual(fake.requests.at(-1).body, {
      knowledge_base: {
        embedding_model: {
          dimensions: 256,
          provider: 'openai',
          model_name: 'text-embedding-3-small',
          base_url: 'http://127.0.0.1:9/v1',
          api_key: SECRET,
        },
        params: { x: 1 },
        storage: { database: 'vec', table: 'docs' },
        metadata_columns: ['area', 'kind'],
        id_column: 'doc_id',
        name: 'docs',
      },
    });
    assert.equal(m.payload.name, 'docs');
    assert.ok(!JSON.stringify(m).includes(SECRET));
    assert.deepEqual(m.mindsdb, { resource: 'knowledge_base', operation: 'create', project: 'mindsdb', name: 'docs' });
  });

  it('a create without storage that fails after MindsDB made its default store deletes that data source again (issue 32)', async () => {
    await fake.close();
    fake = await createFakeMindsDB({ chromadb: false }).listen();
    fake.state.databases.set('other_chromadb', {
      id: 90,
      name: 'other_chromadb',
      type: 'data',
      engine: 'chromadb',
      connection_data: {},
    });
    await load({ operation: 'create', itemName: 'Docs' });
    const e = await fail({});
    assert.match(
      e.error.message,
      /chromadb.*\(the node deleted the data source Docs_chromadb that MindsDB made for the default vector store before it failed; give the knowledge base a vector store of its own with Storage\)/,
    );
    assert.equal(fake.state.databases.has('docs_chromadb'), false);
    assert.equal(fake.state.databases.has('other_chromadb'), true, 'a store that was there before is left alone');
    assert.deepEqual([e.mindsdb.operation, e.mindsdb.name, e.mindsdb.leftover], ['create', 'Docs', undefined]);
  });

  it('an insert MindsDB may have stored in part (chunks of 50,000 rows) says so; a smaller one does not', async () => {
    fake.state.kbs.set('mindsdb/kb1', { record: { id: 1, name: 'kb1', project: 'mindsdb' }, rows: [] });
    await load({ operation: 'insert', itemName: 'kb1' });
    fake.state.faultPlan = (entry) =>
      entry.method === 'PUT'
        ? (_req, res) => {
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end('{"title":"Preprocessing Error","detail":"embedding failed"}');
          }
        : null;
    const big = await fail({ payload: 'SELECT * FROM files.docs' });
    assert.match(
      big.error.message,
      /embedding failed \(MindsDB embeds and stores an insert in chunks of 50000 rows, so the first chunks of 50000 rows of what the query answered may be stored in mindsdb\.kb1; sending the same content again stores no duplicates\)/,
    );
    assert.equal(big.mindsdb.leftover.length, 1);
    const small = await fail({ payload: [{ content: 'a' }] });
    assert.doesNotMatch(small.error.message, /chunks/);
    assert.equal(small.mindsdb.leftover, undefined);
  });

  describe("the stored API key goes only with the node's own provider and base URL (issue 21, instance 6)", () => {
    const leaked = () => fake.requests.filter((r) => r.rawBody.includes(SECRET));

    it('a base_url from msg.payload.embedding_model does not get the stored key: the message fails, nothing is sent', async () => {
      await load({ operation: 'create', itemName: 'kb1', baseUrl: '' });
      const m = await fail({ payload: { embedding_model: { base_url: 'https://attacker.example/v1' } }, marker: 6 });
      assert.equal(m.marker, 6);
      assert.match(
        m.error.message,
        /embedding API key stored in the node is sent only where the node says, but msg\.payload\.embedding_model\.base_url chose/,
      );
      assert.deepEqual(leaked(), []);
      assert.equal(fake.requests.filter((r) => r.method === 'POST').length, 0, 'nothing was created');
    });

    it('a provider from the msg is a destination too', async () => {
      await load({ operation: 'create', itemName: 'kb2', provider: '', baseUrl: '' });
      const m = await fail({
        payload: { embedding_model: { provider: 'azure_openai', azure_endpoint: 'https://attacker.example' } },
      });
      assert.match(
        m.error.message,
        /embedding_model\.provider and msg\.payload\.embedding_model\.azure_endpoint chose/,
      );
      assert.deepEqual(leaked(), []);
    });

    it('a msg that chooses the base URL and brings its own key is sent with that key, never the stored one', async () => {
      await load({ operation: 'create', itemName: 'kb3', baseUrl: '' });
      await run({ payload: { embedding_model: { base_url: 'https://other.example/v1', api_key: 'sk-msg-own' } } });
      assert.deepEqual(fake.requests.at(-1).body.knowledge_base.embedding_model, {
        base_url: 'https://other.example/v1',
        api_key: 'sk-msg-own',
        provider: 'openai',
        model_name: 'text-embedding-3-small',
      });
      assert.deepEqual(leaked(), []);
    });

    it('with the base URL in the node, a msg base_url is ignored and the stored key is sent (as before)', async () => {
      await load({ operation: 'create', itemName: 'kb4' });
      await run({ payload: { embedding_model: { base_url: 'https://attacker.example/v1' } } });
      assert.equal(fake.requests.at(-1).body.knowledge_base.embedding_model.base_url, 'http://127.0.0.1:9/v1');
      assert.equal(fake.requests.at(-1).body.knowledge_base.embedding_model.api_key, SECRET);
    });
  });

  it('inserts rows, texts, URLs and a SELECT; searches with bound text, limit and threshold; rows out like the sql node', async () => {
    await load({ itemName: 'kb' });
    await run({ operation: 'create' });
    assert.deepEqual(
      (
        await run({
          operation: 'insert',
          payload: [
            { id: 'a', content: 'pump overheats' },
            { id: 'b', content: 'lunch at noon' },
          ],
        })
      ).payload,
      { inserted: true, name: 'kb', rows: 2 },
    );
    assert.deepEqual(fake.requests.at(-1).body, {
      knowledge_base: {
        rows: [
          { id: 'a', content: 'pump overheats' },
          { id: 'b', content: 'lunch at noon' },
        ],
      },
    });
    await run({ operation: 'insert', payload: ['just text'] });
    assert.deepEqual(fake.requests.at(-1).body.knowledge_base, { rows: [{ content: 'just text' }] });
    assert.deepEqual((await run({ operation: 'insert', payload: ['https://example.com/a'] })).payload, {
      inserted: true,
      name: 'kb',
      urls: 1,
    });
    assert.deepEqual(fake.requests.at(-1).body.knowledge_base, { urls: ['https://example.com/a'] });
    await run({ operation: 'insert', payload: 'SELECT content FROM files.docs;' });
    assert.deepEqual(fake.requests.at(-1).body.knowledge_base, { query: 'SELECT content FROM files.docs' });
    const evil = "pump'; DROP TABLE x; --";
    const m = await run({ operation: 'search', payload: evil, limit: 1, threshold: 0.1 });
    const sql = fake.requestsTo('/sql/query').at(-1).body;
    assert.equal(sql.query, 'SELECT * FROM `mindsdb`.`kb` WHERE content = :q AND relevance >= :r LIMIT 1');
    assert.deepEqual(sql.params, { q: evil, r: 0.1 });
    assert.equal(m.payload.length, 1);
    assert.equal(m.payload[0].id, 'a');
    assert.deepEqual(m.mindsdb.columns, ['id', 'chunk_id', 'chunk_content', 'metadata', 'distance', 'relevance']);
    assert.deepEqual((await run({ operation: 'search', payload: 'nothing matches', threshold: 0.5 })).payload, []);
  });

  it('takes the insert SELECT from the node, node limit over msg.limit, default limit 10', async () => {
    await load({ itemName: 'kb', insertQuery: 'SELECT 1 AS content', limit: '3' });
    await run({ operation: 'create' });
    await run({ operation: 'insert', payload: [{ content: 'ignored' }] });
    assert.deepEqual(fake.requests.at(-1).body.knowledge_base, { query: 'SELECT 1 AS content' });
    await run({ operation: 'search', payload: 'x', limit: 50 });
    assert.match(fake.requestsTo('/sql/query').at(-1).body.query, /LIMIT 3$/);
    await helper.unload();
    await load({ itemName: 'kb' });
    await run({ operation: 'search', payload: 'x' });
    assert.match(fake.requestsTo('/sql/query').at(-1).body.query, /LIMIT 10$/);
  });

  it("search: the node's Filter and msg.filter both apply, checked against the stored metadata columns, values bound", async () => {
    await load({
      itemName: 'kb',
      filter: '{"product": "boiler"}',
      filterType: 'json',
      hybrid: true,
      alpha: '0.3',
      reranking: 'off',
    });
    await run({ operation: 'create', payload: { metadata_columns: ['product', 'year'] } });
    const seen = [];
    fake.state.sql = (body) => {
      seen.push(body);
      return {
        type: 'table',
        column_names: ['id', 'relevance', 'product', 'metadata'],
        data: [['a', 0.9, 'x', { product: 'boiler' }]],
      };
    };
    const m = await run({ operation: 'search', payload: 'pressure', filter: { year: { '>=': '2024' } }, alpha: 0.9 });
    assert.deepEqual(seen[0].params, { q: 'pressure', f1: 'boiler', f2: 2024, alpha: 0.3 });
    assert.equal(
      seen[0].query,
      'SELECT * FROM `mindsdb`.`kb` WHERE content = :q AND `product` = :f1 AND `year` >= :f2 AND ' +
        'hybrid_search_alpha = :alpha AND reranking = false LIMIT 10',
    );
    assert.deepEqual(m.payload, [{ id: 'a', relevance: 0.9, product: 'boiler', metadata: { product: 'boiler' } }]);
    // A column in another case than stored: refused before anything is searched.
    const e = await fail({ operation: 'search', payload: 'pressure', filter: { Year: 2024 } });
    assert.match(e.error.message, /no metadata column "Year": MindsDB stored it as "year"/);
    assert.equal(seen.length, 1);
  });

  it('search: msg.hybrid, msg.alpha and msg.reranking when the node leaves them; refuses what cannot be', async () => {
    await load({ itemName: 'kb' });
    await run({ operation: 'create' });
    const seen = [];
    fake.state.sql = (body) => {
      seen.push(body);
      return { type: 'table', column_names: ['id'], data: [] };
    };
    await run({ operation: 'search', payload: 'x', hybrid: true, reranking: false });
    assert.match(seen.at(-1).query, /WHERE content = :q AND hybrid_search = true AND reranking = false LIMIT 10$/);
    await run({ operation: 'search', payload: 'x', hybrid: true, alpha: 0 });
    assert.deepEqual(seen.at(-1).params, { q: 'x', alpha: 0 });
    assert.match((await fail({ operation: 'search', payload: 'x', alpha: 0.5 })).error.message, /tick Hybrid search/);
    assert.match(
      (await fail({ operation: 'search', payload: 'x', hybrid: 'yes' })).error.message,
      /msg\.hybrid must be/,
    );
    assert.match(
      (await fail({ operation: 'search', payload: 'x', reranking: true })).error.message,
      /has no reranking model, so reranking cannot be switched on/,
    );
    assert.match((await fail({ operation: 'search', payload: 'x', limit: 150 })).error.message, /at most 100 rows/);
    assert.match((await fail({ operation: 'search', payload: 'x', filter: 'a=1' })).error.message, /msg\.filter must/);
    assert.equal(seen.length, 2);
  });

  it("create ignores a payload that is not an object (an inject's timestamp)", async () => {
    await load({ operation: 'create', itemName: 'ts' });
    assert.equal((await run({ payload: 1763900000000 })).payload.name, 'ts');
  });

  it('lists, gets (key masked) and deletes', async () => {
    await load();
    await run({ operation: 'create', name: 'k1' });
    assert.deepEqual(
      (await run({ operation: 'list' })).payload.map((k) => k.name),
      ['k1'],
    );
    assert.equal((await run({ operation: 'get', name: 'k1' })).payload.embedding_model.api_key, '******');
    assert.deepEqual((await run({ operation: 'delete', name: 'k1' })).payload, {
      deleted: true,
      resource: 'knowledge_base',
      project: 'mindsdb',
      name: 'k1',
    });
  });

  it('an error that quotes the api key reaches Catch without it', async () => {
    await load({ operation: 'create', itemName: 'k' });
    fake.fault((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'Bad key', detail: `key ${SECRET} refused` }));
    });
    const e = await fail({});
    assert.match(e.error.message, /Bad key/);
    assert.ok(!JSON.stringify(e).includes(SECRET));
  });

  for (const [what, def, msg, pattern] of [
    [
      'a duplicate knowledge base (409)',
      { operation: 'create', itemName: 'dup' },
      { twice: true },
      /409.*already exists/,
    ],
    [
      'search of a missing knowledge base',
      { operation: 'search', itemName: 'ghost' },
      { payload: 'x' },
      /knowledge base "ghost" cannot be searched/,
    ],
    ['search without text', { operation: 'search', itemName: 'k' }, { payload: 5 }, /must be the text to search for/],
    [
      'a threshold outside 0…1',
      { operation: 'search', itemName: 'k' },
      { payload: 'x', threshold: 2 },
      /threshold must be a number from 0 to 1/,
    ],
    [
      'a limit that is not whole',
      { operation: 'search', itemName: 'k' },
      { payload: 'x', limit: 2.5 },
      /limit must be a whole number/,
    ],
    [
      'an insert payload of the wrong type',
      { operation: 'insert', itemName: 'k' },
      { payload: 42 },
      /must be what to insert/,
    ],
    [
      'a create payload whose embedding_model is not an object',
      { operation: 'create', itemName: 'k' },
      { payload: { embedding_model: 'x' } },
      /embedding_model must be an object/,
    ],
    [
      'storage without a table',
      { operation: 'create', itemName: 'k', storageDatabase: 'vec' },
      {},
      /both a vector database and a table/,
    ],
    ['no name', { operation: 'get' }, {}, /no knowledge base name/],
    ['a bad operation', {}, { operation: 'update' }, /must be one of create, insert, search, list, get, delete/],
  ]) {
    it(`sends ${what} to Catch with the msg`, async () => {
      await load(def);
      if (msg.twice) await run({});
      const m = await fail({ ...msg, marker: 4 });
      assert.equal(m.marker, 4);
      assert.match(m.error.message, pattern);
    });
  }

  it('insert shapes', () => {
    assert.deepEqual(knowledgeInsert('https://a.b/c'), { urls: ['https://a.b/c'] });
    assert.deepEqual(knowledgeInsert('WITH x AS (SELECT 1) SELECT * FROM x'), {
      query: 'WITH x AS (SELECT 1) SELECT * FROM x',
    });
    assert.deepEqual(knowledgeInsert({ content: 'c' }), { rows: [{ content: 'c' }] });
    assert.throws(() => knowledgeInsert([{ content: 'c' }, 3]), /msg.payload\[1\]/);
    assert.throws(() => knowledgeInsert([]), /must be what to insert/);
  });
});
