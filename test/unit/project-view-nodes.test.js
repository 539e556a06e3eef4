'use strict';
/**
 * The project node (list, get, create by CREATE PROJECT, delete by DROP PROJECT, never a data
 * source) and the view node (list, get, create, update, delete over /projects/{p}/views, and query:
 * the view's rows as the sql node sends them), against the in-process fake MindsDB.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { holdsFor } = require('../support/wait');

const nodes = [node('mindsdb-server'), node('mindsdb-project'), node('mindsdb-view'), catchNode];
const PROJECT = { type: 'mindsdb-project', operation: 'msg', itemName: '', itemNameType: 'str' };
const VIEW = {
  type: 'mindsdb-view',
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  query: '',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 2,
  flowControl: false,
  partsAhead: 1,
};
const sqlSent = (fake) => fake.requestsTo('/sql/query').map((r) => r.body.query);

describe('mindsdb-project and mindsdb-view nodes', function () {
  let fake;
  const start = async (options) => {
    fake = await createFakeMindsDB(options).listen();
    await new Promise((r) => helper.startServer(r));
  };
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const load = (def) => helper.load(nodes, flowWith(def, { url: fake.url }));
  const run = async (msg) => {
    const got = nextMessage('out');
    helper.getNode('n1').receive(msg);
    return got;
  };
  const fail = async (msg) => {
    const got = nextMessage('caught');
    helper.getNode('n1').receive(msg);
    return got;
  };

  describe('mindsdb-project', function () {
    beforeEach(() => start());

    it('creates a project with CREATE PROJECT (quoted, capitals kept), lists, gets and deletes it', async () => {
      await load(PROJECT);
      const created = await run({ operation: 'create', name: 'Sales' });
      assert.deepEqual(created.payload, { created: true, resource: 'project', name: 'Sales' });
      assert.equal(sqlSent(fake).at(-1), 'CREATE PROJECT `Sales`');
      const list = await run({ operation: 'list' });
      assert.deepEqual(list.payload.map((p) => p.name).sort(), ['Sales', 'mindsdb']);
      assert.equal(fake.requests.at(-1).path, '/api/databases/');
      assert.equal((await run({ operation: 'get', name: 'Sales' })).payload.name, 'Sales');
      // another case finds the stored spelling; DROP PROJECT gets that spelling (MindsDB compares it exactly)
      const deleted = await run({ operation: 'delete', name: 'sales' });
      assert.deepEqual(deleted.payload, { deleted: true, resource: 'project', name: 'Sales' });
      assert.equal(sqlSent(fake).at(-1), 'DROP PROJECT `Sales`');
      assert.deepEqual(deleted.mindsdb, { resource: 'project', operation: 'delete', name: 'Sales' });
      assert.equal(fake.state.projects.has('Sales'), false);
    });

    it('node fields win over msg', async () => {
      await load({ ...PROJECT, operation: 'create', itemName: 'from_node' });
      await run({ operation: 'delete', name: 'from_msg' });
      assert.equal(sqlSent(fake).at(-1), 'CREATE PROJECT `from_node`');
    });

    it('never drops a data source of that name (DROP PROJECT would): refused before any SQL', async () => {
      fake.state.databases.set('shop_pg', { name: 'shop_pg', type: 'data', engine: 'postgres', connection_data: {} });
      await load(PROJECT);
      for (const name of ['shop_pg', 'SHOP_PG']) {
        const m = await fail({ operation: 'delete', name });
        assert.match(m.error.message, /"shop_pg" is a data source \(engine postgres\), not a project/);
        assert.equal(m.mindsdbError.kind, 'input');
      }
      assert.equal(fake.requestsTo('/sql/query').length, 0);
      assert.ok(fake.state.databases.has('shop_pg'));
      assert.match((await fail({ operation: 'get', name: 'shop_pg' })).error.message, /is a data source/);
    });

    it("a project that still holds views says so, with MindsDB's list", async () => {
      fake.state.projects.add('busy');
      fake.state.views.set('busy/v1', { id: 1, name: 'v1', query: 'SELECT 1', project: 'busy' });
      await load(PROJECT);
      const m = await fail({ operation: 'delete', name: 'busy' });
      assert.match(
        m.error.message,
        /project "busy" still holds models, views, agents or other tables.*delete them first.*contains tables: v1/,
      );
      assert.ok(fake.state.projects.has('busy'));
    });

    for (const [what, msg, pattern, sent] of [
      [
        'a duplicate project',
        { operation: 'create', name: 'mindsdb' },
        /a project or data source named "mindsdb" already exists/,
        true,
      ],
      ['deleting a missing project', { operation: 'delete', name: 'ghost' }, /project "ghost" does not exist/, true],
      // MindsDB answers OK to CREATE PROJECT of a system database's name and makes a second database of that name
      // (issue 32)
      [
        "a system database's name",
        { operation: 'create', name: 'log' },
        /"log" is the name of MindsDB's system database log: MindsDB would make a project beside it/,
        true,
      ],
      ['getting a missing project (404)', { operation: 'get', name: 'ghost' }, /404/, true],
      ['no name', { operation: 'create' }, /no project name/, false],
      ['a name that is not text', { operation: 'get', name: { a: 1 } }, /msg.name must be a string/, false],
      ['a name with a backtick', { operation: 'create', name: 'a`b' }, /cannot take in a name/, false],
      ['a bad operation', { operation: 'update', name: 'x' }, /must be one of list, get, create, delete/, false],
      ['a bad timeout', { operation: 'list', timeout: -1 }, /msg.timeout/, false],
    ]) {
      it(`sends ${what} to Catch with the msg`, async () => {
        await load(PROJECT);
        const m = await fail({ ...msg, marker: 7 });
        assert.equal(m.marker, 7);
        assert.match(m.error.message, pattern);
        assert.equal(fake.requestsTo('/sql/query').length > 0 || fake.requests.length > 0, sent);
        if (msg.name === 'log') assert.equal(fake.requestsTo('/sql/query').length, 0, 'no CREATE PROJECT was sent');
      });
    }
  });

  describe('mindsdb-view', function () {
    beforeEach(() => start());

    it('creates, lists, gets, updates and deletes a view', async () => {
      await load(VIEW);
      const created = await run({ operation: 'create', name: 'recent', query: 'SELECT 1 AS a' });
      assert.deepEqual(fake.requests.at(-1).body, { view: { query: 'SELECT 1 AS a', name: 'recent' } });
      assert.equal(fake.requests.at(-1).path, '/api/projects/mindsdb/views');
      assert.equal(created.payload.name, 'recent');
      assert.deepEqual(created.mindsdb, { resource: 'view', operation: 'create', project: 'mindsdb', name: 'recent' });
      assert.deepEqual(
        (await run({ operation: 'list' })).payload.map((v) => v.name),
        ['recent'],
      );
      assert.equal((await run({ operation: 'get', name: 'recent' })).payload.query, 'SELECT 1 AS a');
      const updated = await run({ operation: 'update', name: 'recent', payload: 'SELECT 2 AS a' });
      assert.equal(updated.payload.query, 'SELECT 2 AS a');
      const put = fake.requests.filter((r) => r.method === 'PUT').at(-1);
      assert.deepEqual(put.body, { view: { query: 'SELECT 2 AS a' } });
      // then the view is read once, as MindsDB's create checks a view's query
      assert.equal(fake.requests.at(-1).body.query, 'SELECT * FROM `mindsdb`.`recent` LIMIT 1');
      assert.deepEqual((await run({ operation: 'delete', name: 'recent' })).payload, {
        deleted: true,
        resource: 'view',
        project: 'mindsdb',
        name: 'recent',
      });
      assert.equal(fake.state.views.size, 0);
    });

    it("update of a missing view is the server's 404 and creates nothing (MindsDB's PUT would)", async () => {
      await load(VIEW);
      const m = await fail({ operation: 'update', name: 'ghost', query: 'SELECT 1' });
      assert.match(m.error.message, /404.*View not found/);
      assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 0);
      assert.equal(fake.state.views.size, 0);
    });

    it('update goes to the name as stored when given in another case', async () => {
      fake.state.views.set('mindsdb/Recent', { id: 1, name: 'Recent', query: 'SELECT 1', project: 'mindsdb' });
      await load({ ...VIEW, operation: 'update', itemName: 'RECENT', query: 'SELECT 3 AS a' });
      await run({});
      assert.equal(fake.requests.filter((r) => r.method === 'PUT').at(-1).path, '/api/projects/mindsdb/views/Recent');
    });

    it('an update whose query fails when the view is read puts the old query back (MindsDB takes any query on update; issue 32)', async () => {
      fake.state.views.set('mindsdb/recent', { id: 1, name: 'recent', query: 'SELECT 1 AS a', project: 'mindsdb' });
      await load(VIEW);
      const m = await fail({ operation: 'update', name: 'recent', query: 'SELEC nonsense' });
      assert.match(
        m.error.message,
        /the new query of view mindsdb\.recent fails when the view is read .*so the node put the old query back: the view is as it was/,
      );
      assert.equal(fake.state.views.get('mindsdb/recent').query, 'SELECT 1 AS a');
      assert.deepEqual(
        fake.requests.filter((r) => r.method === 'PUT').map((r) => r.body.view.query),
        ['SELEC nonsense', 'SELECT 1 AS a'],
      );
      assert.deepEqual(
        [m.mindsdb.resource, m.mindsdb.operation, m.mindsdb.name, m.mindsdb.leftover],
        ['view', 'update', 'recent', undefined],
      );
    });

    it('queries a view whole, as the sql node sends rows', async () => {
      fake.state.views.set('mindsdb/v', { id: 1, name: 'v', query: 'SELECT 1', project: 'mindsdb' });
      await load({ ...VIEW, operation: 'query', itemName: 'v' });
      const m = await run({ keep: 1 });
      assert.deepEqual(m.payload, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }]);
      assert.equal(m.mindsdb.type, 'table');
      assert.deepEqual(m.mindsdb.columns, ['n']);
      assert.equal(m.keep, 1);
      assert.equal(sqlSent(fake).at(-1), 'SELECT * FROM `mindsdb`.`v`');
    });

    it('queries a view in another case: finds the stored spelling after the SQL miss', async () => {
      fake.state.views.set('mindsdb/Daily', { id: 1, name: 'Daily', query: 'SELECT 1', project: 'mindsdb' });
      await load({ ...VIEW, operation: 'query', itemName: 'daily', rowFormat: 'arrays' });
      const m = await run({});
      assert.deepEqual(m.payload, [[1], [2], [3], [4], [5]]);
      assert.equal(sqlSent(fake).at(-1), 'SELECT * FROM `mindsdb`.`Daily`');
    });

    it('queries a view split into a Join-compatible sequence', async () => {
      fake.state.views.set('mindsdb/v', { id: 1, name: 'v', query: 'SELECT 1', project: 'mindsdb' });
      await load({ ...VIEW, operation: 'query', itemName: 'v', split: true, rowsPerMsg: 2 });
      const got = collect('out', 3);
      helper.getNode('n1').receive({});
      const parts = await got;
      assert.deepEqual(
        parts.map((p) => p.payload),
        [[{ n: 1 }, { n: 2 }], [{ n: 3 }, { n: 4 }], [{ n: 5 }]],
      );
      assert.deepEqual(
        parts.map((p) => p.parts.index),
        [0, 1, 2],
      );
      assert.equal(parts[2].parts.count, 3);
      assert.equal(parts[2].complete, true);
      assert.equal(new Set(parts.map((p) => p.parts.id)).size, 1);
    });

    it('with flow control, sends the next part only after a msg.tick', async () => {
      fake.state.views.set('mindsdb/v', { id: 1, name: 'v', query: 'SELECT 1', project: 'mindsdb' });
      await load({
        ...VIEW,
        operation: 'query',
        itemName: 'v',
        split: true,
        rowsPerMsg: 2,
        flowControl: true,
        partsAhead: 1,
      });
      const n1 = helper.getNode('n1');
      const out = helper.getNode('out');
      const seen = [];
      out.on('input', (m) => seen.push(m));
      const first = nextMessage('out');
      n1.receive({});
      const p0 = await first;
      assert.equal(p0.parts.index, 0);
      // no tick yet: the second part must not come; ask for it and it does
      const second = nextMessage('out');
      await holdsFor(() => seen.length === 1, { forMs: 100, what: 'no second part before a tick' });
      n1.receive({ tick: true, parts: p0.parts });
      assert.equal((await second).parts.index, 1);
      const third = nextMessage('out');
      n1.receive({ tick: true });
      const last = await third;
      assert.equal(last.complete, true);
    });

    it('refuses a msg.tick when flow control is off', async () => {
      await load({ ...VIEW, operation: 'query', itemName: 'v' });
      const m = await fail({ tick: true });
      assert.match(m.error.message, /msg.tick came to a view node whose flow control/);
      assert.equal(fake.requests.length, 0);
    });

    for (const [what, def, msg, pattern, sent] of [
      [
        'a duplicate view (409 explained)',
        {},
        { operation: 'create', name: 'dup', query: 'SELECT 1', twice: true },
        /view "dup" already exists in project "mindsdb": update it, or delete it first/,
        true,
      ],
      ['a query MindsDB cannot parse', {}, { operation: 'create', name: 'bad', query: 'SELEC nonsense' }, /500/, true],
      ['no query for create', { operation: 'create' }, { name: 'x' }, /no view query/, false],
      [
        'a query that is not text',
        { operation: 'create' },
        { name: 'x', query: 5 },
        /msg.query must be the view's SELECT/,
        false,
      ],
      ['no name', { operation: 'get' }, {}, /no view name/, false],
      ['a missing view (404)', {}, { operation: 'get', name: 'ghost' }, /404/, true],
      ['deleting a missing view (404)', {}, { operation: 'delete', name: 'ghost' }, /404/, true],
      ['querying a missing view (SQL error)', { operation: 'query' }, { name: 'ghost' }, /ghost/, true],
      ['an unknown project (404)', {}, { operation: 'list', project: 'nope' }, /404.*Project not found/, true],
      [
        'a view in a project with capitals (MindsDB cannot store it)',
        { project: 'Sales' },
        { operation: 'create', name: 'v', query: 'SELECT 1', setup: 'Sales' },
        /MindsDB cannot keep views in project "Sales".*lower-case name.*Can not find project: Sales/,
        true,
      ],
      [
        'a bad operation',
        {},
        { operation: 'history', name: 'x' },
        /must be one of list, get, create, update, delete, query/,
        false,
      ],
    ]) {
      it(`sends ${what} to Catch with the msg`, async () => {
        await load({ ...VIEW, project: '', ...def });
        if (msg.setup) fake.state.projects.add(msg.setup);
        if (msg.twice) await run({ ...msg });
        const before = fake.requests.length;
        const m = await fail({ ...msg, marker: 9 });
        assert.equal(m.marker, 9);
        assert.match(m.error.message, pattern);
        assert.equal(fake.requests.length > before, sent, sent ? 'asked the server' : 'nothing sent');
      });
    }
  });

  describe('mindsdb-view on a server without the views routes', function () {
    beforeEach(() => start({ views: false, version: '25.1.0' }));

    it("names the server's version", async () => {
      await load(VIEW);
      const m = await fail({ operation: 'list' });
      assert.match(m.error.message, /MindsDB 25\.1\.0 has no REST route for this view operation/);
      assert.equal(m.mindsdbError.kind, 'unsupported');
    });
  });
});

describe('examples/projects.json and examples/views.json against the fake MindsDB', function () {
  const fs = require('node:fs');
  const path = require('node:path');
  const { coreNode } = require('../support/nr');
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

  /**
   * The example as shipped, its server pointed at the fake, its debug nodes turned into test helpers, its injects left
   * out (the test sends instead).
   */
  async function loadExample(file) {
    const flow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', file), 'utf8'))
      .filter((n) => n.type !== 'inject' && n.type !== 'comment')
      .map((n) =>
        n.type === 'mindsdb-server'
          ? { ...n, url: fake.url }
          : n.type === 'debug'
            ? { id: n.id, z: n.z, type: 'helper' }
            : n,
      );
    await helper.load([...nodes, coreNode('sequence/17-split.js')], flow);
  }
  const through = async (id, out, msg = {}) => {
    const got = nextMessage(out);
    helper.getNode(id).receive(msg);
    return got;
  };

  it('projects: create, list, get, delete', async () => {
    await loadExample('projects.json');
    assert.equal((await through('project-create', 'project-debug-create')).payload.name, 'demo_project');
    assert.ok((await through('project-list', 'project-debug-list')).payload.some((p) => p.name === 'demo_project'));
    assert.equal((await through('project-get', 'project-debug-get')).payload.name, 'demo_project');
    assert.equal((await through('project-delete', 'project-debug-delete')).payload.deleted, true);
  });

  it('views: create, query whole and in parts (joined), update, list, delete', async () => {
    await loadExample('views.json');
    assert.equal((await through('view-create', 'view-debug-create')).payload.name, 'demo_warm_readings');
    assert.equal((await through('view-query', 'view-debug-query')).payload.length, 5);
    assert.deepEqual(
      (await through('view-query-parts', 'view-debug-query-parts')).payload.map((r) => r.n),
      [1, 2, 3, 4, 5],
    );
    assert.match((await through('view-update', 'view-debug-update')).payload.query, /temperature > 25/);
    assert.deepEqual(
      (await through('view-list', 'view-debug-list')).payload.map((v) => v.name),
      ['demo_warm_readings'],
    );
    assert.equal((await through('view-delete', 'view-debug-delete')).payload.deleted, true);
  });
});
