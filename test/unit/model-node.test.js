'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { createModelSql, sqlLiteral, ident } = require('../../nodes/client');
const { waitFor } = require('../support/wait');

const nodes = [node('mindsdb-server'), node('mindsdb-model'), catchNode];
const base = {
  type: 'mindsdb-model',
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  model: '',
  modelType: 'str',
  modelVersion: '',
  statement: '',
  database: '',
  select: '',
  predict: '',
  engine: '',
  using: '',
  wait: false,
  waitTimeout: 600,
};
const sqlSent = (fake) => fake.requestsTo('/sql/query').map((r) => r.body.query);

describe('mindsdb-model node', function () {
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
  const run = async (msg, timeoutMs) => {
    const got = nextMessage('out', timeoutMs);
    helper.getNode('n1').receive(msg);
    return got;
  };
  const fail = async (msg) => {
    const got = nextMessage('caught');
    helper.getNode('n1').receive(msg);
    return got;
  };

  it("trains from the node's fields, waits until complete, and sends one message with the model", async () => {
    await load({
      operation: 'train',
      model: 'energy',
      database: 'files',
      select: 'SELECT * FROM readings',
      predict: 'kwh',
      engine: 'linear',
      using: '{"window": 3}',
      wait: true,
      waitTimeout: 30,
    });
    const statuses = [];
    helper.getNode('n1').on('call:status', (c) => statuses.push(c.args[0]));
    const m = await run({}, 15000);
    assert.deepEqual(sqlSent(fake), [
      "CREATE MODEL `mindsdb`.`energy` FROM `files` (\nSELECT * FROM readings\n) PREDICT `kwh` USING `engine` = 'linear', `window` = 3",
    ]);
    assert.equal(m.payload.status, 'complete');
    assert.equal(m.payload.version, 1);
    assert.equal(m.mindsdb.operation, 'train');
    assert.equal(m.mindsdb.version, 1);
    assert.equal(m.mindsdb.status, 'complete');
    assert.ok(
      fake.requests.filter((r) => r.path === '/api/projects/mindsdb/models/energy.1').length >= 2,
      'polled the new version',
    );
    assert.ok(
      statuses.some((s) => s.fill === 'yellow' && /energy v1/.test(s.text)),
      `progress in the status ring: ${JSON.stringify(statuses)}`,
    );
  });

  it('trains from a CREATE MODEL statement in msg.payload when the node has none; without waiting it sends the first status', async () => {
    await load({ operation: 'train' });
    const m = await run({ payload: "CREATE MODEL mindsdb.m2 FROM files (SELECT 1) PREDICT y USING engine = 'linear'" });
    assert.equal(m.payload.name, 'm2');
    assert.notEqual(m.payload.status, 'complete');
    assert.equal(m.mindsdb.waitedSeconds, undefined);
  });

  it('fills blank fields from msg.payload; node USING keys win', async () => {
    await load({ operation: 'train', model: 'm3', engine: 'linear', using: '{"a": 1}' });
    await run({
      payload: {
        database: 'files',
        select: 'SELECT * FROM r',
        predict: 'y',
        engine: 'other',
        using: { a: 2, b: "it's" },
      },
    });
    assert.equal(
      sqlSent(fake)[0],
      "CREATE MODEL `mindsdb`.`m3` FROM `files` (\nSELECT * FROM r\n) PREDICT `y` USING `engine` = 'linear', `a` = 1, `b` = 'it''s'",
    );
  });

  it('retrains and finetunes (a new version each), waits for that version, lists versions and activates one', async () => {
    await load({
      operation: 'train',
      model: 'lin',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'linear',
      wait: true,
      waitTimeout: 30,
    });
    await run({}, 15000);
    await helper.unload();
    await load({ model: 'lin', wait: true, waitTimeout: 30 });
    const re = await run({ operation: 'retrain' }, 15000);
    assert.equal(re.payload.version, 2);
    assert.equal(re.payload.status, 'complete');
    const ft = await run({ operation: 'finetune', payload: { database: 'files', select: 'SELECT 2' } }, 15000);
    assert.equal(ft.payload.version, 3);
    assert.deepEqual(sqlSent(fake).slice(-2), [
      'RETRAIN `mindsdb`.`lin`',
      'FINETUNE `mindsdb`.`lin` FROM `files` (\nSELECT 2\n)',
    ]);
    assert.deepEqual(
      (await run({ operation: 'versions' })).payload.map((v) => v.version),
      [1, 2, 3],
    );
    const act = await run({ operation: 'activate', version: 3 });
    assert.equal(act.payload.active, true);
    assert.equal(sqlSent(fake).at(-1), 'SET active `mindsdb`.`lin`.`3`');
    assert.deepEqual(
      (await run({ operation: 'list' })).payload.filter((x) => x.name === 'lin').map((x) => x.version),
      [3],
    );
    assert.equal((await run({ operation: 'describe' })).payload[0].NAME, 'lin');
    assert.deepEqual((await run({ operation: 'delete', version: 1 })).payload, {
      deleted: true,
      project: 'mindsdb',
      model: 'lin',
      version: 1,
    });
    assert.equal(sqlSent(fake).at(-1), 'DROP MODEL `mindsdb`.`lin`.`1`');
    assert.deepEqual((await run({ operation: 'delete' })).payload, { deleted: true, project: 'mindsdb', model: 'lin' });
    assert.equal(fake.requests.at(-1).method, 'DELETE');
  });

  it("a training that ends in error goes to Catch with the engine's reason", async () => {
    await load({
      operation: 'train',
      model: 'bad',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'broken',
      wait: true,
      waitTimeout: 30,
    });
    const got = nextMessage('caught', 15000);
    helper.getNode('n1').receive({});
    assert.match((await got).error.message, /training mindsdb\.bad version 1 failed: the engine failed to train/);
  });

  it('a training that ends in error removes the model it made, so a new train of that name can succeed (issue 32)', async () => {
    await load({
      operation: 'train',
      model: 'bad',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'broken',
      wait: true,
      waitTimeout: 30,
    });
    const got = nextMessage('caught', 15000);
    helper.getNode('n1').receive({});
    const e = await got;
    assert.match(
      e.error.message,
      /failed: the engine failed to train \(the node removed the model mindsdb\.bad that this training made/,
    );
    assert.equal(
      fake.state.trained.has('mindsdb/bad'),
      false,
      'MindsDB keeps a model whose training failed: the node removed it',
    );
    assert.equal(e.mindsdb.leftover, undefined);
    assert.deepEqual(
      [e.mindsdb.operation, e.mindsdb.project, e.mindsdb.model, e.mindsdb.version],
      ['train', 'mindsdb', 'bad', 1],
    );
  });

  it('a retrain that ends in error removes only the version it made; the model is as it was', async () => {
    await load({ operation: 'msg', model: 'lin', wait: true, waitTimeout: 30 });
    await run(
      { operation: 'train', payload: { database: 'files', select: 'SELECT 1', predict: 'y', engine: 'linear' } },
      15000,
    );
    const e = await fail({ operation: 'retrain', payload: { engine: 'broken' } });
    assert.match(e.error.message, /the node removed version 2 that this training made/);
    assert.deepEqual(
      fake.state.trained.get('mindsdb/lin').map((v) => [v.version, v.active, v.status]),
      [[1, true, 'complete']],
    );
    assert.equal(sqlSent(fake).at(-1), 'DROP MODEL `mindsdb`.`lin`.`2`');
  });

  it('a failed training whose model cannot be removed names it in the error and in msg.mindsdb.leftover', async () => {
    await load({
      operation: 'train',
      model: 'bad',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'broken',
      wait: true,
      waitTimeout: 30,
    });
    fake.state.faultPlan = (entry) =>
      entry.method === 'DELETE'
        ? (_req, res) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end('{"title":"Error","detail":"busy"}');
          }
        : null;
    const got = nextMessage('caught', 15000);
    helper.getNode('n1').receive({});
    const e = await got;
    assert.match(
      e.error.message,
      /removing the model mindsdb\.bad that it made failed too .*DROP MODEL `mindsdb`\.`bad`/,
    );
    assert.deepEqual(e.mindsdb.leftover, ['model mindsdb.bad (status error): DROP MODEL `mindsdb`.`bad`']);
    assert.equal(fake.state.trained.has('mindsdb/bad'), true);
  });

  it('refuses to train in a project stored with capitals, before sending: MindsDB would train a model its REST routes cannot read or ask', async () => {
    fake.state.projects.add('Sales');
    await load({
      operation: 'train',
      project: 'Sales',
      model: 'm',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'linear',
    });
    const e = await fail({});
    assert.match(
      e.error.message,
      /MindsDB cannot keep models in project "Sales".*use a project with a lower-case name; nothing was sent/,
    );
    assert.deepEqual(sqlSent(fake), []);
    assert.equal(e.mindsdbError.kind, 'input');
  });

  it("gives up at the wait's deadline with a clear error (training goes on)", async () => {
    await load({
      operation: 'train',
      model: 'slow',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'linear',
      wait: true,
      waitTimeout: 1,
    });
    fake.fault((_req, res, entry) => {
      if (entry.method !== 'GET') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"name":"slow","version":1,"status":"training"}');
      return true;
    }, 50);
    const got = nextMessage('caught', 15000);
    helper.getNode('n1').receive({});
    const e = await got;
    assert.match(e.error.message, /mindsdb\.slow version 1 is still "training" after \d+ s, the wait's limit/);
    assert.equal(e.mindsdbError.kind, 'timeout');
  });

  it('a redeploy during a wait ends the message with a clear error, once', async () => {
    await load({
      operation: 'train',
      model: 'w',
      database: 'files',
      select: 'SELECT 1',
      predict: 'y',
      engine: 'linear',
      wait: true,
      waitTimeout: 600,
    });
    fake.fault((_req, res, entry) => {
      if (entry.method !== 'GET') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"name":"w","version":1,"status":"training"}');
      return true;
    }, 50);
    const got = nextMessage('caught', 15000);
    helper.getNode('n1').receive({});
    await waitFor(() => fake.requests.some((r) => r.method === 'GET'), { what: 'the wait polling the model' });
    const closed = helper.getNode('n1').close();
    const e = await got;
    await closed;
    assert.match(e.error.message, /stopped waiting for mindsdb\.w version 1: the node was closed/);
  });

  for (const [what, def, msg, pattern] of [
    ['no model name', { operation: 'get' }, {}, /no model name/],
    [
      'train without a column to predict',
      { operation: 'train', model: 'x', engine: 'linear' },
      {},
      /no column to predict/,
    ],
    [
      'a statement that is not CREATE MODEL',
      { operation: 'train' },
      { payload: 'DROP TABLE x' },
      /must be a CREATE MODEL statement/,
    ],
    ['a name with a backtick', { operation: 'get' }, { model: 'a`b' }, /404|cannot take/],
    ['activate without a version', { operation: 'activate', model: 'x' }, {}, /activate needs a version/],
    ['a bad version', { operation: 'get', model: 'x' }, { version: 'two' }, /version must be a whole number/],
    [
      'a USING option name with a backtick',
      { operation: 'train', model: 'x', predict: 'y' },
      { payload: { using: { 'a`b': 1 } } },
      /USING option name "a`b" contains a character/,
    ],
    [
      'a USING value ending in a backslash',
      { operation: 'train', model: 'x', predict: 'y', engine: 'e' },
      { payload: { using: { path: 'C:\\data\\' } } },
      /ends with a backslash/,
    ],
    [
      'a training SELECT that closes the parenthesis',
      { operation: 'train', model: 'x', predict: 'y', engine: 'e', database: 'files' },
      { payload: { select: "SELECT 1) PREDICT z USING engine = 'other' --" } },
      /closes a parenthesis it did not open/,
    ],
    [
      'broken node USING JSON',
      { operation: 'train', model: 'x', predict: 'y', using: '{' },
      {},
      /USING options are not valid JSON/,
    ],
    ['finetune without data', { operation: 'finetune', model: 'x' }, {}, /needs training data/],
    ['a missing model (404)', { operation: 'get', model: 'ghost' }, {}, /404.*Model not found/],
    ['versions of a missing model', { operation: 'versions', model: 'ghost' }, {}, /model "ghost" does not exist/],
    ['a bad operation', {}, { operation: 'predict' }, /must be one of train, get, describe/],
  ]) {
    it(`sends ${what} to Catch with the msg`, async () => {
      await load(def);
      const m = await fail({ ...msg, marker: 9 });
      assert.equal(m.marker, 9);
      assert.match(m.error.message, pattern);
    });
  }

  it('on MindsDB 26 (no default engine) a train without an engine fails before anything is sent', async () => {
    await fake.close();
    fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
    await load({ operation: 'train', model: 'm', database: 'files', select: 'SELECT 1', predict: 'y' });
    assert.match((await fail({})).error.message, /MindsDB 26\.1\.0 has no default ML engine, set Engine/);
    assert.equal(fake.requestsTo('/sql/query').length, 0);
    await helper.unload();
    await load({ operation: 'train', model: 'm', database: 'files', select: 'SELECT 1', predict: 'y', engine: 'e' });
    assert.equal((await run({})).payload.name, 'm');
  });

  it('SQL helpers: identifiers, literals, the statement', () => {
    assert.equal(ident('a b', 'x'), '`a b`');
    assert.throws(() => ident('a`b', 'x'), /cannot take/);
    assert.equal(sqlLiteral({ k: ["it's", 1, true, null] }), "{'k': ['it''s', 1, true, null]}");
    assert.equal(
      createModelSql('p', { model: 'm', predict: 'y', using: { engine: 'e', x: 1 } }),
      "CREATE MODEL `p`.`m` PREDICT `y` USING `engine` = 'e', `x` = 1",
    );
    assert.throws(() => createModelSql('p', { model: 'm', predict: 'y', select: 'SELECT 1' }), /needs the database/);
  });
});
