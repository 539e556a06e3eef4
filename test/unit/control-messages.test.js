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

const nodes = ['mindsdb-server', 'mindsdb-predict', 'mindsdb-table', 'mindsdb-sql', 'mindsdb-view', 'mindsdb-agent'].map(node).concat([catchNode, completeNode]);

/** The micro-batching nodes, each with a message that adds one row and the requests its batch makes. */
const BATCHERS = [
  {
    type: 'mindsdb-predict',
    def: { type: 'mindsdb-predict', project: 'mindsdb', projectType: 'str', model: 'home_rentals', modelType: 'str', params: '', paramsType: 'json', keepExplainString: false },
    row: (i) => ({ payload: { sqft: i } }),
    requests: (fake) => fake.requests.filter((r) => r.path.endsWith('/predict')),
  },
  {
    type: 'mindsdb-table',
    def: { type: 'mindsdb-table', operation: 'insert', database: 'pg', databaseType: 'str', table: 'readings', tableType: 'str', select: '', replace: false },
    row: (i) => ({ payload: { id: i, sensor: `s${i}` } }),
    requests: (fake) => fake.requestsTo('/sql/query').filter((r) => /^INSERT/.test(r.body.query)),
  },
];

describe('control messages: msg.flush and msg.reset', function () {
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    fake.state.databases.set('pg', { id: 7, name: 'pg', type: 'data', engine: 'postgres', class_type: 'sql', connection_data: {} });
    fake.state.tables.set('pg/readings', { name: 'readings', columns: [{ name: 'id', type: 'int' }, { name: 'sensor', type: 'text' }], rows: [] });
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => { await helper.unload(); await new Promise((r) => helper.stopServer(r)); await fake.close(); });
  const load = (def) => helper.load(nodes, flowWith(def, { url: fake.url }));
  const n1 = () => helper.getNode('n1');
  /** Nothing at `id` for a while (a message would have arrived by then). */
  const nothingAt = async (id, forMs = 150) => {
    let got = 0;
    const count = () => { got++; };
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
        assert.deepEqual(msgs.map((m) => m.payload.sqft ?? m.payload.inserted), b.type === 'mindsdb-predict' ? [1, 2] : [1, 1]);
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
        assert.deepEqual(errs.map((m) => m.marker), [1, 2, 3], 'each once, in arrival order');
        for (const m of errs) {
          assert.equal(m.mindsdbError.kind, 'reset');
          assert.match(m.error.message, /msg\.reset dropped the micro-batch this message waited in: nothing of it was sent/);
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
        await waitFor(() => !/errors/.test(n1().status.lastCall.args[0].text), { timeoutMs: 3000, what: () => `a status after the reset (${n1().status.lastCall.args[0].text})` });
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
});
