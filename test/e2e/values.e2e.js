'use strict';
/**
 * Values that are not plain JSON against a real MindsDB (25.14.1 or 26.1.0) and PostgreSQL (issue 32):
 * what the nodes send for a Date and a BigInt is what MindsDB binds and stores, read back through
 * PostgreSQL's own types; what they refuse never reaches the server. docs/real-mindsdb.md ("Values").
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { fails, ok, realMindsDB, eachCaseInNodeRed, serverAt } = require('./outcomes');
const { helper, allNodes, flowWith } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const run = `val${Date.now().toString(36).slice(-6)}`;
const DS = `${run}_pg`;
const T = `${run}_t`;
const { api } = serverAt(URL_);
const psql = (q) =>
  execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-tAc', q], { encoding: 'utf8' }).trim();

describe('e2e: values that are not plain JSON, as MindsDB reads them back (issue 32)', function () {
  this.timeout(300000);
  before(async () => {
    const version = await realMindsDB(URL_);
    console.log(`    MindsDB ${version} at ${URL_}, data source ${DS}`);
    assert.equal(
      (
        await api('POST', '/databases/', {
          database: {
            name: DS,
            engine: 'postgres',
            parameters: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
          },
        })
      ).status,
      201,
    );
    psql(`CREATE TABLE ${T} (id int, at timestamptz, big bigint, note text)`);
  });
  after(async () => {
    psql(`DROP TABLE IF EXISTS ${T}`);
    await api('DELETE', `/databases/${DS}`);
  });
  eachCaseInNodeRed();

  it('the table node: a Date is stored as that instant, a BigInt beyond 2^53 exactly, an object as its JSON text', async () => {
    await helper.load(
      allNodes(),
      flowWith(
        { type: 'mindsdb-table', operation: 'insert', database: DS, databaseType: 'str', table: T, tableType: 'str' },
        { url: URL_, timeout: 120000 },
      ),
    );
    await ok({
      payload: {
        id: 1,
        at: new Date(Date.UTC(2026, 0, 31, 8, 30)),
        big: 1234567890123456789n,
        note: { when: new Date(0) },
      },
    });
    assert.equal(
      psql(
        `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || '|' || big || '|' || note FROM ${T} WHERE id = 1`,
      ),
      '2026-01-31 08:30:00|1234567890123456789|{"when":"1970-01-01T00:00:00.000Z"}',
    );
    const e = await fails({ payload: { id: 2, note: new Map([['a', 1]]) } });
    assert.match(e.error.message, /msg\.payload\.note is a Map/);
    assert.equal(psql(`SELECT count(*) FROM ${T} WHERE id = 2`), '0');
  });

  it('the sql node: bound parameters read back as sent (a Date as its ISO text, a BigInt within 64 bits exactly, -0 as 0)', async () => {
    await helper.load(
      allNodes(),
      flowWith(
        {
          type: 'mindsdb-sql',
          query: '',
          database: '',
          databaseType: 'str',
          rowFormat: 'arrays',
          split: false,
          rowsPerMsg: 100,
        },
        { url: URL_, timeout: 120000 },
      ),
    );
    const m = await ok({
      query: `SELECT at, big FROM ${DS}.${T} WHERE at = :at AND big = :big`,
      params: { at: new Date(Date.UTC(2026, 0, 31, 8, 30)), big: 1234567890123456789n },
    });
    assert.equal(m.payload.length, 1, 'the row is found by the Date and the BigInt bound as sent');
    const z = await ok({ query: 'SELECT :z AS z', params: { z: -0 } });
    assert.ok(Object.is(z.payload[0][0], 0), `-0 reads back as 0: ${JSON.stringify(z.payload)}`);
    const e = await fails({ query: 'SELECT :v AS v', params: { v: 2n ** 64n } });
    assert.match(e.error.message, /msg\.params\.v is the integer 18446744073709551616, beyond the 64-bit range/);
  });
});
