'use strict';
/**
 * The lookup rule for names MindsDB stored in another case (src/client/shared/names.ts,
 * src/client/resources/names.ts): exactly as typed first, then the one case variant the server
 * lists, never a guess between two. The client calls run against the fake server, which stores
 * names as the real one does (docs/real-mindsdb.md, "Names and capitals").
 */
const assert = require('node:assert/strict');
const { fakeClient, sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const {
  MindsDBError,
  ModelsApi,
  FilesApi,
  ResourcesApi,
  KnowledgeBasesApi,
  matchName,
  withStoredName,
  storedName,
  storedNames,
  isNoSuchName,
  fileContent,
} = require('../../nodes/client');

describe('names: the rule (matchName)', () => {
  it('takes the name exactly as typed first, even when case variants are listed too', () => {
    assert.deepEqual(matchName('MyModel', ['mymodel', 'MyModel', 'MYMODEL']), { found: 'exact', name: 'MyModel' });
  });
  it('takes the one spelling that differs only in case', () => {
    assert.deepEqual(matchName('MyModel', ['other', 'mymodel']), { found: 'case', name: 'mymodel' });
    assert.deepEqual(matchName('sensorlog', ['SensorLog']), { found: 'case', name: 'SensorLog' });
  });
  it('never guesses between two spellings', () => {
    assert.deepEqual(matchName('MYMODEL', ['MyModel', 'mymodel', 'x']), {
      found: 'ambiguous',
      names: ['MyModel', 'mymodel'],
    });
  });
  it('finds nothing when no listed name matches, and counts a listed name once', () => {
    assert.deepEqual(matchName('model_x', ['model_y', 'modelx']), { found: 'none' });
    assert.deepEqual(matchName('A', ['a', 'a']), { found: 'case', name: 'a' });
  });
  it('tells "no such name" answers from other failures', () => {
    const err = (init) => new MindsDBError('x', init);
    assert.equal(isNoSuchName(err({ kind: 'http', status: 404 })), true);
    assert.equal(isNoSuchName(err({ kind: 'sql' })), true);
    assert.equal(
      isNoSuchName(err({ kind: 'http', status: 400, serverMessage: 'There was an error while trying to delete file' })),
      false,
    );
    assert.equal(isNoSuchName(err({ kind: 'http', status: 400, serverMessage: 'Error deleting file' })), true);
    assert.equal(isNoSuchName(err({ kind: 'http', status: 400, serverMessage: 'Creation is not allowed' })), true);
    assert.equal(
      isNoSuchName(
        err({
          kind: 'http',
          status: 400,
          serverMessage: 'Cannot delete database X. … Full error: Database does not exists: X.',
        }),
      ),
      true,
    );
    assert.equal(isNoSuchName(err({ kind: 'http', status: 400, serverMessage: 'Wrong arguments' })), false);
    assert.equal(isNoSuchName(err({ kind: 'http', status: 500, serverMessage: 'Job does not exist: j' })), true);
    assert.equal(isNoSuchName(err({ kind: 'http', status: 500, serverMessage: 'KeyError' })), false);
    assert.equal(isNoSuchName(err({ kind: 'unsupported', status: 404 })), false);
    assert.equal(isNoSuchName(err({ kind: 'network' })), false);
    assert.equal(isNoSuchName(new Error('x')), false);
  });
});

describe('names: finding what MindsDB stored (against the fake server)', () => {
  const t = fakeClient({ retries: 0 }, { client: true });

  const train = (name) =>
    sql(t.client, { query: `CREATE MODEL \`mindsdb\`.\`${name}\` PREDICT \`y\` USING engine = 'e'` });
  const paths = () =>
    t.fake.requests.filter((r) => r.path !== '/api/status').map((r) => `${r.method} ${decodeURIComponent(r.path)}`);

  it('a name given exactly as stored costs one request, as before', async () => {
    await train('mymodel');
    t.fake.requests.length = 0;
    assert.equal((await new ModelsApi(t.client).get('mindsdb', 'mymodel')).name, 'mymodel');
    assert.deepEqual(paths(), ['GET /api/projects/mindsdb/models/mymodel']);
  });
  it('a model made by unquoted SQL as MyModel (stored mymodel) is found: as typed, the listing, then the stored spelling', async () => {
    await train('mymodel');
    t.fake.requests.length = 0;
    assert.equal((await new ModelsApi(t.client).get('mindsdb', 'MyModel')).name, 'mymodel');
    assert.deepEqual(paths(), [
      'GET /api/projects/mindsdb/models/MyModel',
      'GET /api/projects/mindsdb/models',
      'GET /api/projects/mindsdb/models/mymodel',
    ]);
  });
  it('two stored spellings: an error that names both, and nothing is changed', async () => {
    await train('mymodel');
    await train('MyModel');
    t.fake.requests.length = 0;
    await assert.rejects(new ModelsApi(t.client).delete('mindsdb', 'MYMODEL'), (err) => {
      assert.equal(
        err.message,
        'no model `MYMODEL` in project `mindsdb`; MindsDB has `MyModel` and `mymodel`, which differ from it only in case: write the name exactly as one of them',
      );
      assert.equal(err.kind, 'input');
      return true;
    });
    assert.ok(!t.fake.requests.some((r) => r.method === 'DELETE' && !r.path.endsWith('MYMODEL')), paths().join('\n'));
  });
  it("a name MindsDB does not have in any case keeps the server's own error", async () => {
    await assert.rejects(new ModelsApi(t.client).get('mindsdb', 'Nope'), /404.*Model not found/);
  });
  it('an error that is not "no such name" is not retried under another spelling', async () => {
    await train('mymodel');
    t.fake.requests.length = 0;
    let calls = 0;
    await assert.rejects(
      withStoredName(t.client, { resource: 'model', project: 'mindsdb' }, 'MyModel', async () => {
        calls++;
        throw new MindsDBError('HTTP 500 boom', { kind: 'http', status: 500, serverMessage: 'boom' });
      }),
      /boom/,
    );
    assert.equal(calls, 1);
    assert.deepEqual(paths(), [], 'nothing listed');
  });
  it('a stored spelling that still misses is reported with what MindsDB has', async () => {
    await train('mymodel');
    await assert.rejects(
      withStoredName(t.client, { resource: 'model', project: 'mindsdb' }, 'MyModel', async (name) => {
        throw new MindsDBError(`HTTP 404 Model not found: ${name}`, { kind: 'http', status: 404 });
      }),
      (err) => {
        assert.match(
          err.message,
          /^no model `MyModel` in project `mindsdb`; MindsDB has `mymodel`, but does not find it by that name either: HTTP 404 Model not found: mymodel$/,
        );
        assert.equal(err.status, 404);
        return true;
      },
    );
  });
  it('storedName (for a PUT that would create what it misses) looks up first', async () => {
    const api = new ResourcesApi(t.client);
    await api.run('chatbot', 'create', {
      project: 'mindsdb',
      name: 'mybot',
      payload: { model_name: 'home_rentals', database_name: 'files' },
    });
    assert.equal(await storedName(t.client, { resource: 'chatbot', project: 'mindsdb' }, 'MyBot'), 'mybot');
    assert.equal(await storedName(t.client, { resource: 'chatbot', project: 'mindsdb' }, 'NewBot'), 'NewBot');
    const updated = await api.run('chatbot', 'update', {
      project: 'mindsdb',
      name: 'MyBot',
      payload: { params: { k: 1 } },
    });
    assert.equal(updated.name, 'mybot');
    assert.deepEqual(
      (await api.run('chatbot', 'list', { project: 'mindsdb' })).map((b) => b.name),
      ['mybot'],
      'no second chatbot MyBot was created',
    );
  });
  it('get, update and delete of chatbots, skills and agents find the stored spelling; the delete names it', async () => {
    const api = new ResourcesApi(t.client);
    await api.run('agent', 'create', {
      project: 'mindsdb',
      name: 'myagent',
      payload: { model: { provider: 'mindsdb', model_name: 'home_rentals' } },
    });
    assert.equal((await api.run('agent', 'get', { project: 'mindsdb', name: 'MyAgent' })).name, 'myagent');
    await api.run('agent', 'update', { project: 'mindsdb', name: 'MyAgent', payload: { prompt_template: 'p' } });
    assert.deepEqual(await api.run('agent', 'delete', { project: 'mindsdb', name: 'MyAgent' }), {
      deleted: true,
      resource: 'agent',
      project: 'mindsdb',
      name: 'myagent',
    });
  });
  it('knowledge-base search finds the stored spelling of the knowledge base in SQL', async () => {
    const kb = new KnowledgeBasesApi(t.client);
    await kb.create('mindsdb', 'mydocs', { embedding_model: { provider: 'openai' } });
    await kb.insert('mindsdb', 'MyDocs', { rows: [{ id: 'a', content: 'pump overheats' }] });
    const found = await kb.search('mindsdb', 'MyDocs', { text: 'pump' });
    assert.equal(found.rows[0].id, 'a');
    assert.ok(t.fake.requestsTo('/sql/query').some((r) => /`mydocs`/.test(r.body.query)));
  });
  it("SQL that names a project finds the project's stored spelling too (RETRAIN `MyProj`.`MyModel` of myproj.mymodel)", async () => {
    t.fake.state.projects.add('myproj');
    await sql(t.client, { query: "CREATE MODEL `myproj`.`mymodel` PREDICT `y` USING engine = 'e'" });
    t.fake.requests.length = 0;
    const run = await new ModelsApi(t.client).retrain('MyProj', 'MyModel', {});
    assert.deepEqual(run, { project: 'myproj', model: 'mymodel', version: 2, made: 'version' });
    assert.deepEqual(
      t.fake.requestsTo('/sql/query').map((r) => r.body.query),
      ['RETRAIN `MyProj`.`MyModel`', 'RETRAIN `myproj`.`MyModel`', 'RETRAIN `myproj`.`mymodel`'],
    );
  });
  it('projects are listed as stored (from /databases/), files and models from their own listings', async () => {
    assert.deepEqual(await storedNames(t.client, { resource: 'project' }), ['mindsdb']);
    await train('m1');
    assert.deepEqual(await storedNames(t.client, { resource: 'model', project: 'mindsdb' }), [
      'home_rentals',
      'lightwood_rentals',
      'm1',
    ]);
  });

  describe('files (25.14.1 stores an upload lower-cased and deletes only by that spelling)', () => {
    const csv = (text) => fileContent(text, 'x', 'csv');
    it('upload reports the table MindsDB stored; delete and replace use it', async () => {
      const files = new FilesApi(t.client);
      const up = await files.upload('SensorLog', csv('a,b\n1,2\n'), false, 1e6);
      assert.deepEqual(up, { uploaded: true, name: 'sensorlog', table: 'files.sensorlog', bytes: 8, replaced: false });
      const again = await files.upload('SensorLog', csv('a,b\n3,4\n'), true, 1e6);
      assert.equal(again.replaced, true);
      assert.equal(again.table, 'files.sensorlog');
      assert.deepEqual(await files.delete('SensorLog'), { deleted: true, name: 'sensorlog' });
      assert.deepEqual(await files.list(), []);
      await assert.rejects(files.delete('SensorLog'), /file "SensorLog" does not exist/);
    });
    it('a lower-case name costs no listing after the upload', async () => {
      await new FilesApi(t.client).upload('readings', csv('a\n1\n'), false, 1e6);
      assert.deepEqual(paths(), ['PUT /api/files/readings']);
    });
  });
});

describe('names: the predict node finds a model stored in another case', function () {
  const { helper, node, catchNode, flowWith, collect } = require('../support/nr');
  const base = {
    type: 'mindsdb-predict',
    project: 'mindsdb',
    projectType: 'str',
    model: 'Home_Rentals',
    modelType: 'str',
    params: '',
    paramsType: 'json',
    batch: false,
    batchSize: 100,
    batchWindow: 50,
    keepExplainString: false,
  };
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

  for (const batch of [false, true]) {
    it(`${batch ? 'batched: one lookup for the whole batch' : 'one message'}: predicts with the stored home_rentals and reads its target from it`, async () => {
      await helper.load(
        [node('mindsdb-server'), node('mindsdb-predict'), catchNode],
        flowWith({ ...base, batch }, { url: fake.url, retries: 0 }),
      );
      const got = collect('out', 3);
      for (const sqft of [1, 2, 3]) helper.getNode('n1').receive({ payload: { sqft } });
      const msgs = await got;
      assert.deepEqual(msgs.map((m) => m.payload.rental_price).sort(), [103, 106, 109]);
      for (const m of msgs)
        assert.deepEqual(m.mindsdb, { project: 'mindsdb', model: 'Home_Rentals', target: 'rental_price', rows: 1 });
      const predicts = fake.requests.filter((r) => r.path.endsWith('/predict')).map((r) => decodeURIComponent(r.path));
      const listings = fake.requests.filter((r) => r.path === '/api/projects/mindsdb/models');
      if (batch) {
        assert.deepEqual(predicts, [
          '/api/projects/mindsdb/models/Home_Rentals/predict',
          '/api/projects/mindsdb/models/home_rentals/predict',
        ]);
        assert.equal(listings.length, 1);
      } else {
        assert.equal(predicts.filter((p) => p.includes('/home_rentals/')).length, 3);
      }
    });
  }
});
