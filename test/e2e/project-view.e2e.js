'use strict';
/**
 * End-to-end for the project and view nodes against a real MindsDB (25.14.1 and 26.1.0): a
 * project created and dropped through the project node (with a data source of its own that the
 * node must refuse to drop), and a view in it created, queried whole and split, updated and
 * dropped through the view node. Every name carries this run's prefix and is dropped at the end.
 */
const assert = require('node:assert/strict');
const { fails, ok, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run_id = `pv${Date.now().toString(36)}`;
const all = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-project', 'mindsdb-view'].map(node).concat([catchNode]);
const projectDef = { type: 'mindsdb-project', operation: 'msg', itemName: '', itemNameType: 'str' };
const viewDef = {
  type: 'mindsdb-view',
  operation: 'msg',
  project: '',
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

async function load(def, second) {
  const flow = flowWith(def, { url: URL_, timeout: 120000 });
  if (second)
    flow.push({
      id: 'n2',
      z: 'f1',
      server: 'srv',
      wires: [['out']],
      name: '',
      outputProperty: 'payload',
      version: 1,
      ...second,
    });
  await helper.load(all, flow);
}

/** Straight to the server, for setup and clean-up that is not under test. */
async function sql(query) {
  const res = await fetch(`${URL_}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

describe('e2e: project and view nodes against a real MindsDB', function () {
  // Views need a project with a lower-case name (MindsDB looks a view's project up lower-cased).
  const project = `${run_id}_proj`;
  const capitals = `${run_id}_Cap`;
  const source = `${run_id}_pg`;
  const view = `${run_id}_v`;
  let version = '';

  before(async function () {
    version = await realMindsDB(URL_);
    console.log(`    MindsDB ${version} at ${URL_}`);
  });
  eachCaseInNodeRed();
  after(async () => {
    // whatever a failed case left behind
    await fetch(`${URL_}/api/projects/${project}/views/${view}`, { method: 'DELETE' }).catch(() => undefined);
    await sql(`DROP PROJECT \`${project}\``).catch(() => undefined);
    await sql(`DROP PROJECT \`${capitals}\``).catch(() => undefined);
    await sql(`DROP DATABASE \`${source}\``).catch(() => undefined);
  });

  it('creates a project (capitals kept), lists, gets and drops it by another case', async () => {
    await load(projectDef, viewDef);
    assert.deepEqual((await ok({ operation: 'create', name: capitals })).payload, {
      created: true,
      resource: 'project',
      name: capitals,
    });
    assert.ok(
      (await ok({ operation: 'list' })).payload.some((p) => p.name === capitals),
      'listed as stored',
    );
    assert.equal((await ok({ operation: 'get', name: capitals.toLowerCase() })).payload.name, capitals);
    assert.match((await fails({ operation: 'create', name: capitals })).error.message, /already exists/);
    // MindsDB cannot store a view there; the node says why
    assert.match(
      (await fails({ operation: 'create', project: capitals, name: 'v', query: 'SELECT 1' }, 'n2')).error.message,
      /MindsDB cannot keep views in project .*lower-case name/,
    );
    assert.deepEqual((await ok({ operation: 'delete', name: capitals.toLowerCase() })).payload, {
      deleted: true,
      resource: 'project',
      name: capitals,
    });
  });

  it('creates the project for the views', async () => {
    await load(projectDef);
    assert.deepEqual((await ok({ operation: 'create', name: project })).payload, {
      created: true,
      resource: 'project',
      name: project,
    });
  });

  it('refuses to drop a data source through the project node', async () => {
    const made = await sql(
      `CREATE DATABASE \`${source}\` WITH ENGINE = 'postgres', PARAMETERS = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "password": "", "database": "test"}`,
    );
    assert.equal(made.type, 'ok', JSON.stringify(made));
    await load(projectDef);
    const m = await fails({ operation: 'delete', name: source });
    assert.match(m.error.message, /is a data source \(engine postgres\), not a project/);
    const still = await (await fetch(`${URL_}/api/databases/${source}`)).json();
    assert.equal(still.name, source, 'the data source is still there');
    await sql(`DROP DATABASE \`${source}\``);
  });

  it('creates a view, queries it whole and split, updates it', async () => {
    await load(viewDef);
    const created = await ok({
      operation: 'create',
      project,
      name: view,
      query: 'SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3',
    });
    assert.equal(created.payload.name, view);
    assert.ok((await ok({ operation: 'list', project })).payload.some((v) => v.name === view));
    assert.match((await ok({ operation: 'get', project, name: view })).payload.query, /SELECT 1 AS n/);
    const whole = await ok({ operation: 'query', project, name: view });
    assert.deepEqual(whole.payload.map((r) => r.n).sort(), [1, 2, 3]);
    assert.deepEqual(whole.mindsdb.columns, ['n']);
    assert.match(
      (await fails({ operation: 'create', project, name: view, query: 'SELECT 1' })).error.message,
      /already exists/,
    );

    await helper.unload();
    await load({ ...viewDef, operation: 'query', split: true, rowsPerMsg: 2 });
    const parts = [];
    await new Promise((resolve, reject) => {
      helper.getNode('caught').on('input', (m) => reject(m.error));
      helper.getNode('out').on('input', (m) => {
        parts.push(m);
        if (m.complete) resolve();
      });
      helper.getNode('n1').receive({ project, name: view });
    });
    assert.deepEqual(
      parts.map((p) => p.payload.length),
      [2, 1],
    );
    assert.equal(parts[1].parts.count, 2);

    await helper.unload();
    await load(viewDef);
    const updated = await ok({ operation: 'update', project, name: view.toUpperCase(), payload: 'SELECT 7 AS n' });
    assert.equal(updated.payload.query, 'SELECT 7 AS n');
    assert.deepEqual((await ok({ operation: 'query', project, name: view })).payload, [{ n: 7 }]);
    assert.match(
      (await fails({ operation: 'update', project, name: `${view}_missing`, query: 'SELECT 1' })).error.message,
      /404/,
    );
  });

  it('refuses to drop a project that holds a view, then drops view and project', async () => {
    await load(projectDef, viewDef);
    const refused = await fails({ operation: 'delete', name: project });
    assert.match(refused.error.message, /still holds models, views, agents or other tables.*delete them first/);
    assert.deepEqual((await ok({ operation: 'delete', project, name: view }, 'n2')).payload, {
      deleted: true,
      resource: 'view',
      project,
      name: view,
    });
    assert.deepEqual((await ok({ operation: 'delete', name: project })).payload, {
      deleted: true,
      resource: 'project',
      name: project,
    });
    assert.ok(!(await ok({ operation: 'list' })).payload.some((p) => p.name === project));
  });
});
