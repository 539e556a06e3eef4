'use strict';
/**
 * Native queries (context.native_query) against a real MindsDB: what each version's server does
 * with the flag, as read from its source (mindsdb/api/http/namespaces/sql.py at each release tag),
 * and what the SQL node makes of it. A PostgreSQL data source of our own runs a statement that
 * MindsDB's parser refuses (a `::` cast, a table function with column names):
 * - before 26.0.1 the flag is ignored: MindsDB parses the statement and refuses it;
 * - 26.0.1 and 26.2+ send it to PostgreSQL as it is;
 * - 26.1.x answers HTTP 500 to every native query that succeeds.
 * The node sends it only where it works, and names the version everywhere else.
 */
const assert = require('node:assert/strict');
const { realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const DB = `currency_native_${Date.now().toString(36)}_pg`;
const H = { 'content-type': 'application/json' };
const POSTGRES_ONLY = 'SELECT n, n::text AS t FROM generate_series(1, 3) AS g(n)';
const nodes = ['mindsdb-server', 'mindsdb-sql'].map(node).concat([catchNode]);

/** major.minor.patch compared as numbers. */
const atLeast = (v, min) => {
  const a = v.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== b[i]) return (a[i] || 0) > b[i];
  return true;
};

describe('e2e: native queries (context.native_query)', function () {
  let version = '';
  before(async function () {
    version = await realMindsDB(URL_);
    const created = await fetch(`${URL_}/api/databases/`, {
      method: 'POST',
      headers: H,
      body: JSON.stringify({
        database: {
          name: DB,
          engine: 'postgres',
          parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
        },
      }),
    });
    assert.equal(created.status, 201, `could not create the PostgreSQL data source ${DB}: ${await created.text()}`);
  });
  after(async () => {
    await fetch(`${URL_}/api/databases/${DB}`, { method: 'DELETE' }).catch(() => undefined);
  });
  eachCaseInNodeRed();

  it('the server does with the flag what its source says', async () => {
    const res = await fetch(`${URL_}/api/sql/query`, {
      method: 'POST',
      headers: H,
      body: JSON.stringify({ query: POSTGRES_ONLY, context: { db: DB, native_query: true } }),
    });
    const body = await res.json();
    if (!atLeast(version, '26.0.1')) {
      assert.equal(res.status, 200);
      assert.equal(body.type, 'error');
      assert.match(body.error_message, /cannot be parsed/, 'the flag is ignored and MindsDB parses the statement');
    } else if (atLeast(version, '26.1.0') && !atLeast(version, '26.2.0')) {
      assert.equal(res.status, 500);
      assert.match(body.detail, /object has no attribute 'error_code'/);
    } else {
      assert.equal(res.status, 200);
      assert.deepEqual(body.data, [
        [1, '1'],
        [2, '2'],
        [3, '3'],
      ]);
    }
  });

  it('the SQL node runs it where the server can, and names the version where it cannot', async () => {
    await helper.load(
      nodes,
      flowWith(
        {
          type: 'mindsdb-sql',
          query: POSTGRES_ONLY,
          database: DB,
          databaseType: 'str',
          nativeQuery: true,
          rowFormat: 'arrays',
          split: false,
          rowsPerMsg: 100,
        },
        { url: URL_, timeout: 60000 },
      ),
    );
    const works = atLeast(version, '26.0.1') && !(atLeast(version, '26.1.0') && !atLeast(version, '26.2.0'));
    const got = nextMessage(works ? 'out' : 'caught', 60000);
    helper.getNode('n1').receive({});
    const msg = await got;
    if (works)
      assert.deepEqual(msg.payload, [
        [1, '1'],
        [2, '2'],
        [3, '3'],
      ]);
    else
      assert.match(
        msg.error.message,
        new RegExp(`MindsDB ${version.replace(/\./g, '\\.')} (has no|cannot run) native queries`),
      );
  });
});
