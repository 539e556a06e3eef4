'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, coreNode, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { waitFor, holdsFor } = require('../support/wait');

const serverNode = node('mindsdb-server');
const sqlNode = node('mindsdb-sql');
const joinNode = coreNode('sequence/17-split.js');

describe('mindsdb-sql node', function () {
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

  /** A fault for the next SQL request only (the node first asks GET /status for the version). */
  const sqlFault = (fn) => {
    const f = (req, res, entry) => {
      if (req.url.includes('/sql/query')) return fn(req, res, entry);
      fake.state.faults.unshift(f);
      return false;
    };
    fake.fault(f);
  };

  const load = (def = {}, server = {}) =>
    helper.load(
      [serverNode, sqlNode, catchNode],
      flowWith(
        {
          type: 'mindsdb-sql',
          query: '',
          database: '',
          databaseType: 'str',
          rowFormat: 'objects',
          split: false,
          rowsPerMsg: 100,
          ...def,
        },
        { url: fake.url, ...server },
      ),
    );

  it('puts row objects keyed by column name in msg.payload and metadata in msg.mindsdb', async () => {
    await load({ query: 'SELECT * FROM rentals' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: 'ignored', topic: 't' });
    const msg = await got;
    assert.deepEqual(msg.payload, [
      { sqft: 917, rental_price: 3901 },
      { sqft: 194, rental_price: 2042 },
    ]);
    assert.equal(msg.mindsdb.type, 'table');
    assert.deepEqual(msg.mindsdb.columns, ['sqft', 'rental_price']);
    assert.equal(msg.mindsdb.context.db, 'mindsdb');
    assert.equal(msg.mindsdb.data, undefined);
    assert.equal(msg.topic, 't');
  });

  it('takes msg.query when the node has none, then a string msg.payload', async () => {
    await load();
    let got = nextMessage('out');
    helper.getNode('n1').receive({ query: 'SELECT * FROM rentals', payload: 'SELECT 1' });
    await got;
    got = nextMessage('out');
    helper.getNode('n1').receive({ payload: 'SELECT 1' });
    assert.deepEqual((await got).payload, [{ 1: 1 }]);
    assert.deepEqual(
      fake.requestsTo('/sql/query').map((r) => r.body.query),
      ['SELECT * FROM rentals', 'SELECT 1'],
    );
  });

  it('gives rows as arrays, and the raw data in msg.mindsdb, when asked', async () => {
    await load({ query: 'SELECT * FROM rentals', rowFormat: 'arrays' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({});
    const msg = await got;
    assert.deepEqual(msg.payload, [
      [917, 3901],
      [194, 2042],
    ]);
    assert.deepEqual(msg.mindsdb.data, [
      [917, 3901],
      [194, 2042],
    ]);
  });

  it('answers type "ok" statements with an empty array', async () => {
    await load({ query: 'CREATE DATABASE x' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({});
    const msg = await got;
    assert.deepEqual(msg.payload, []);
    assert.equal(msg.mindsdb.type, 'ok');
  });

  it('passes msg.params (object) to the server as bound params, and an array via ? placeholders', async () => {
    await load();
    let got = nextMessage('out');
    helper.getNode('n1').receive({ query: 'SELECT :v AS v', params: { v: "O'Brien" } });
    assert.deepEqual((await got).payload, [{ v: "O'Brien" }]);
    got = nextMessage('out');
    helper.getNode('n1').receive({ query: 'SELECT ? AS v', params: ["O'Brien"] });
    assert.deepEqual((await got).payload, [{ v: "O'Brien" }]);
    const [a, b] = fake.requestsTo('/sql/query').map((r) => r.body);
    assert.deepEqual(a, { query: 'SELECT :v AS v', params: { v: "O'Brien" } });
    assert.deepEqual(b, { query: 'SELECT :p1 AS v', params: { p1: "O'Brien" } });
  });

  it('sends the database context from the node, else msg.database', async () => {
    await load({ query: 'SELECT 1', database: 'files' });
    let got = nextMessage('out');
    helper.getNode('n1').receive({ database: 'other' });
    await got;
    await helper.unload();
    await load({ query: 'SELECT 1' });
    got = nextMessage('out');
    helper.getNode('n1').receive({ database: 'other' });
    await got;
    assert.deepEqual(
      fake.requestsTo('/sql/query').map((r) => r.body.context),
      [{ db: 'files' }, { db: 'other' }],
    );
  });

  it('writes to a configured output property and leaves msg.payload alone', async () => {
    await load({ query: 'SELECT 1', outputProperty: 'result.rows' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: 42 });
    const msg = await got;
    assert.equal(msg.payload, 42);
    assert.deepEqual(msg.result.rows, [{ 1: 1 }]);
  });

  it('splits rows into a Join-compatible message sequence: the count and msg.complete on the last part', async () => {
    fake.state.sql = () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: 5 }, (_, i) => [i]) });
    await load({ query: 'SELECT i', split: true, rowsPerMsg: 2 });
    const got = collect('out', 3);
    helper.getNode('n1').receive({});
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.payload),
      [[{ i: 0 }, { i: 1 }], [{ i: 2 }, { i: 3 }], [{ i: 4 }]],
    );
    assert.deepEqual(
      msgs.map((m) => m.parts.index),
      [0, 1, 2],
    );
    assert.ok(msgs.every((m) => m.parts.type === 'array' && m.parts.id === msgs[0].parts.id));
    assert.deepEqual(
      msgs.map((m) => m.parts.count),
      [undefined, undefined, 3],
    );
    assert.deepEqual(
      msgs.map((m) => m.complete),
      [undefined, undefined, true],
    );
    assert.deepEqual(msgs[2].mindsdb.context, { show_secrets: false, db: 'mindsdb' });
  });

  for (const version of ['25.14.1', '26.1.0']) {
    it(`a core join node puts a split result back together (MindsDB ${version})`, async () => {
      await fake.close();
      fake = await createFakeMindsDB({ version }).listen();
      fake.state.sql = () => ({
        type: 'table',
        column_names: ['i', 's'],
        data: Array.from({ length: 7 }, (_, i) => [i, `r${i}`]),
      });
      const flow = flowWith(
        {
          type: 'mindsdb-sql',
          query: 'SELECT i',
          database: '',
          databaseType: 'str',
          rowFormat: 'objects',
          split: true,
          rowsPerMsg: 3,
        },
        { url: fake.url },
      );
      flow[2].wires = [['j1']];
      flow.push({
        id: 'j1',
        z: 'f1',
        x: 10,
        y: 10,
        type: 'join',
        mode: 'auto',
        build: 'array',
        property: 'payload',
        propertyType: 'msg',
        key: 'topic',
        joiner: '\\n',
        joinerType: 'str',
        accumulate: false,
        timeout: '',
        count: '',
        reduceRight: false,
        wires: [['out']],
      });
      await helper.load([serverNode, sqlNode, catchNode, joinNode], flow);
      const got = nextMessage('out');
      helper.getNode('n1').receive({});
      assert.deepEqual(
        (await got).payload,
        Array.from({ length: 7 }, (_, i) => ({ i, s: `r${i}` })),
      );
    });
  }

  it('gives each part only its own rows in msg.mindsdb.data (rows as arrays)', async () => {
    fake.state.sql = () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: 5 }, (_, i) => [i]) });
    await load({ query: 'SELECT i', split: true, rowsPerMsg: 2, rowFormat: 'arrays' });
    const got = collect('out', 3);
    helper.getNode('n1').receive({});
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.mindsdb.data),
      [[[0], [1]], [[2], [3]], [[4]]],
    );
    assert.deepEqual(
      msgs.map((m) => m.payload),
      [[[0], [1]], [[2], [3]], [[4]]],
    );
  });

  it('sends parts while the answer is still arriving', async () => {
    let finish;
    sqlFault((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"table","column_names":["i"],"data":[[0],[1],[2]');
      finish = () => res.end(',[3]],"context":{}}');
    });
    await load({ query: 'SELECT i', split: true, rowsPerMsg: 1 });
    const first = collect('out', 2);
    helper.getNode('n1').receive({});
    const msgs = await first; // two parts out, the third waits for the row after it
    assert.deepEqual(
      msgs.map((m) => m.payload),
      [[{ i: 0 }], [{ i: 1 }]],
    );
    const rest = collect('out', 2);
    finish();
    assert.deepEqual(
      (await rest).map((m) => [m.payload, m.complete]),
      [
        [[{ i: 2 }], undefined],
        [[{ i: 3 }], true],
      ],
    );
  });

  it('answers a statement without a table with one message, split or not', async () => {
    await load({ query: 'CREATE DATABASE x', split: true, rowsPerMsg: 2 });
    const got = nextMessage('out');
    helper.getNode('n1').receive({});
    const msg = await got;
    assert.deepEqual(msg.payload, []);
    assert.equal(msg.mindsdb.type, 'ok');
    assert.equal(msg.parts, undefined);
  });

  it('ends a sequence broken mid-answer with an error to Catch that names the parts sent', async () => {
    sqlFault((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"table","column_names":["i"],"data":[[0],[1],[2],[3');
      setTimeout(() => req.socket.destroy(), 50); // fault: the reset comes after four rows have left
    });
    await load({ query: 'SELECT i', split: true, rowsPerMsg: 1 });
    const out = [];
    helper.getNode('out').on('input', (m) => out.push(m));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ marker: 'm' });
    const err = await caught;
    assert.equal(err.marker, 'm');
    assert.equal(err.mindsdbError.kind, 'network');
    assert.equal(out.length, 2, 'the rows before the break were sent (the third waits for its successor)');
    assert.ok(out.every((m) => m.complete === undefined && m.parts.count === undefined));
    assert.equal(err.mindsdb.partsSent, 2);
    assert.equal(err.mindsdb.partsId, out[0].parts.id);
  });

  describe('flow control (msg.tick)', () => {
    const rows = (n) => () => ({ type: 'table', column_names: ['i'], data: Array.from({ length: n }, (_, i) => [i]) });
    /** Waits for `n` parts, then checks that no more come without a tick (a 150 ms window). */
    const exactly = async (out, n) => {
      await waitFor(() => out.length >= n, { what: () => `${n} parts (${out.length} arrived)` });
      await holdsFor(() => out.length === n, { forMs: 150, what: () => `exactly ${n} parts out (${out.length})` });
    };

    for (const ahead of [1, 3]) {
      it(`keeps at most ${ahead} part(s) out without a tick, and sends the next one per tick`, async () => {
        fake.state.sql = rows(10);
        await load({ query: 'SELECT i', split: true, rowsPerMsg: 2, flowControl: true, partsAhead: ahead });
        const out = [];
        helper.getNode('out').on('input', (m) => out.push(m));
        const n1 = helper.getNode('n1');
        n1.receive({});
        await exactly(out, ahead);
        n1.receive({ tick: true, parts: out[0].parts });
        await exactly(out, ahead + 1);
        // from now on, a tick back for each part as it arrives (a tick without parts counts too)
        helper.getNode('out').on('input', () => n1.receive({ tick: true }));
        for (let i = 0; i < ahead; i++) n1.receive({ tick: true });
        await exactly(out, 5);
        assert.equal(out[4].complete, true);
        assert.deepEqual(
          out.flatMap((m) => m.payload.map((r) => r.i)),
          [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        );
        assert.equal(fake.requestsTo('/sql/query').length, 1, 'a tick is never a query');
      });
    }

    it('fails the rest of the result when no tick comes back within the timeout', async () => {
      fake.state.sql = rows(4);
      await load({ query: 'SELECT i', split: true, rowsPerMsg: 1, flowControl: true, partsAhead: 1 });
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ timeout: 200 });
      const err = await caught;
      assert.match(err.error.message, /no msg.tick came back within 200 ms/);
      assert.equal(err.mindsdb.partsSent, 1);
    });

    it('ends a sequence waiting for a tick at once on redeploy (not after the tick timeout)', async () => {
      fake.state.sql = rows(4);
      await load({ query: 'SELECT i', split: true, rowsPerMsg: 1, flowControl: true, partsAhead: 1 });
      const first = nextMessage('out');
      helper.getNode('n1').receive({});
      await first; // one part out, the node now waits for its tick
      const t0 = Date.now();
      await helper.unload();
      assert.ok(Date.now() - t0 < 2000, `closed in ${Date.now() - t0} ms`);
      await waitFor(() => fake.state.openConnections === 0, {
        timeoutMs: 5000,
        what: 'the paused answer dropped (its socket closed)',
      });
    });
  });

  it('ignores a non-string msg.database when the node has its own database', async () => {
    await load({ query: 'SELECT 1', database: 'files' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ database: 42 });
    await got;
    assert.deepEqual(
      fake.requestsTo('/sql/query').map((r) => r.body.context),
      [{ db: 'files' }],
    );
  });

  const errorCases = [
    ['no query at all', {}, /no SQL query/],
    ['a query that is not a string', { query: 42 }, /msg.query must be a string/],
    ['msg.params of the wrong type', { query: 'SELECT 1', params: 'x' }, /msg.params must be an object/],
    ['too few positional params', { query: 'SELECT ?', params: [] }, /placeholder/],
    ['a bad msg.timeout', { query: 'SELECT 1', timeout: -5 }, /msg.timeout/],
    [
      'a non-string msg.database when the node has none',
      { query: 'SELECT 1', database: 42 },
      /msg.database must be a string \(got number\)/,
    ],
    [
      'a msg.timeout beyond what a timer holds',
      { query: 'SELECT 1', timeout: 1e12 },
      /msg.timeout must be a number of milliseconds between 1 and 2147483647/,
    ],
    ['an SQL error from the server', { query: 'SELECT * FROM nope' }, /MindsDB SQL error: Table 'nope' not found/],
  ];
  for (const [what, msgIn, pattern] of errorCases) {
    it(`sends ${what} to Catch with the msg, and sets a red status`, async () => {
      await load();
      const n1 = helper.getNode('n1');
      const caught = nextMessage('caught');
      n1.receive({ ...msgIn, marker: 'm1' });
      const msg = await caught;
      assert.equal(msg.marker, 'm1');
      assert.match(msg.error.message, pattern);
      const statuses = n1.status.args.map((a) => a[0]);
      assert.equal(statuses.at(-1).fill, 'red');
    });
  }

  it('sends an unreachable server to Catch as a network error, and keeps running', async () => {
    await load({ query: 'SELECT 1' }, { url: 'http://127.0.0.1:1' });
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({});
    assert.match((await caught).error.message, /connection refused/);
    assert.equal((await caught).mindsdbError.kind, 'network');
  });

  it('sends a non-JSON answer to Catch', async () => {
    await load({ query: 'SELECT 1' });
    fake.fault((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('oops');
    });
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({});
    assert.match((await caught).error.message, /not JSON/);
  });

  it('fails each message clearly when the node has no server', async () => {
    const flow = flowWith({ type: 'mindsdb-sql', query: 'SELECT 1' });
    flow[2].server = '';
    await helper.load([serverNode, sqlNode, catchNode], flow);
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({});
    assert.match((await caught).error.message, /no MindsDB server is configured/);
  });

  it('shows requesting, then the row count', async () => {
    await load({ query: 'SELECT * FROM rentals' });
    const n1 = helper.getNode('n1');
    const got = nextMessage('out');
    n1.receive({});
    await got;
    // the status is throttled: the last one shows a moment after the output
    await waitFor(() => n1.status.args.at(-1)[0].text === '2 rows', {
      timeoutMs: 5000,
      what: () => `the status "2 rows" (last: ${JSON.stringify(n1.status.args.at(-1)[0])})`,
    });
    const texts = n1.status.args.map((a) => a[0].text);
    // A fixed text goes as its catalogue key (the editor translates it); a count in English.
    assert.equal(texts[0], 'mindsdb-sql.status.requesting');
    assert.equal(texts.at(-1), '2 rows');
  });

  it('closes the server pool on redeploy (no sockets left open)', async () => {
    await load({ query: 'SELECT 1' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({});
    await got;
    assert.ok(fake.state.openConnections >= 1);
    await helper.unload();
    await waitFor(() => fake.state.openConnections === 0, {
      timeoutMs: 5000,
      what: () => `every socket closed (${fake.state.openConnections} open)`,
    });
  });
});
