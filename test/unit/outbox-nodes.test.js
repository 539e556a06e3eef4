'use strict';
/**
 * The outbox of the sql node (statements marked as writes) and of the knowledge-base node's
 * inserts, against the in-process stand-in: kept while MindsDB is away and sent when it is back;
 * a write whose answer was lost goes again only where that cannot store it twice (a knowledge base
 * with an ID column: MindsDB replaces a row by its id), else it ends as stored: "unknown".
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { portBelowEphemeral } = require('../support/ports');
const { helper, node, catchNode, completeNode, flowWith } = require('../support/nr');
const { waitFor } = require('../support/wait');

const nodes = [node('mindsdb-server'), node('mindsdb-sql'), node('mindsdb-knowledge-base'), catchNode, completeNode];
const OUTBOX = { outbox: true, outboxSizeMB: 10, outboxMaxAgeH: 24 };
const sqlDef = {
  type: 'mindsdb-sql',
  query: '',
  database: '',
  databaseType: 'str',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 100,
  ...OUTBOX,
};
const kbDef = {
  type: 'mindsdb-knowledge-base',
  operation: 'insert',
  project: 'mindsdb',
  projectType: 'str',
  itemName: 'docs',
  itemNameType: 'str',
  provider: '',
  embeddingModel: '',
  baseUrl: '',
  storageDatabase: '',
  storageTable: '',
  contentColumns: '',
  metadataColumns: '',
  idColumn: '',
  insertQuery: '',
  ...OUTBOX,
};

describe('the outbox of the sql and knowledge-base nodes', function () {
  this.timeout(20000);
  let fake;
  let port;
  let dir;
  let got;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-outbox-nodes-'));
    helper.settings({ userDir: dir });
    port = await portBelowEphemeral();
    fake = createFakeMindsDB();
    fake.state.kbs.set('mindsdb/docs', { record: { name: 'docs', project: 'mindsdb' }, rows: [] });
  });
  afterEach(async () => {
    await helper.unload();
    helper.settings({});
    await fake.close().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  async function load(def) {
    await helper.load(nodes, flowWith(def, { url: `http://127.0.0.1:${port}`, retries: 0 }));
    got = { out: [], caught: [], completed: [] };
    for (const [id, list] of [
      ['out', got.out],
      ['caught', got.caught],
      ['completed', got.completed],
    ])
      helper.getNode(id).on('input', (m) => list.push(m));
  }
  const lostOnce = (match) => {
    let n = 1;
    fake.state.faultPlan = (e) => (match(e) && n-- > 0 ? FAULTS['answer lost after the write'] : null);
  };
  const kbRows = () => fake.state.kbs.get('mindsdb/docs').rows.map((r) => r.id);

  it('sql: a write kept while MindsDB is away goes when it is back, its answer the output', async () => {
    await load(sqlDef);
    // (the stand-in answers any statement; what matters is that it is kept, then sent once)
    helper.getNode('n1').receive({ _msgid: 'w1', query: 'SELECT 1' });
    await waitFor(() => got.completed.length === 1, { timeoutMs: 5000, what: 'the write kept' });
    assert.deepEqual(got.out, []);
    assert.deepEqual(got.caught, []);
    await fake.listen(port);
    await waitFor(() => got.out.length === 1, { timeoutMs: 8000, what: 'the write sent once MindsDB is back' });
    assert.equal(got.out[0]._msgid, 'w1');
    assert.equal(fake.requestsTo('/sql/query').length, 1);
    assert.deepEqual(got.out[0].payload, [{ 1: 1 }]);
  });

  it('sql: a write whose answer was lost is not sent again: Catch, stored "unknown"', async () => {
    await fake.listen(port);
    await load(sqlDef);
    lostOnce((e) => typeof e.body?.query === 'string');
    helper.getNode('n1').receive({ query: 'SELECT 1' });
    await waitFor(() => got.caught.length === 1, { timeoutMs: 5000, what: 'the write at Catch' });
    assert.equal(got.caught[0].mindsdb.stored, 'unknown');
    assert.equal(fake.requestsTo('/sql/query').length, 1);
  });

  it('sql, knowledge base: a write MindsDB failed with a 500 goes to Catch, not kept, stored "unknown" as for the table', async () => {
    // A 500 is the server failing while it did the request: what it did before is not known (issue 39; the outbox
    // said stored: false here while the table node said "unknown"). Another attempt would meet the same answer.
    await fake.listen(port);
    for (const [def, msg, route] of [
      [sqlDef, { query: 'SELECT 1' }, (e) => typeof e.body?.query === 'string'],
      [kbDef, { payload: [{ id: 'b', content: 'valve leaks' }] }, (e) => e.method === 'PUT'],
    ]) {
      await load(def);
      fake.state.faultPlan = (e) => (route(e) ? FAULTS['HTTP 500'] : null);
      helper.getNode('n1').receive(msg);
      await waitFor(() => got.caught.length === 1, { timeoutMs: 5000, what: 'the write at Catch' });
      assert.equal(got.caught[0].mindsdb.stored, 'unknown', JSON.stringify(got.caught[0].mindsdb));
      assert.equal(got.caught[0].mindsdbError.status, 500);
      fake.state.faultPlan = null;
      await helper.unload();
    }
  });

  it('knowledge base: an insert kept while MindsDB is away goes when it is back', async () => {
    await load(kbDef);
    helper.getNode('n1').receive({ payload: [{ id: 'a', content: 'pump overheats' }] });
    await waitFor(() => got.completed.length === 1, { timeoutMs: 5000, what: 'the insert kept' });
    await fake.listen(port);
    await waitFor(() => got.out.length === 1, { timeoutMs: 8000, what: 'the insert sent once MindsDB is back' });
    assert.deepEqual(kbRows(), ['a']);
    assert.deepEqual(got.out[0].mindsdb, {
      resource: 'knowledge_base',
      operation: 'insert',
      project: 'mindsdb',
      name: 'docs',
      stored: true,
      replayed: true,
    });
  });

  it('knowledge base with an ID column: an insert whose answer was lost goes again, and is stored once', async () => {
    await fake.listen(port);
    await load({ ...kbDef, idColumn: 'id' });
    lostOnce((e) => e.method === 'PUT');
    helper.getNode('n1').receive({
      payload: [
        { id: 'a', content: 'pump overheats' },
        { id: 'b', content: 'fan' },
      ],
    });
    await waitFor(() => got.out.length === 1, {
      timeoutMs: 8000,
      what: () => `the insert stored (caught ${got.caught.length})`,
    });
    assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 2, 'sent again once');
    assert.deepEqual(kbRows(), ['a', 'b'], 'each row once: MindsDB replaces a row by its id');
  });

  it('knowledge base without an ID column: an insert whose answer was lost ends at Catch, stored "unknown"', async () => {
    await fake.listen(port);
    await load(kbDef);
    lostOnce((e) => e.method === 'PUT');
    helper.getNode('n1').receive({ payload: [{ content: 'pump overheats' }] });
    await waitFor(() => got.caught.length === 1, { timeoutMs: 5000, what: 'the insert at Catch' });
    assert.equal(got.caught[0].mindsdb.stored, 'unknown');
    assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 1);
  });
});
