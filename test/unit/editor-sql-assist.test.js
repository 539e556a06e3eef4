'use strict';
/**
 * The editor's SQL completion and drop rules (src/editor/sql-assist/suggestions.ts,
 * src/editor/sidebar/drop.ts), bundled here by esbuild as the build bundles them and run against a
 * stand-in for the one editor endpoint they ask (POST mindsdb/tree): what the text before the
 * cursor is qualifying, which tables a statement names, what each level offers, and which node
 * a dropped item makes.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { buildSync } = require('esbuild');

const root = path.resolve(__dirname, '..', '..');

/** A module of src/editor/ as CommonJS, with `globals` (RED, $) in its scope. */
function load(entry, globals) {
  const { outputFiles } = buildSync({
    entryPoints: [path.join(root, 'src', 'editor', entry)],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'neutral',
    target: 'es2020',
  });
  const module = { exports: {} };
  new Function('module', 'exports', ...Object.keys(globals), outputFiles[0].text)(
    module,
    module.exports,
    ...Object.values(globals),
  );
  return module.exports;
}

/** The tree a stand-in runtime answers: one data source with a schema, one project. */
const TREE = {
  '': [
    { name: 'mindsdb', kind: 'project' },
    { name: 'sensors_pg', kind: 'datasource', engine: 'postgres' },
    // Two data sources whose names differ only in case (one made with backticks).
    { name: 'Sales', kind: 'datasource', engine: 'postgres' },
    { name: 'sales', kind: 'datasource', engine: 'postgres' },
  ],
  'datasource/Sales': [{ name: 'q1', kind: 'table' }],
  'datasource/sales': [{ name: 'q2', kind: 'table' }],
  'datasource/sensors_pg': [
    {
      name: 'public',
      kind: 'schema',
      children: [
        { name: 'sensor_readings', kind: 'table' },
        { name: 'Alerts', kind: 'table' },
      ],
    },
  ],
  'project/mindsdb': [
    { name: 'sensor_energy', kind: 'model' },
    { name: 'docs', kind: 'knowledge_base' },
  ],
  'columns/sensors_pg/sensor_readings': [
    { name: 'temperature', kind: 'column', type: 'double' },
    { name: 'humidity', kind: 'column', type: 'double' },
  ],
  'columns/sensors_pg/Alerts': [
    { name: 'raised_at', kind: 'column' },
    { name: 'end', kind: 'column' },
    { name: 'Level', kind: 'column' },
    { name: '1st try', kind: 'column' },
  ],
};

function editorGlobals(asked) {
  const $ = {
    ajax(opts) {
      const body = JSON.parse(opts.data);
      asked.push(body);
      const key = [body.kind, body.database, body.table].filter(Boolean).join('/');
      const answer = key in TREE ? { ok: true, items: TREE[key] } : { ok: false, error: `no ${key}` };
      return {
        done(cb) {
          queueMicrotask(() => cb(answer));
          return this;
        },
        fail() {
          return this;
        },
      }; // answered later, as $.ajax does
    },
  };
  const RED = { _: (key) => key, nodes: { node: () => undefined, getType: () => undefined } };
  return { $, RED };
}

describe("the editor's SQL completion", () => {
  let assist;
  let asked;
  beforeEach(() => {
    asked = [];
    assist = load('sql-assist/suggestions.ts', editorGlobals(asked));
  });
  const labels = (list) => list.map((s) => s.label);

  it('reads what the text before the cursor qualifies', () => {
    assert.deepEqual(assist.qualifierOf('SELECT * FROM sensors_pg.'), ['sensors_pg']);
    assert.deepEqual(assist.qualifierOf('SELECT * FROM sensors_pg.sen'), ['sensors_pg']);
    assert.deepEqual(assist.qualifierOf('SELECT sensors_pg.public.sensor_readings.te'), [
      'sensors_pg',
      'public',
      'sensor_readings',
    ]);
    assert.deepEqual(assist.qualifierOf('SELECT `My DB`.`t`.'), ['My DB', 't']);
    assert.deepEqual(assist.qualifierOf('SELECT temp'), []);
  });

  it('finds the tables a statement names after FROM and JOIN, quoted or not, with or without a schema', () => {
    assert.deepEqual(
      assist.tablesNamed('SELECT * FROM `sensors_pg`.`public`.`sensor_readings` r JOIN mindsdb.sensor_energy m'),
      [
        ['sensors_pg', 'sensor_readings'],
        ['mindsdb', 'sensor_energy'],
      ],
    );
  });

  it("inserts a name plain only where MindsDB's lexer reads it back so: capitals, spaces, a digit first and keywords in backticks", async () => {
    assert.deepEqual(
      (await assist.sqlSuggestions('srv', '', 'SELECT sensors_pg.Alerts.')).map((s) => s.insert),
      ['raised_at', '`end`', '`Level`', '`1st try`'],
    );
  });

  it('finds the data source a statement names as typed, else its one spelling in another case, never a guess', async () => {
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM Sensors_PG.')), [
      'sensor_readings',
      'Alerts',
    ]);
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM sales.')), ['q2']);
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM Sales.')), ['q1']);
    assert.deepEqual(
      labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM SALES.')),
      [],
      'two data sources differ from it only in case',
    );
  });

  it("offers a data source's tables after `db.`, a project's models and knowledge bases, and a table's columns after `db.table.`", async () => {
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM sensors_pg.')), [
      'sensor_readings',
      'Alerts',
    ]);
    assert.deepEqual(
      (await assist.sqlSuggestions('srv', '', 'SELECT * FROM sensors_pg.')).map((s) => s.insert),
      ['sensor_readings', '`Alerts`'],
    );
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM mindsdb.')), [
      'sensor_energy',
      'docs',
    ]);
    assert.deepEqual(labels(await assist.sqlSuggestions('srv', '', 'SELECT sensors_pg.sensor_readings.')), [
      'temperature',
      'humidity',
    ]);
    assert.deepEqual(
      labels(await assist.sqlSuggestions('srv', '', 'SELECT * FROM sensors_pg.public.')),
      ['sensor_readings', 'Alerts'],
      "a schema's tables",
    );
  });

  it("offers the named tables' columns first, then the data sources and projects, then MindsDB's keywords", async () => {
    const found = await assist.sqlSuggestions('srv', 'SELECT te FROM sensors_pg.sensor_readings', 'SELECT te');
    assert.deepEqual(labels(found).slice(0, 4), ['temperature', 'humidity', 'mindsdb', 'sensors_pg']);
    assert.ok(found.some((s) => s.kind === 'keyword' && s.label === 'SELECT'));
    assert.equal(found.find((s) => s.label === 'temperature').detail, 'double');
  });

  it('asks each level once, and offers only keywords without a server or when the runtime fails', async () => {
    await assist.sqlSuggestions('srv', '', 'SELECT * FROM sensors_pg.');
    await assist.sqlSuggestions('srv', '', 'SELECT * FROM sensors_pg.s');
    assert.equal(asked.filter((b) => b.kind === 'datasource').length, 1);
    assert.ok((await assist.sqlSuggestions('', '', 'SELECT ')).every((s) => s.kind === 'keyword'));
    assert.deepEqual(await assist.sqlSuggestions('srv', '', 'SELECT * FROM nowhere.t.'), []);
  });
});

describe("the sidebar's drop: the node a dragged item makes", () => {
  const { nodeFor } = load('sidebar/drop.ts', editorGlobals([]));
  const item = (kind, name, extra = {}) => ({
    server: 'srv',
    home: kind === 'table' ? 'sensors_pg' : 'mindsdb',
    item: { kind, name, ...extra },
  });

  it('makes a sql node from a table, or with the modifier a table node that inserts into it', () => {
    assert.deepEqual(
      nodeFor(
        item('table', 'sensor_readings', {
          schema: 'public',
          select: 'SELECT * FROM `sensors_pg`.`public`.`sensor_readings` LIMIT 100',
        }),
        false,
      ),
      {
        type: 'mindsdb-sql',
        props: {
          query: 'SELECT * FROM `sensors_pg`.`public`.`sensor_readings` LIMIT 100',
          database: '',
          databaseType: 'str',
        },
      },
    );
    assert.deepEqual(nodeFor(item('table', 'sensor_readings', { schema: 'public' }), true), {
      type: 'mindsdb-table',
      props: {
        operation: 'insert',
        database: 'sensors_pg',
        databaseType: 'str',
        table: 'sensor_readings',
        tableType: 'str',
      },
    });
  });

  it('makes a predict, view, knowledge base, job and agent node configured on the item', () => {
    assert.deepEqual(nodeFor(item('model', 'm'), false), {
      type: 'mindsdb-predict',
      props: { project: 'mindsdb', projectType: 'str', model: 'm', modelType: 'str' },
    });
    for (const [kind, type, operation] of [
      ['view', 'mindsdb-view', 'query'],
      ['knowledge_base', 'mindsdb-knowledge-base', 'search'],
      ['job', 'mindsdb-job', 'history'],
      ['agent', 'mindsdb-agent', 'completions'],
    ]) {
      assert.deepEqual(
        nodeFor(item(kind, 'x'), false),
        { type, props: { operation, project: 'mindsdb', projectType: 'str', itemName: 'x', itemNameType: 'str' } },
        kind,
      );
    }
    assert.equal(nodeFor(item('column', 'c'), false), undefined);
  });
});
