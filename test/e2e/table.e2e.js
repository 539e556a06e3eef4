'use strict';
/**
 * End-to-end for the table node against a real MindsDB (25.14.1 or 26.1.0, MINDSDB_URL) with a
 * PostgreSQL data source (127.0.0.1:5432, database `test`, made here under a name of this run's
 * own): rows go into PostgreSQL through MindsDB and are read back through the sql node; a table is
 * made from a SELECT and dropped; a batch with a bad row stores the good rows once; and the
 * speed of batched against single-row inserts is measured and printed.
 *
 * TABLE_BENCH_N (default 10,000) single-row messages go through the batched node; the unbatched
 * node gets TABLE_BENCH_SINGLE of them (default 2,000: one INSERT each costs the shared server
 * about 50 ms, so the full 10,000 take minutes); both rates are messages per second.
 */
const assert = require('node:assert/strict');
const { fails, ok, realMindsDB, eachCaseInNodeRed, serverAt } = require('./outcomes');
const fs = require('node:fs');
const path = require('node:path');
const { helper, node, catchNode, changeNode, flowWith, collect, nextMessage } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run = `tbl${Date.now().toString(36).slice(-6)}`;
const DS = `${run}_pg`;
const T = `${run}_readings`;
const BENCH_N = Number(process.env.TABLE_BENCH_N || 10000);
const BENCH_SINGLE = Number(process.env.TABLE_BENCH_SINGLE || 2000);
const all = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-table', 'mindsdb-database', 'mindsdb-predict']
  .map(node)
  .concat([catchNode, changeNode]);

const { api, sql } = serverAt(URL_);

const tableDef = {
  type: 'mindsdb-table',
  operation: 'msg',
  database: DS,
  databaseType: 'str',
  table: '',
  tableType: 'str',
  select: '',
  replace: false,
  batch: false,
  batchSize: 100,
  batchWindow: 50,
};
const sqlDef = {
  type: 'mindsdb-sql',
  query: '',
  database: '',
  databaseType: 'str',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 100,
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
const readBack = async (query) => (await ok({ query }, 'n2')).payload;

describe('e2e: the table node against a real MindsDB and PostgreSQL', function () {
  this.timeout(900000);
  let version = '';
  const made = new Set();

  before(async function () {
    version = await realMindsDB(URL_);
    console.log(`    MindsDB ${version} at ${URL_}, data source ${DS}`);
    const created = await api('POST', '/databases/', {
      database: {
        name: DS,
        engine: 'postgres',
        parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => {
    for (const t of made) await api('DELETE', `/databases/${DS}/tables/${t}`);
    await api('DELETE', `/databases/${DS}`);
  });
  eachCaseInNodeRed();

  it('creates a table from a SELECT; lists it; a second create is a conflict', async () => {
    await load(tableDef);
    made.add(T);
    const m = await ok({
      operation: 'create',
      table: T,
      payload: "SELECT 1 AS id, 's0' AS sensor, 1.5 AS temperature, 'first' AS note",
    });
    assert.deepEqual(m.payload, { name: T, type: 'data', database: DS });
    const list = await ok({ operation: 'list' });
    assert.ok(
      list.payload.some((t) => t.name === T),
      JSON.stringify(list.payload),
    );
    assert.match(
      (await fails({ operation: 'create', table: T, payload: 'SELECT 1 AS id' })).error.message,
      /409.*already exists/,
    );
  });

  it('inserts rows with hostile text into PostgreSQL; the sql node reads back exactly what was sent', async () => {
    await load({ ...tableDef, operation: 'insert', table: T }, sqlDef);
    const notes = [
      "it's",
      '"quoted"',
      'C:\\data\\',
      "a\\'b",
      "x'); DROP TABLE t; --",
      'line\nbreak',
      ':p1 ?',
      'Ωμέγα 温度 🌡️',
    ];
    const m = await ok({
      payload: notes.map((note, i) => ({ id: 10 + i, sensor: `s${i}`, temperature: -i - 0.25, note })),
    });
    assert.deepEqual(m.payload, { inserted: notes.length, database: DS, table: T });
    const back = await readBack(`SELECT id, temperature, note FROM ${DS}.${T} WHERE id >= 10 ORDER BY id`);
    assert.deepEqual(
      back.map((r) => r.note),
      notes,
    );
    assert.deepEqual(
      back.map((r) => r.temperature),
      notes.map((_, i) => -i - 0.25),
    );
    // one row object, with a column left out (NULL) and the name of the table written with capitals
    await helper.unload();
    await load({ ...tableDef, operation: 'insert', table: T.toUpperCase() }, sqlDef);
    assert.deepEqual((await ok({ payload: { id: 30, sensor: 'caps' } })).payload, {
      inserted: 1,
      database: DS,
      table: T,
    });
    assert.deepEqual(await readBack(`SELECT sensor, note FROM ${DS}.${T} WHERE id = 30`), [
      { sensor: 'caps', note: null },
    ]);
  });

  it("MindsDB stores none of a statement's rows when it refuses one; batched, the good messages are stored once", async () => {
    // the measurement the isolation rests on: one good and one bad row in one statement
    const refused = await sql(`INSERT INTO ${DS}.${T} (id, note) VALUES (40, 'good'), ('forty', 'bad')`);
    assert.equal(refused.body.type, 'error', JSON.stringify(refused.body));
    assert.deepEqual((await sql(`SELECT id FROM ${DS}.${T} WHERE id = 40`)).body.data, []);
    // and why the node writes column names unquoted: MindsDB keeps the backticks of a quoted one
    const quoted = await sql(`INSERT INTO ${DS}.${T} (\`id\`) VALUES (41)`);
    assert.match(String(quoted.body.error_message), /column "`id`"/);

    await load({ ...tableDef, operation: 'insert', table: T, batch: true, batchSize: 10, batchWindow: 200 }, sqlDef);
    const out = collect('out', 9, 60000);
    const caught = new Promise((resolve) => helper.getNode('caught').once('input', resolve));
    for (let i = 0; i < 10; i++)
      helper.getNode('n1').receive({ i, payload: { id: i === 6 ? 'six' : 50 + i, note: `batch ${i}` } });
    const [good, bad] = await Promise.all([out, caught]);
    assert.deepEqual(
      good.map((m) => m.i),
      [0, 1, 2, 3, 4, 5, 7, 8, 9],
    );
    assert.equal(bad.i, 6);
    assert.match(bad.error.message, /invalid input syntax for type integer/);
    assert.equal(bad.mindsdb.stored, false);
    const back = await readBack(`SELECT id FROM ${DS}.${T} WHERE id >= 50 AND id < 60 ORDER BY id`);
    assert.deepEqual(
      back.map((r) => r.id),
      [50, 51, 52, 53, 54, 55, 57, 58, 59],
    );
  });

  it(`measures ${BENCH_N.toLocaleString('en')} single-row messages, batched against one INSERT each`, async () => {
    const bench = `${run}_bench`;
    made.add(bench);
    assert.equal(
      (
        await api('POST', `/databases/${DS}/tables`, {
          table: { name: bench, select: "SELECT 0 AS id, 's' AS sensor, 0.5 AS temperature" },
        })
      ).status,
      201,
    );
    const measure = async (batch, n, offset) => {
      // A queue that holds the whole burst (the server node's default refuses beyond 1,000 waiting).
      await helper.load(
        all,
        flowWith(
          { ...tableDef, operation: 'insert', table: bench, batch, batchSize: 100, batchWindow: 20 },
          { url: URL_, timeout: 600000, maxQueue: n + 100 },
        ),
      );
      const errors = [];
      let ended = 0;
      const all_ = new Promise((resolve) => {
        const end = () => {
          if (++ended === n) resolve();
        };
        helper.getNode('out').on('input', end);
        helper.getNode('caught').on('input', (m) => {
          errors.push(m.error.message);
          end();
        });
      });
      const started = process.hrtime.bigint();
      for (let i = 0; i < n; i++)
        helper.getNode('n1').receive({ payload: { id: offset + i, sensor: 's', temperature: i / 10 } });
      await all_;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      await helper.unload();
      assert.deepEqual(errors.slice(0, 3), []);
      return { n, seconds, perSecond: n / seconds };
    };
    const batched = await measure(true, BENCH_N, 1);
    const single = await measure(false, BENCH_SINGLE, 1 + BENCH_N);
    const stored = await sql(`SELECT count(*) AS n FROM ${DS}.${bench} WHERE id > 0`);
    assert.equal(stored.body.data[0][0], BENCH_N + BENCH_SINGLE);
    const ratio = batched.perSecond / single.perSecond;
    console.log(
      `      insert.batched_vs_single on MindsDB ${version} into PostgreSQL: batched ${batched.n} msgs in ${batched.seconds.toFixed(2)} s (${Math.round(batched.perSecond)} msg/s); one INSERT each ${single.n} msgs in ${single.seconds.toFixed(2)} s (${Math.round(single.perSecond)} msg/s); ${ratio.toFixed(1)}x`,
    );
    assert.ok(ratio > 5, `batching is ${ratio.toFixed(1)}x faster only`);
  });

  it('the IoT example (examples/iot-table.json) connects, creates, stores readings and predicts on them', async () => {
    const ds = `${run}_iot`;
    const table = `${run}_iot_readings`;
    // The example's MindsDB nodes as they are, under this run's names; MQTT left out (its messages are
    // sent into the change node), debug nodes replaced by test helpers.
    const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'iot-table.json'), 'utf8'));
    const flow = example
      .filter((n) => !/^mqtt|^inject$|^comment$/.test(n.type))
      .map((n) => {
        const text = JSON.stringify(n)
          .replace(/iot_pg/g, ds)
          .replace(/iot_readings/g, table);
        const m = JSON.parse(text);
        if (m.type === 'mindsdb-server') m.url = URL_;
        if (m.type === 'debug') return { id: m.id, z: m.z, type: 'helper' };
        return m;
      });
    try {
      await helper.load(all, flow);
      const setup = (id) => {
        const got = nextMessage('iott-debug-setup', 60000);
        helper.getNode(id).receive({});
        return got;
      };
      assert.equal((await setup('iott-database')).payload.name, ds);
      assert.equal((await setup('iott-create')).payload.name, table);
      const stored = collect('iott-debug-stored', 3, 60000);
      const predicted = collect('iott-debug-predicted', 3, 60000);
      for (const t of [20, 21.5, 23])
        helper
          .getNode('iott-row')
          .receive({ topic: 'sensors/kitchen/reading', payload: { temperature: t, humidity: 40 } });
      assert.deepEqual(
        (await stored).map((m) => m.payload),
        Array(3).fill({ inserted: 1, database: ds, table }),
      );
      assert.ok((await predicted).every((m) => Number.isFinite(Number(m.payload.energy))));
      const last = nextMessage('iott-debug-table', 60000);
      helper.getNode('iott-sql').receive({});
      const rows = (await last).payload;
      assert.equal(rows.length, 3);
      assert.ok(
        rows.every((r) => r.sensor === 'kitchen' && Number.isFinite(Number(r.energy))),
        JSON.stringify(rows),
      );
      const dropped = nextMessage('iott-debug-setup', 60000);
      helper.getNode('iott-drop').receive({});
      assert.deepEqual((await dropped).payload, { deleted: true, database: ds, table });
    } finally {
      await api('DELETE', `/databases/${ds}/tables/${table}`);
      await api('DELETE', `/databases/${ds}`);
    }
  });

  it('drops the table; it is gone from the list; a second drop is an error', async () => {
    await load(tableDef);
    assert.deepEqual((await ok({ operation: 'delete', table: T })).payload, { deleted: true, database: DS, table: T });
    made.delete(T);
    assert.ok(!(await ok({ operation: 'list' })).payload.some((t) => t.name === T));
    assert.match((await fails({ operation: 'delete', table: T })).error.message, /Table not found/);
  });
});
