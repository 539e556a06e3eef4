'use strict';
/**
 * The exchange policy as a flow sees it (issue 21): a tick that never waits for a slot, a tick
 * refused where it cannot be used, a refused batch that does not multiply load, a file replace
 * that does not destroy the old file first, and multi-step operations that say what they did.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { faultOn, lostAnswer, until } = require('../support/exchange-faults');
const { helper, node, coreNode, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { MindsDBClient, ModelsApi } = require('../../nodes/client');

const changeNode = coreNode('function/15-change.js');
const sqlDef = {
  type: 'mindsdb-sql',
  query: 'SELECT i',
  database: '',
  databaseType: 'str',
  rowFormat: 'objects',
  split: true,
  rowsPerMsg: 2,
  flowControl: true,
  partsAhead: 1,
};
const predictDef = {
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

describe('exchange policy in flows', function () {
  let fake;
  beforeEach(async () => {
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });

  for (const version of ['25.14.1', '26.1.0']) {
    it(`a tick comes back through a node that needs the same server, with maxInFlight 1: no deadlock (instance 3, MindsDB ${version})`, async () => {
      fake = await createFakeMindsDB({ version }).listen();
      fake.state.sql = () => ({
        type: 'table',
        column_names: ['sqft'],
        data: Array.from({ length: 10 }, (_, i) => [i]),
      });
      // sql (split, tick flow control) → predict on the same server → change (tick) → back to sql
      const flow = flowWith({ ...sqlDef, wires: [['pred']] }, { url: fake.url, maxInFlight: 1, timeout: 2000 });
      flow.push({
        id: 'pred',
        z: 'f1',
        server: 'srv',
        name: '',
        outputProperty: 'prediction',
        version: 1,
        ...predictDef,
        wires: [['out', 'tick']],
      });
      flow.push({
        id: 'tick',
        z: 'f1',
        type: 'change',
        rules: [{ t: 'set', p: 'tick', pt: 'msg', to: 'true', tot: 'bool' }],
        wires: [['n1']],
      });
      await helper.load(
        [node('mindsdb-server'), node('mindsdb-sql'), node('mindsdb-predict'), catchNode, changeNode],
        flow,
      );
      const errors = [];
      helper.getNode('caught').on('input', (m) => errors.push(m.error.message));
      const parts = collect('out', 5, 6000);
      helper.getNode('n1').receive({});
      const got = await parts;
      assert.deepEqual(errors, []);
      assert.deepEqual(
        got.map((m) => m.parts.index),
        [0, 1, 2, 3, 4],
      );
      assert.equal(got[4].complete, true);
      assert.equal(fake.requests.filter((r) => r.path.endsWith('/predict')).length, 5);
    });
  }

  it('refuses a msg.tick at a sql node whose flow control is off, with an input error to Catch (instance 4)', async () => {
    fake = await createFakeMindsDB().listen();
    await helper.load(
      [node('mindsdb-server'), node('mindsdb-sql'), catchNode],
      flowWith({ ...sqlDef, flowControl: false }, { url: fake.url }),
    );
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ tick: true, parts: { id: 'x', index: 0 } });
    const err = await caught;
    assert.match(err.error.message, /msg\.tick .*flow control .* is off/);
    assert.equal(err.mindsdbError.kind, 'input');
    assert.equal(fake.requests.length, 0, 'nothing was sent');
  });

  describe('a micro-batch the server refuses (instance 7)', () => {
    const load = (server = {}) =>
      helper.load(
        [node('mindsdb-server'), node('mindsdb-predict'), catchNode],
        flowWith(
          { ...predictDef, batch: true, batchSize: 10, batchWindow: 1000 },
          { url: fake.url, retries: 2, ...server },
        ),
      );
    const predictCalls = () => fake.requests.filter((r) => r.path.endsWith('/predict'));
    const tenMessages = () => {
      for (let i = 0; i < 10; i++) helper.getNode('n1').receive({ payload: { sqft: i } });
    };

    it("is sent again whole after a 429's Retry-After, never one message at a time", async () => {
      fake = await createFakeMindsDB().listen();
      faultOn(
        fake,
        (e) => e.path.endsWith('/predict'),
        (_req, res) => {
          res.writeHead(429, { 'retry-after': '0' });
          res.end();
        },
      );
      await load();
      const outs = collect('out', 10);
      tenMessages();
      const got = await outs;
      assert.deepEqual(
        got.map((m) => m.payload.sqft),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      assert.deepEqual(
        predictCalls().map((r) => r.body.data.length),
        [10, 10],
      );
    });

    it('fails whole when the server stays unavailable: retries + 1 requests, not 1 + one per message', async () => {
      fake = await createFakeMindsDB().listen();
      fake.fault((req, res) => {
        if (!req.url.endsWith('/predict')) return false;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"title":"Service Unavailable"}');
        return undefined;
      }, 20);
      await load();
      const errors = collect('caught', 10);
      tenMessages();
      const got = await errors;
      assert.ok(got.every((m) => m.mindsdbError.status === 503));
      assert.deepEqual(
        predictCalls().map((r) => r.body.data.length),
        [10, 10, 10],
      );
    });

    it('still isolates a bad row when the server answered the batch with an error one row can cause (500)', async () => {
      fake = await createFakeMindsDB().listen();
      faultOn(
        fake,
        (e) => e.path.endsWith('/predict'),
        (_req, res) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"title":"ValueError","detail":"bad row"}');
        },
      );
      await load();
      const outs = collect('out', 10);
      tenMessages();
      await outs;
      assert.deepEqual(
        predictCalls().map((r) => r.body.data.length),
        [10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      );
    });
  });

  it('sends a micro-batch still open at a redeploy before the server node closes its connection', async () => {
    fake = await createFakeMindsDB().listen();
    await helper.load(
      [node('mindsdb-server'), node('mindsdb-predict'), catchNode],
      flowWith({ ...predictDef, batch: true, batchSize: 100, batchWindow: 60_000 }, { url: fake.url }),
    );
    for (let i = 0; i < 5; i++) helper.getNode('n1').receive({ payload: { sqft: i } });
    // the five readings wait in the open batch (its window is a minute)
    const n1 = helper.getNode('n1');
    await until(() => n1.status.args.some((a) => a[0].text === 'queued: 5'), 5000, 'five readings in the batch');
    await helper.unload(); // Node-RED closes the flow's nodes, then, in the same turn, the config nodes
    const calls = fake.requests.filter((r) => r.path.endsWith('/predict'));
    assert.deepEqual(
      calls.map((r) => r.body.data.length),
      [5],
    );
  });

  describe('file replace (instance 9)', () => {
    const fileDef = {
      type: 'mindsdb-file',
      operation: 'upload',
      fileName: 'readings',
      fileNameType: 'str',
      format: 'csv',
      replace: true,
      maxSizeMB: 100,
    };
    const load = () =>
      helper.load([node('mindsdb-server'), node('mindsdb-file'), catchNode], flowWith(fileDef, { url: fake.url }));
    const seed = () =>
      fake.state.files.set('readings', { name: 'readings', content: Buffer.from('a\n1\n'), rows: 1, columns: ['a'] });

    it('keeps the old file when MindsDB refuses the new content, and says nothing was changed', async () => {
      fake = await createFakeMindsDB().listen();
      seed();
      faultOn(
        fake,
        (e) => e.method === 'PUT',
        (_req, res) => {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end('{"title":"Error","detail":"Cannot parse the file"}');
        },
      );
      await load();
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ payload: 'a\n2\n' });
      const err = await caught;
      assert.match(err.error.message, /Cannot parse the file.*nothing was changed: files\.readings is as it was/);
      assert.equal(fake.state.files.get('readings').content.toString(), 'a\n1\n');
      assert.equal(fake.requests.filter((r) => r.method === 'DELETE').length, 0, 'nothing was deleted');
    });

    it('says what was done when the upload fails after the old file was deleted, and where the new content is', async () => {
      fake = await createFakeMindsDB().listen();
      seed();
      // the second PUT (under the real name) loses its connection before it is carried out
      faultOn(
        fake,
        (e) => e.method === 'PUT' && e.path === '/api/files/readings',
        (req) => {
          req.socket.destroy();
        },
      );
      await load();
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ payload: 'a\n2\n' });
      const err = await caught;
      const m =
        /files\.readings was deleted, but uploading its new content failed; the new content is in files\.(readings__replacing_[0-9a-f]{8})/.exec(
          err.error.message,
        );
      assert.ok(m, err.error.message);
      assert.equal(fake.state.files.get(m[1]).content.toString(), 'a\n2\n');
    });
  });

  describe('multi-step operations say what they already did', () => {
    it('activate: the version is active even when reading its record back fails', async () => {
      fake = await createFakeMindsDB().listen();
      fake.state.trained.set('mindsdb/m', [
        { name: 'm', project: 'mindsdb', version: 1, active: true, status: 'complete' },
        { name: 'm', project: 'mindsdb', version: 2, active: false, status: 'complete' },
      ]);
      const client = new MindsDBClient({ baseUrl: fake.url, retries: 0 });
      try {
        faultOn(fake, (e) => e.method === 'GET', lostAnswer);
        await assert.rejects(
          new ModelsApi(client).activate('mindsdb', 'm', 2),
          /version 2 of mindsdb\.m is active now, but reading its record back failed/,
        );
        assert.equal(fake.state.trained.get('mindsdb/m')[1].active, true);
      } finally {
        await client.close(0);
      }
    });

    it('train: the training goes on even when reading its first record fails', async () => {
      fake = await createFakeMindsDB().listen();
      await helper.load(
        [node('mindsdb-server'), node('mindsdb-model'), catchNode],
        flowWith(
          {
            type: 'mindsdb-model',
            operation: 'train',
            project: 'mindsdb',
            projectType: 'str',
            model: 'm9',
            modelType: 'str',
            modelVersion: '',
            statement: '',
            database: 'files',
            select: 'SELECT * FROM r',
            predict: 'y',
            engine: 'linear',
            using: '',
            wait: false,
            waitTimeout: 5,
          },
          { url: fake.url },
        ),
      );
      faultOn(
        fake,
        (e) => e.method === 'GET' && e.path.includes('/models/'),
        (_req, res) => {
          res.writeHead(502);
          res.end();
        },
      );
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({});
      assert.match(
        (await caught).error.message,
        /training mindsdb\.m9 version 1 started and goes on in MindsDB, but reading its record failed/,
      );
    });
  });
});
