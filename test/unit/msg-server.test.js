'use strict';
/**
 * msg.server (issue 34, part 4): a message may choose, by name, one of the server nodes the user
 * listed in the node's dialog (or the node's own); any other value is an error that names the
 * allowed ones, and nothing is sent anywhere. No URL, credential or header comes from a message.
 * Two stand-in MindsDB servers show where each request went; a micro-batch never mixes servers.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, collect, userDirEachCase } = require('../support/nr');

const nodes = [node('mindsdb-server'), node('mindsdb-sql'), node('mindsdb-predict'), node('mindsdb-table'), catchNode];
const sql = {
  type: 'mindsdb-sql',
  query: 'SELECT 1',
  database: '',
  databaseType: 'str',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 100,
};
const predict = {
  type: 'mindsdb-predict',
  project: 'mindsdb',
  projectType: 'str',
  model: 'home_rentals',
  modelType: 'str',
  params: '',
  paramsType: 'json',
  batch: true,
  batchSize: 100,
  batchWindow: 200,
  keepExplainString: false,
};

describe('msg.server: a message chooses among the servers its node lists', function () {
  let a;
  let b;
  beforeEach(async () => {
    [a, b] = await Promise.all([createFakeMindsDB().listen(), createFakeMindsDB().listen()]);
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await a.close();
    await b.close();
  });

  /**
   * The node under test on server `srv` ("site a" at a), with "site b" (at b) listed for msg.server unless `servers`
   * says otherwise.
   */
  function load(def, servers = ['srvB'], more = []) {
    const flow = flowWith({ ...def, servers }, { url: a.url, name: 'site a' }, [
      {
        id: 'srvB',
        type: 'mindsdb-server',
        name: 'site b',
        url: b.url,
        apiPrefix: '/api',
        authMode: 'none',
        timeout: 5000,
        retries: 0,
        maxInFlight: 8,
        maxQueue: 1000,
        maxResponseMB: 64,
      },
      ...more,
    ]);
    return helper.load(nodes, flow);
  }
  const sqlTo = (fake) => fake.requestsTo('/sql/query').length;
  const outcome = () =>
    new Promise((resolve) => {
      helper.getNode('out').once('input', (m) => resolve({ out: m }));
      helper.getNode('caught').once('input', (m) => resolve({ error: m.error.message }));
    });

  it("goes to the node's own server without msg.server, to the listed one it names, and to its own by name", async () => {
    await load(sql);
    for (const [server, to] of [
      [undefined, a],
      ['site b', b],
      ['site a', a],
    ]) {
      const before = [sqlTo(a), sqlTo(b)];
      const got = outcome();
      helper.getNode('n1').receive({ server });
      assert.ok((await got).out, `msg.server ${server} answered`);
      assert.deepEqual(
        [sqlTo(a) - before[0], sqlTo(b) - before[1]],
        to === a ? [1, 0] : [0, 1],
        `msg.server ${server}`,
      );
    }
  });

  it('refuses a name it does not list, naming the allowed ones, and sends nothing anywhere', async () => {
    await load(sql);
    for (const server of ['site c', 'http://127.0.0.1:9/', 'SITE B']) {
      const got = outcome();
      helper.getNode('n1').receive({ server });
      const { error } = await got;
      assert.match(error, /is not a server this node may use: choose one of "site a", "site b"/);
    }
    assert.deepEqual([sqlTo(a), sqlTo(b)], [0, 0]);
  });

  it('refuses msg.server that is not text, and on a node that lists no servers, saying how to allow it', async () => {
    await load(sql, []);
    let got = outcome();
    helper.getNode('n1').receive({ server: 'site b' });
    assert.match(
      (await got).error,
      /lets no message choose its server: list the servers a message may choose in its dialog/,
    );
    got = outcome();
    helper.getNode('n1').receive({ server: { url: b.url } });
    assert.match((await got).error, /msg.server must be the name of a MindsDB server node \(got object\)/);
    assert.deepEqual([sqlTo(a), sqlTo(b)], [0, 0]);
  });

  it('refuses a name two listed servers share, instead of guessing', async () => {
    await load(
      sql,
      ['srvB', 'srvB2'],
      [
        {
          id: 'srvB2',
          type: 'mindsdb-server',
          name: 'site b',
          url: a.url,
          apiPrefix: '/api',
          authMode: 'none',
          timeout: 5000,
          retries: 0,
          maxInFlight: 8,
          maxQueue: 1000,
          maxResponseMB: 64,
        },
      ],
    );
    const got = outcome();
    helper.getNode('n1').receive({ server: 'site b' });
    assert.match(
      (await got).error,
      /names 2 of the servers this node may use: give each server node a name of its own/,
    );
    assert.deepEqual([sqlTo(a), sqlTo(b)], [0, 0]);
  });

  describe('on a node that keeps state for its own server', function () {
    userDirEachCase('mindsdb-msg-server-');
    it("refuses another server in incremental mode (the position is its own server's), and takes its own by name", async () => {
      await load({ ...sql, incremental: true, watermarkColumn: 'ts', keyColumn: 'id' });
      let got = outcome();
      helper.getNode('n1').receive({ server: 'site b' });
      assert.match(
        (await got).error,
        /cannot choose another server for this node: it keeps its incremental position for its own server/,
      );
      assert.equal(sqlTo(b), 0, 'nothing sent to site b');
      got = outcome();
      helper.getNode('n1').receive({ server: 'site a' });
      await got;
      assert.equal(sqlTo(a), 1, 'its own server, named, is asked');
    });

    it('refuses another server for an insert kept in the outbox (replayed to its own server)', async () => {
      await load({
        type: 'mindsdb-table',
        operation: 'insert',
        database: 'pg',
        databaseType: 'str',
        table: 'readings',
        tableType: 'str',
        select: '',
        replace: false,
        batch: false,
        batchSize: 100,
        batchWindow: 20,
        keyColumn: 'id',
        outbox: true,
        outboxSizeMB: 10,
        outboxMaxAgeH: 24,
      });
      const got = outcome();
      helper.getNode('n1').receive({ payload: { id: 1 }, server: 'site b' });
      assert.match((await got).error, /it keeps its outbox for its own server/);
      assert.equal(b.requests.length, 0, 'nothing sent to site b');
    });
  });

  it('keeps a micro-batch to one server: a message that chose another closes it and starts its own', async () => {
    await load(predict);
    const outs = collect('out', 5);
    // The batcher closes its open batch when the key changes (arrival order stays simple to keep).
    for (const server of [undefined, 'site a', 'site b', 'site b', 'site a'])
      helper.getNode('n1').receive({ payload: { sqft: 1 }, server });
    const got = await outs;
    assert.deepEqual(
      got.map((m) => m.server),
      [undefined, 'site a', 'site b', 'site b', 'site a'],
      'outputs in arrival order',
    );
    const batches = (fake) => fake.requests.filter((r) => r.path.endsWith('/predict')).map((r) => r.body.data.length);
    assert.deepEqual(batches(a), [2, 1], 'site a: the first two messages in one request, the last in another');
    assert.deepEqual(batches(b), [2], 'site b: its two in one request to b, none to a');
  });
});
