'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { flushDeliveries } = require('../support/wait');

const nodes = [node('mindsdb-server'), node('mindsdb-predict'), catchNode];
const base = {
  type: 'mindsdb-predict',
  project: 'mindsdb',
  projectType: 'str',
  model: 'home_rentals',
  modelType: 'str',
  params: '',
  paramsType: 'json',
  batch: false,
  batchSize: 100,
  batchWindow: 50,
  keepExplainString: false,
};

describe('mindsdb-predict node', function () {
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
  const load = (def = {}) => helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url }));
  const predictCalls = () => fake.requests.filter((r) => r.path.endsWith('/predict'));

  it('predicts one row for an object payload: wrapper body, the row with its prediction, metadata (a BYOM model)', async () => {
    await load();
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: { sqft: 100 } });
    const msg = await got;
    assert.deepEqual(predictCalls()[0].body, { data: [{ sqft: 100 }] });
    assert.equal(predictCalls()[0].path, '/api/projects/mindsdb/models/home_rentals/predict');
    assert.deepEqual(msg.payload, { sqft: 100, rental_price: 400 });
    // No _explain column to read the target from: the node asks the model once.
    assert.deepEqual(msg.mindsdb, { project: 'mindsdb', model: 'home_rentals', target: 'rental_price', rows: 1 });
  });

  it("parses a lightwood-style model's explain column", async () => {
    await load({ model: 'lightwood_rentals' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: { sqft: 100 } });
    const msg = await got;
    assert.equal(msg.payload.rental_price, 400);
    assert.equal(msg.payload.rental_price_explain.predicted_value, 400);
    assert.equal(msg.payload.rental_price_explain_raw, undefined);
    assert.equal(msg.payload.__mindsdb_row_id, 1);
    assert.deepEqual(msg.mindsdb, { project: 'mindsdb', model: 'lightwood_rentals', target: 'rental_price', rows: 1 });
  });

  it('returns an array for an array payload and keeps the explain string when asked', async () => {
    await load({ model: 'lightwood_rentals', keepExplainString: true });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: [{ sqft: 1 }, { sqft: 2 }] });
    const msg = await got;
    assert.deepEqual(
      msg.payload.map((r) => r.rental_price),
      [103, 106],
    );
    assert.equal(typeof msg.payload[0].rental_price_explain_raw, 'string');
    assert.equal(msg.mindsdb.rows, 2);
  });

  it('lets msg.project, msg.model and msg.predictParams fill blank fields, node fields win', async () => {
    fake.state.projects.add('p2');
    fake.state.models.set('p2/m2', { name: 'm2', predict: 'y', status: 'complete' });
    await load({ project: '', model: '' });
    let got = nextMessage('out');
    helper.getNode('n1').receive({ payload: { sqft: 1 }, project: 'p2', model: 'm2', predictParams: { a: 1 } });
    assert.equal((await got).mindsdb.target, 'y');
    await helper.unload();
    await load({ params: '{"b":2}' });
    got = nextMessage('out');
    helper.getNode('n1').receive({ payload: { sqft: 1 }, project: 'p2', model: 'm2', predictParams: { a: 1 } });
    await got;
    const [a, b] = predictCalls();
    assert.equal(a.path, '/api/projects/p2/models/m2/predict');
    assert.deepEqual(a.body.params, { a: 1 });
    assert.equal(b.path, '/api/projects/mindsdb/models/home_rentals/predict');
    assert.deepEqual(b.body.params, { b: 2 });
  });

  it('micro-batches: 250 single-row msgs → 3 calls, outputs in input order, each on its own msg', async () => {
    await load({ batch: true, batchSize: 100, batchWindow: 30 });
    const got = collect('out', 250);
    const n1 = helper.getNode('n1');
    for (let i = 0; i < 250; i++) n1.receive({ payload: { sqft: i }, seq: i });
    const msgs = await got;
    assert.equal(predictCalls().length, 3);
    assert.deepEqual(
      predictCalls().map((c) => c.body.data.length),
      [100, 100, 50],
    );
    msgs.forEach((m, i) => {
      assert.equal(m.seq, i);
      assert.equal(m.payload.sqft, i);
      assert.equal(m.payload.rental_price, i * 3 + 100);
    });
  });

  it('micro-batches messages that carry several rows and slices the answer back', async () => {
    await load({ batch: true, batchSize: 10, batchWindow: 20 });
    const got = collect('out', 2);
    helper.getNode('n1').receive({ payload: [{ sqft: 1 }, { sqft: 2 }], seq: 0 });
    helper.getNode('n1').receive({ payload: { sqft: 3 }, seq: 1 });
    const [a, b] = await got;
    assert.equal(predictCalls().length, 1);
    assert.deepEqual(
      a.payload.map((r) => r.sqft),
      [1, 2],
    );
    assert.equal(b.payload.sqft, 3);
  });

  it('a batch the server refuses is re-sent one message at a time: only the bad row fails', async () => {
    await load({ batch: true, batchSize: 5, batchWindow: 20 });
    // Like the real server, the whole request fails when one row cannot be predicted.
    const refuseBadRows = (_req, res, entry) => {
      if (!entry.body.data.some((r) => r.sqft === 'bad')) return false;
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"title":"ValueError","detail":"could not convert string to float: bad"}');
      return true;
    };
    fake.fault(refuseBadRows, 6);
    const caught = collect('caught', 1);
    const out = collect('out', 4);
    for (let i = 0; i < 5; i++) helper.getNode('n1').receive({ payload: { sqft: i === 2 ? 'bad' : i }, seq: i });
    const [failed] = await caught;
    assert.equal(failed.seq, 2);
    assert.match(failed.error.message, /could not convert/);
    assert.deepEqual(
      (await out).map((m) => m.seq),
      [0, 1, 3, 4],
      'the good rows still get predictions, in order',
    );
    assert.equal(predictCalls().length, 6, 'one batch, then each message on its own');
  });

  it('fails every msg of a batch that failed on the network exactly once, without re-sending', async () => {
    await load({ batch: true, batchSize: 5, batchWindow: 20 });
    fake.fault((_req, res) => {
      res.socket.destroy();
    });
    const caught = collect('caught', 5);
    let outputs = 0;
    helper.getNode('out').on('input', () => {
      outputs++;
    });
    for (let i = 0; i < 5; i++) helper.getNode('n1').receive({ payload: { sqft: i }, seq: i });
    const msgs = await caught;
    assert.deepEqual(msgs.map((m) => m.seq).sort(), [0, 1, 2, 3, 4]);
    assert.equal(predictCalls().length, 1);
    // closing the node waits for every message it still handles; then whatever it sent has arrived
    await helper.getNode('n1').close();
    await flushDeliveries();
    assert.equal(outputs, 0, 'a failed msg must not also be sent on');
  });

  it('re-sends a batch whose answer has the wrong number of rows one message at a time', async () => {
    await load({ batch: true, batchSize: 2, batchWindow: 20 });
    fake.fault((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"x":1}]');
    });
    const out = collect('out', 2);
    helper.getNode('n1').receive({ payload: { sqft: 1 } });
    helper.getNode('n1').receive({ payload: { sqft: 2 } });
    assert.deepEqual(
      (await out).map((m) => m.payload.rental_price),
      [103, 106],
    );
    assert.equal(predictCalls().length, 3);
  });

  it('a batch honours the shortest msg.timeout among its messages', async () => {
    await load({ batch: true, batchSize: 3, batchWindow: 20 });
    fake.fault(() => undefined); // never answers
    const caught = collect('caught', 3, 4000);
    const started = Date.now();
    helper.getNode('n1').receive({ payload: { sqft: 1 } });
    helper.getNode('n1').receive({ payload: { sqft: 2 }, timeout: 150 });
    helper.getNode('n1').receive({ payload: { sqft: 3 } });
    const msgs = await caught;
    assert.ok(
      Date.now() - started < 2000,
      `the batch waited ${Date.now() - started} ms (server timeout 5000, shortest msg.timeout 150)`,
    );
    for (const m of msgs) assert.match(m.error.message, /no (complete )?answer|timed out|timeout|within/i);
  });

  it('shows the queue depth while batching', async () => {
    await load({ batch: true, batchSize: 1000, batchWindow: 200 });
    const n1 = helper.getNode('n1');
    const got = collect('out', 3);
    for (let i = 0; i < 3; i++) n1.receive({ payload: { sqft: i } });
    await got;
    assert.ok(
      n1.status.args.some((a) => /^queued: [1-3]$/.test(a[0].text)),
      JSON.stringify(n1.status.args),
    );
  });

  it('flushes a pending batch on close so each msg still gets one outcome', async () => {
    await load({ batch: true, batchSize: 1000, batchWindow: 60000 });
    const got = collect('out', 2, 5000);
    helper.getNode('n1').receive({ payload: { sqft: 1 } });
    helper.getNode('n1').receive({ payload: { sqft: 2 } });
    await flushDeliveries(); // the input handler reaches the batcher a few promise turns after receive()
    assert.equal(predictCalls().length, 0, 'the 60 s window must still be open');
    const closing = helper.getNode('n1').close();
    const msgs = await got;
    await closing;
    assert.equal(msgs.length, 2);
    assert.equal(predictCalls().length, 1);
  });

  const bad = [
    ['no model', { model: '' }, { payload: { sqft: 1 } }, /no model/],
    ['a string payload', {}, { payload: 'x' }, /must be an object \(one row\) or an array/],
    ['a number inside the array', {}, { payload: [{ sqft: 1 }, 5] }, /msg.payload\[1\] must be an object/],
    ['an empty array', {}, { payload: [] }, /no rows to predict/],
    [
      'params that are not an object',
      { params: '' },
      { payload: { sqft: 1 }, predictParams: [1] },
      /params must be an object/,
    ],
    ['an unknown model (404)', { model: 'nope' }, { payload: { sqft: 1 } }, /HTTP 404.*Model not found/],
    ['an answer that is not rows', {}, { payload: { sqft: 1 }, fault: true }, /expected an array of prediction rows/],
  ];
  for (const [what, def, msgIn, pattern] of bad) {
    it(`sends ${what} to Catch with the msg`, async () => {
      await load(def);
      if (msgIn.fault)
        fake.fault((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"not":"rows"}');
        });
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ ...msgIn, marker: 'x' });
      const msg = await caught;
      assert.equal(msg.marker, 'x');
      assert.match(msg.error.message, pattern);
    });
  }
});
