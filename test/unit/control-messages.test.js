'use strict';
/**
 * The core conventions for control messages (issue 31, part 3), as Node-RED's own delay, trigger
 * and join nodes keep them: `msg.flush` sends the predict and table nodes' open micro-batch now,
 * `msg.reset` drops it (each dropped message ends in one catchable "reset" error), and `msg.reset`
 * stops a split SQL sequence, a view query's sequence or a streaming agent answer and frees its
 * connection. A control message runs no request and ends with done() and no output.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, completeNode, flowWith, nextMessage, collect } = require('../support/nr');
const { waitFor, holdsFor, flushDeliveries } = require('../support/wait');

const nodes = ['mindsdb-server', 'mindsdb-predict', 'mindsdb-table', 'mindsdb-sql', 'mindsdb-view', 'mindsdb-agent']
  .map(node)
  .concat([catchNode, completeNode]);

/** The micro-batching nodes, each with a message that adds one row and the requests its batch makes. */
const BATCHERS = [
  {
    type: 'mindsdb-predict',
    def: {
      type: 'mindsdb-predict',
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      keepExplainString: false,
    },
    row: (i) => ({ payload: { sqft: i } }),
    requests: (fake) => fake.requests.filter((r) => r.path.endsWith('/predict')),
  },
  {
    type: 'mindsdb-table',
    def: {
      type: 'mindsdb-table',
      operation: 'insert',
      database: 'pg',
      databaseType: 'str',
      table: 'readings',
      tableType: 'str',
      select: '',
      replace: false,
    },
    row: (i) => ({ payload: { id: i, sensor: `s${i}` } }),
    requests: (fake) => fake.requestsTo('/sql/query').filter((r) => /^INSERT/.test(r.body.query)),
  },
];

describe('control messages: msg.flush and msg.reset', function () {
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    fake.state.databases.set('pg', {
      id: 7,
      name: 'pg',
      type: 'data',
      engine: 'postgres',
      class_type: 'sql',
      connection_data: {},
    });
    fake.state.tables.set('pg/readings', {
      name: 'readings',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'sensor', type: 'text' },
      ],
      rows: [],
    });
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const load = (def) => helper.load(nodes, flowWith(def, { url: fake.url }));
  const n1 = () => helper.getNode('n1');
  /** Nothing at `id` for a while (a message would have arrived by then). */
  const nothingAt = async (id, forMs = 150) => {
    let got = 0;
    const count = () => {
      got++;
    };
    helper.getNode(id).on('input', count);
    await holdsFor(() => got === 0, { forMs, what: `no message at ${id}` });
    helper.getNode(id).removeListener('input', count);
  };

  for (const b of BATCHERS) {
    describe(`${b.type} with micro-batching`, () => {
      const batched = { ...b.def, batch: true, batchSize: 1000, batchWindow: 60_000 };

      it('msg.flush sends the open batch now, as one request; the flush message itself ends with done() and no output', async () => {
        await load(batched);
        const out = collect('out', 2);
        n1().receive(b.row(1));
        n1().receive(b.row(2));
        await flushDeliveries();
        assert.equal(b.requests(fake).length, 0, 'the 60 s window is still open');
        const completed = collect('completed', 3);
        n1().receive({ flush: true, marker: 'flush' });
        const msgs = await out;
        assert.equal(b.requests(fake).length, 1, 'one request for the batch');
        assert.deepEqual(
          msgs.map((m) => m.payload.sqft ?? m.payload.inserted),
          b.type === 'mindsdb-predict' ? [1, 2] : [1, 1],
        );
        const done = await completed;
        assert.equal(done.filter((m) => m.marker === 'flush').length, 1, 'the flush message completes');
        await nothingAt('out');
      });

      it('msg.reset drops the open batch: nothing is sent, each dropped message reaches Catch once with a "reset" error, later messages go on', async () => {
        await load(batched);
        const caught = collect('caught', 3);
        for (let i = 1; i <= 3; i++) n1().receive({ ...b.row(i), marker: i });
        await flushDeliveries();
        const resetDone = nextMessage('completed');
        n1().receive({ reset: true, marker: 'reset' });
        const errs = await caught;
        assert.deepEqual(
          errs.map((m) => m.marker),
          [1, 2, 3],
          'each once, in arrival order',
        );
        for (const m of errs) {
          assert.equal(m.mindsdbError.kind, 'reset');
          assert.match(
            m.error.message,
            /msg\.reset dropped the micro-batch this message waited in: nothing of it was sent/,
          );
        }
        assert.equal((await resetDone).marker, 'reset');
        assert.equal(b.requests(fake).length, 0, 'the dropped batch was never sent');
        await nothingAt('caught');
        // The node goes on: a new batch, flushed.
        const out = nextMessage('out');
        n1().receive(b.row(9));
        await flushDeliveries();
        n1().receive({ flush: true });
        await out;
        assert.equal(b.requests(fake).length, 1);
        // The red "reset" ring of the dropped messages gives way to the node's next state.
        await waitFor(() => !/errors/.test(n1().status.lastCall.args[0].text), {
          timeoutMs: 3000,
          what: () => `a status after the reset (${n1().status.lastCall.args[0].text})`,
        });
      });
    });

    it(`${b.type} without micro-batching: msg.flush and msg.reset are control messages that send nothing`, async () => {
      await load({ ...b.def, batch: false, batchSize: 100, batchWindow: 50 });
      const completed = collect('completed', 2);
      n1().receive({ flush: true, payload: { sqft: 1 } });
      n1().receive({ reset: true, payload: { sqft: 1 } });
      assert.equal((await completed).length, 2);
      await nothingAt('out');
      await nothingAt('caught', 10);
      assert.equal(b.requests(fake).length, 0);
    });
  }

  describe('msg.reset stops a sequence or a stream under way and frees its connection', () => {
    const COLUMNS = ['i'];
    /**
     * The next answer on `path` is a long one still coming: `head` and its first lines are written, then
     * the server holds the rest. Resolves with the answer's socket once it is there.
     */
    const held = (path, head, lines) =>
      new Promise((resolve) => {
        fake.state.faultPlan = (entry) =>
          entry.path.includes(path)
            ? (req, res) => {
                fake.state.faultPlan = null;
                res.writeHead(200, { 'content-type': head });
                res.write(lines);
                resolve(req.socket);
              }
            : null;
      });
    const closedSoon = (socket) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error("the answer's connection is still open 1 s after the reset")),
          1000,
        ); // deadline: the socket must close within a second
        socket.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
        if (socket.destroyed) {
          clearTimeout(timer);
          resolve();
        }
      });
    const jsonlines = (n) =>
      `${JSON.stringify({ type: 'table', column_names: COLUMNS })}\n${Array.from({ length: n }, (_, i) => JSON.stringify([[i]])).join('\n')}\n`;
    const sqlDef = {
      type: 'mindsdb-sql',
      query: 'SELECT i FROM t',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: true,
      rowsPerMsg: 1,
    };
    const viewDef = {
      type: 'mindsdb-view',
      operation: 'query',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'v1',
      itemNameType: 'str',
      query: '',
      rowFormat: 'objects',
      split: true,
      rowsPerMsg: 1,
    };

    const cases = [
      ['a split SQL sequence waiting for its msg.tick', { ...sqlDef, flowControl: true, partsAhead: 1 }, 1],
      ['a split SQL sequence still reading its answer', { ...sqlDef, flowControl: false }, 2],
      ["a view query's sequence waiting for its msg.tick", { ...viewDef, flowControl: true, partsAhead: 1 }, 1],
    ];
    for (const [what, def, partsBefore] of cases) {
      it(`${what}: its message reaches Catch once with a "reset" error naming the parts sent; the reset message completes and sends nothing`, async () => {
        fake.state.views.set('mindsdb/v1', { id: 1, name: 'v1', query: 'SELECT 1', project: 'mindsdb' });
        await load(def);
        const answer = held('/sql/query', 'application/jsonlines', jsonlines(3));
        const parts = collect('out', partsBefore);
        const caught = nextMessage('caught');
        n1().receive({ payload: 1, marker: 'query' });
        const socket = await answer;
        const sent = await parts;
        const completed = nextMessage('completed');
        const resetAt = Date.now();
        n1().receive({ reset: true, marker: 'reset' });
        const err = await caught;
        assert.ok(
          Date.now() - resetAt < 3000,
          `stopped ${Date.now() - resetAt} ms after the reset (the server node's timeout is 5 s)`,
        );
        assert.equal(err.marker, 'query');
        assert.equal(err.mindsdbError.kind, 'reset');
        assert.match(err.error.message, /msg\.reset stopped this query while its rows were being sent/);
        assert.deepEqual([err.mindsdb.partsId, err.mindsdb.partsSent], [sent[0].parts.id, partsBefore]);
        await closedSoon(socket);
        assert.equal((await completed).marker, 'reset');
        await nothingAt('out');
        await nothingAt('caught', 10);
        assert.equal(
          fake.requestsTo('/sql/query').length,
          def.type === 'mindsdb-sql' ? 1 : 1,
          'the reset ran no query',
        );
      });
    }

    it('a whole SQL answer (split off) is not a sequence: msg.reset leaves it to finish', async () => {
      await load({ ...sqlDef, split: false });
      fake.state.sql = () => ({ type: 'table', column_names: COLUMNS, data: [[1]] });
      fake.state.faultPlan = (entry) =>
        entry.path.includes('/sql/query')
          ? () => new Promise((resolve) => setTimeout(() => resolve(false), 100))
          : null; // fault: a slow answer, still on its way at the reset
      const out = nextMessage('out');
      n1().receive({ payload: 1 });
      await flushDeliveries();
      n1().receive({ reset: true });
      assert.deepEqual((await out).payload, [{ i: 1 }]);
    });

    for (const [version, streamMode] of [
      ['25.14.1', 'chunks'],
      ['26.1.0', 'chunks'],
      ['26.1.0', 'final'],
    ]) {
      it(`a streaming agent answer (MindsDB ${version}, ${streamMode}): stopped at once, its connection freed, its message at Catch with a "reset" error`, async () => {
        await fake.close();
        fake = await createFakeMindsDB({ version }).listen();
        fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
        await load({
          type: 'mindsdb-agent',
          operation: 'completions',
          project: 'mindsdb',
          projectType: 'str',
          itemName: 'a1',
          itemNameType: 'str',
          streamMode,
        });
        const answer = held(
          '/completions/stream',
          'text/event-stream',
          'data: {"type": "start"}\n\ndata: {"type": "context", "content": "thinking"}\n\n',
        );
        const chunks = streamMode === 'chunks' ? collect('out', 2) : Promise.resolve([]);
        const caught = nextMessage('caught');
        n1().receive({ payload: 'a question', marker: 'q' });
        const socket = await answer;
        const sent = await chunks;
        // In final mode nothing comes out while the answer is held: the node reads the events that came meanwhile.
        if (streamMode === 'final') await nothingAt('caught', 100);
        const resetAt = Date.now();
        n1().receive({ reset: true });
        const err = await caught;
        assert.ok(
          Date.now() - resetAt < 3000,
          `stopped ${Date.now() - resetAt} ms after the reset (the server node's timeout is 5 s)`,
        );
        assert.equal(err.marker, 'q');
        assert.equal(err.mindsdbError.kind, 'reset');
        assert.match(err.error.message, /msg\.reset stopped this answer before it was sent/);
        if (streamMode === 'chunks') assert.deepEqual(err.mindsdb.sequence, { id: sent[0].parts.id, chunks: 2 });
        await closedSoon(socket);
        await nothingAt('out');
      });
    }
  });
});
