'use strict';
/**
 * End-to-end: the ML engine node against a real MindsDB (25.14.1 or 26.1.0, MINDSDB_VERSION) and
 * the OpenAI-compatible LLM double (LLM_DOUBLE_URL). It lists the server's ML handlers, creates an
 * engine from `openai` pointed at the double with the API key stored as the node's credential,
 * trains a model on that engine with the model node, gets a prediction from the predict node, and
 * deletes model and engine. Every name carries this run's prefix; what it made is dropped, even
 * when a step fails.
 */
const assert = require('node:assert/strict');
const { fails, ok, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith } = require('../support/nr');
const { secretsIn } = require('../support/node-cases');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const LLM_URL = process.env.LLM_DOUBLE_URL;
const run = `mle${Date.now().toString(36)}`;
const ENGINE = `${run}_engine`;
const MODEL = `${run}_model`;
const KEY = `sk-${run}-stored-key`;
const all = [
  node('mindsdb-server'),
  node('mindsdb-ml-engine'),
  node('mindsdb-model'),
  node('mindsdb-predict'),
  catchNode,
];
const engineDef = {
  type: 'mindsdb-ml-engine',
  operation: 'msg',
  engineName: '',
  engineNameType: 'str',
  handler: '',
  apiKeyParam: '',
  settings: '',
};
let VERSION = '';

const sql = async (query) =>
  (
    await fetch(`${URL_}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    })
  ).json();

describe('e2e: mindsdb-ml-engine against a real MindsDB', function () {
  before(async function () {
    VERSION = await realMindsDB(URL_, { llm: true });
    console.log(`      MindsDB ${VERSION} at ${URL_}, LLM double at ${LLM_URL}`);
  });
  eachCaseInNodeRed();
  after(async () => {
    // Whatever a failed step left behind.
    await sql(`DROP MODEL IF EXISTS mindsdb.${MODEL}`).catch(() => undefined);
    await sql(`DROP ML_ENGINE IF EXISTS ${ENGINE}`).catch(() => undefined);
  });

  const load = (def, creds) => helper.load(all, flowWith(def, { url: URL_, timeout: 120000 }), creds);

  it('lists the ML handlers with whether each loads: openai on both versions, byom only on 25.x', async () => {
    await load({ ...engineDef, operation: 'handlers' });
    const m = await ok({});
    const byName = new Map(m.payload.map((h) => [h.name, h]));
    assert.ok(byName.has('openai'), JSON.stringify([...byName.keys()]));
    assert.equal(byName.has('byom'), Number(VERSION.split('.')[0]) < 26);
    assert.ok(m.payload.every((h) => h.imported === true || h.imported === false || h.imported === null));
    assert.ok(!byName.has('postgres'), 'data handlers are not listed');
  });

  it("creates an engine from openai on the LLM double, the key from the node's credential; lists it with the key masked", async () => {
    await load(
      { ...engineDef, engineName: ENGINE, handler: 'openai', settings: JSON.stringify({ api_base: LLM_URL }) },
      { n1: { apiKey: KEY } },
    );
    const m = await ok({ operation: 'create' });
    assert.deepEqual(m.payload, { created: true, name: ENGINE, handler: 'openai' });
    assert.deepEqual(secretsIn(m, [KEY]), []);
    const again = await fails({ operation: 'create' });
    assert.match(again.error.message, new RegExp(`ML engine "${ENGINE}" already exists`));
    assert.deepEqual(secretsIn(again, [KEY]), []);
    const list = await ok({ operation: 'list' });
    const mine = list.payload.find((e) => e.name === ENGINE);
    assert.deepEqual(mine, {
      name: ENGINE,
      handler: 'openai',
      settings: { openai_api_key: '******', api_base: LLM_URL },
    });
    assert.deepEqual(secretsIn(list, [KEY]), []);
  });

  it('a name with capitals: MindsDB stores it as given and answers an error, the node reports it created; delete finds it', async () => {
    const caps = `${run}_Caps`;
    await load(
      { ...engineDef, handler: 'openai', settings: JSON.stringify({ api_base: LLM_URL }) },
      { n1: { apiKey: KEY } },
    );
    try {
      assert.deepEqual((await ok({ operation: 'create', name: caps })).payload, {
        created: true,
        name: caps,
        handler: 'openai',
      });
      assert.ok((await sql('SHOW ML_ENGINES')).data.some((r) => r[0] === caps));
      assert.deepEqual((await ok({ operation: 'delete', name: caps.toLowerCase() })).payload, {
        deleted: true,
        name: caps,
      });
    } finally {
      await sql(`DROP ML_ENGINE IF EXISTS \`${caps}\``);
    }
  });

  it('a handler the server lacks fails with an error naming the version; nothing is created', async () => {
    await load({ ...engineDef, operation: 'create', engineName: `${run}_none`, handler: 'no_such_handler' });
    const e = await fails({});
    assert.match(
      e.error.message,
      new RegExp(`MindsDB ${VERSION.replace(/\./g, '\\.')} has no ML handler "no_such_handler"`),
    );
  });

  it('a model trained on the engine (the model node) answers a prediction (the predict node)', async () => {
    await load({
      type: 'mindsdb-model',
      operation: 'train',
      project: 'mindsdb',
      projectType: 'str',
      model: MODEL,
      modelType: 'str',
      modelVersion: '',
      statement: '',
      database: '',
      select: '',
      predict: 'answer',
      engine: ENGINE,
      using: JSON.stringify({ model_name: 'gpt-4o', mode: 'default', prompt_template: 'say {{q}}' }),
      wait: true,
      waitTimeout: 120,
    });
    const trained = await ok({});
    assert.equal(String(trained.payload.status).toLowerCase(), 'complete', JSON.stringify(trained.payload));
    await helper.unload();
    await load({
      type: 'mindsdb-predict',
      project: 'mindsdb',
      projectType: 'str',
      model: MODEL,
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
      keepExplainString: false,
    });
    const predicted = await ok({ payload: { q: 'hello engine' } });
    assert.match(JSON.stringify(predicted.payload), /say hello engine/, JSON.stringify(predicted.payload));
  });

  it('deletes the engine once its model is gone, by another case too; a second delete says it does not exist', async () => {
    assert.equal((await sql(`DROP MODEL mindsdb.${MODEL}`)).type, 'ok');
    await load({ ...engineDef, operation: 'delete' });
    const m = await ok({ name: ENGINE.toUpperCase() });
    assert.deepEqual(m.payload, { deleted: true, name: ENGINE });
    const gone = await fails({ name: ENGINE });
    assert.match(gone.error.message, /does not exist/i);
    const list = (await sql('SHOW ML_ENGINES')).data.map((r) => r[0]);
    assert.ok(!list.includes(ENGINE));
  });
});
