'use strict';
/**
 * Incremental mode of the sql and view nodes against a real MindsDB (25.14.1 or 26.1.0,
 * MINDSDB_URL) and PostgreSQL (127.0.0.1:5432, database `test`): the statement the package wraps
 * around the user's query runs there (MindsDB hands it whole to PostgreSQL: docs/real-mindsdb.md,
 * "Incremental queries"), with timestamps that share a value and differ only in microseconds, a
 * time zone column, the parameters bound by the server, split and whole, msg.reset, and a view.
 * Every expectation is what PostgreSQL itself says the order is.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ok, fails, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith, collect } = require('../support/nr');
const { waitFor } = require('../support/wait');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run = `s33_${Date.now().toString(36).slice(-6)}`;
const DS = `${run}_pg`;
const T = `${run}_readings`;
const VIEW = `${run}_v`;
const nodes = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-view'].map(node).concat([catchNode]);

function psql(sql) {
  return execFileSync(
    'psql',
    ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql],
    { encoding: 'utf8', timeout: 20_000 },
  );
}
async function sqlApi(query) {
  const res = await fetch(`${URL_}/api/sql/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return res.json();
}
/** The ids PostgreSQL orders by (watermark, id), after an optional (watermark, id) position. */
const pgOrder = (wm = 'ts', after = '') =>
  psql(`SELECT id FROM ${T} ${after ? `WHERE ${after}` : ''} ORDER BY ${wm}, id`)
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);

describe('e2e: incremental mode against a real MindsDB and PostgreSQL', function () {
  this.timeout(300_000);
  let version = '';
  let dir;

  before(async () => {
    version = await realMindsDB(URL_);
    console.log(`    MindsDB ${version} at ${URL_}, data source ${DS}, table ${T}`);
    psql(
      `DROP TABLE IF EXISTS ${T}; CREATE TABLE ${T} (id integer PRIMARY KEY, ts timestamp(6) NOT NULL, tz timestamptz NOT NULL, note text)`,
    );
    const res = await fetch(`${URL_}/api/databases/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        database: {
          name: DS,
          engine: 'postgres',
          parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
        },
      }),
    });
    assert.equal(res.status, 201, await res.text());
  });
  after(async () => {
    await sqlApi(`DROP VIEW IF EXISTS mindsdb.${VIEW}`);
    await fetch(`${URL_}/api/databases/${DS}`, { method: 'DELETE' });
    psql(`DROP TABLE IF EXISTS ${T}`);
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-incr-e2e-'));
    helper.settings({ userDir: dir });
    psql(`TRUNCATE ${T}`);
  });
  afterEach(() => {
    helper.settings({});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  eachCaseInNodeRed();

  const sqlDef = (def = {}) => ({
    type: 'mindsdb-sql',
    query: `SELECT id, ts, tz, note FROM ${DS}.${T}`,
    database: '',
    databaseType: 'str',
    rowFormat: 'objects',
    split: false,
    rowsPerMsg: 100,
    incremental: true,
    watermarkColumn: 'ts',
    keyColumn: 'id',
    ...def,
  });
  const load = (def) => helper.load(nodes, flowWith(def, { url: URL_, timeout: 60_000 }));
  /** Rows with ids from..to, `perTs` of them sharing each timestamp; the second of each pair 1 µs later. */
  const insert = (from, to, base = '2024-01-01 10:00:00') =>
    psql(
      `INSERT INTO ${T} SELECT g, TIMESTAMP '${base}' + ((g / 3) * INTERVAL '1 second') + ((g % 3 = 2)::int * INTERVAL '1 microsecond'), TIMESTAMPTZ '${base}+00' + ((g / 3) * INTERVAL '1 second'), 'n' || g FROM generate_series(${from}, ${to}) g`,
    );
  const ids = (m) => m.payload.map((r) => r.id);

  it('sends every row once, in (watermark, key) order: three rows share each timestamp, one of them a microsecond later; rows added with the last timestamp come next time, none twice', async () => {
    insert(1, 10); // ids 9 and 10 share the last timestamp (10/3 = 3 → 10:00:03; 11 would too)
    await load(sqlDef());
    const first = await ok({ payload: 1 });
    assert.deepEqual(ids(first), pgOrder());
    assert.match(
      first.payload.at(-1).ts,
      /^2024-01-01 10:00:03(\.0+)?$/,
      `a timestamp as MindsDB sends it: ${first.payload.at(-1).ts}`,
    );
    assert.deepEqual(ids(await ok({ payload: 2 })), [], 'nothing new');
    insert(11, 14); // 11 shares 10:00:03 with 9 and 10 (one microsecond later: 11 % 3 = 2)
    const second = await ok({ payload: 3 });
    assert.deepEqual(ids(second), [11, 12, 13, 14]);
    assert.deepEqual([...ids(first), ...ids(second)], pgOrder(), "together: every row once, in PostgreSQL's order");
  });

  it('split into parts: the position moves with each part; a timestamptz watermark compares as PostgreSQL does', async () => {
    insert(1, 25);
    await load(sqlDef({ split: true, rowsPerMsg: 10, watermarkColumn: 'tz' }));
    helper.getNode('n1').receive({ payload: 1 });
    const parts = await collect('out', 3, 60_000);
    assert.deepEqual(parts.flatMap(ids), pgOrder('tz'));
    insert(26, 31);
    const next = await ok({ payload: 2 });
    assert.deepEqual(ids(next), pgOrder('tz', 'id > 25'));
  });

  it('msg.reset to a {watermark, key} from a row, and to a watermark alone as text: PostgreSQL compares the bound text as a timestamp', async () => {
    insert(1, 12);
    await load(sqlDef());
    const all = await ok({ payload: 1 });
    const row5 = all.payload.find((r) => r.id === 5);
    await resetTo({ watermark: row5.ts, key: 5 });
    assert.deepEqual(ids(await ok({ payload: 2 })), pgOrder('ts', `(ts, id) > (TIMESTAMP '${row5.ts}', 5)`));
    await resetTo('2024-01-01 10:00:02');
    assert.deepEqual(ids(await ok({ payload: 3 })), pgOrder('ts', "ts > TIMESTAMP '2024-01-01 10:00:02'"));
    await resetTo(true);
    assert.deepEqual(ids(await ok({ payload: 4 })), pgOrder());
  });

  it("the user's query keeps its own parameters, bound by the server next to the position", async () => {
    insert(1, 12);
    await load(sqlDef({ query: `SELECT id, ts FROM ${DS}.${T} WHERE id % :mod = 0` }));
    assert.deepEqual(ids(await ok({ payload: 1, params: { mod: 2 } })), pgOrder('ts', 'id % 2 = 0'));
    insert(13, 16);
    assert.deepEqual(ids(await ok({ payload: 2, params: { mod: 2 } })), [14, 16]);
  });

  it("a watermark column the query does not select is MindsDB's SQL error, at Catch", async () => {
    insert(1, 2);
    await load(sqlDef({ query: `SELECT id, note FROM ${DS}.${T}` }));
    const err = await fails({ payload: 1 });
    assert.equal(err.mindsdbError.kind, 'sql');
    console.log(`      MindsDB ${version}: ${err.error.message.slice(0, 160).replace(/\s+/g, ' ')}`);
  });

  it("the view node's query: a view over the table, read from the position on", async () => {
    const made = await sqlApi(`CREATE VIEW mindsdb.${VIEW} AS (SELECT id, ts, note FROM ${DS}.${T})`);
    assert.notEqual(made.type, 'error', JSON.stringify(made));
    insert(1, 7);
    await load({
      type: 'mindsdb-view',
      operation: 'query',
      project: 'mindsdb',
      projectType: 'str',
      itemName: VIEW,
      itemNameType: 'str',
      query: '',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
      incremental: true,
      watermarkColumn: 'ts',
      keyColumn: 'id',
    });
    assert.deepEqual(ids(await ok({ payload: 1 })), pgOrder());
    insert(8, 9);
    assert.deepEqual(ids(await ok({ payload: 2 })), [8, 9]);
  });

  /** Sends a msg.reset and waits until the node has taken it (it sends nothing, and says where it stands). */
  async function resetTo(reset) {
    const n1 = helper.getNode('n1');
    const calls = n1.status.callCount;
    n1.receive({ reset });
    await waitFor(() => n1.status.callCount > calls, { timeoutMs: 5000, what: 'the reset taken' });
  }
});
