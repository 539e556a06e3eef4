'use strict';
/**
 * The key order of a real MindsDB's whole-body SQL answer (POST /api/sql/query without
 * `response_format`), which a streamed answer from MindsDB before 26.1 depends on: when `data`
 * comes before `column_names`, no row can be labelled until the whole body went by, so the
 * JsonAnswerParser sets the rows' text aside (RowSpool: memory, then a temporary file) instead of
 * holding them parsed (bench/README.md, `stream.json_peak_rss_growth_mb`). This records the order
 * the server sends and checks that the parser takes the path that order needs, and gives the same
 * rows as one JSON.parse of the body.
 */
const assert = require('node:assert/strict');
const { realMindsDB } = require('./outcomes');
const { JsonAnswerParser } = require('../../nodes/client/answers');
const { MindsDBClient } = require('../../nodes/client');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const QUERY = "SELECT 1 AS id, 'first' AS name UNION ALL SELECT 2 AS id, 'second' AS name";

/** The top-level keys of a JSON object text, in the order they are written. */
function topLevelKeys(text) {
  const keys = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1) {
        let k = j + 1;
        while (text[k] === ' ') k++;
        if (text[k] === ':') keys.push(JSON.parse(text.slice(i, j + 1)));
      }
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

describe('e2e: the key order of a whole-body SQL answer', function () {
  let version = '';
  before(async function () {
    version = await realMindsDB(URL_);
  });

  it('records where column_names comes, and the parser spools the rows exactly when data comes first', async () => {
    const res = await fetch(`${URL_}/api/sql/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY }),
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    const keys = topLevelKeys(text);
    const dataFirst = keys.indexOf('data') < keys.indexOf('column_names');
    console.log(
      `      MindsDB ${version}: keys ${keys.join(', ')} (${dataFirst ? 'rows before the column names' : 'column names first'})`,
    );
    assert.ok(
      keys.includes('data') && keys.includes('column_names'),
      `a table answer has data and column_names (got ${keys.join(', ')})`,
    );
    // What 25.14.1 and 26.1.0 sent when this test was written; the spool exists for this order.
    if (/^25\./.test(version)) assert.ok(dataFirst, `MindsDB ${version} sends data before column_names`);

    const parser = new JsonAnswerParser('/api/sql/query', 1 << 20);
    for (let i = 0; i < text.length; i += 7) parser.push(text.slice(i, i + 7));
    parser.end();
    assert.equal(parser.spool !== undefined, dataFirst, 'rows are set aside exactly when they come before their names');
    const rows = [];
    if (parser.spool) {
      const replay = parser.spooledRows();
      for (let t = await parser.spool.read(); t !== undefined; t = await parser.spool.read()) replay.push(t);
      replay.push(']}');
      replay.end();
      rows.push(...replay.take(1e9));
    }
    rows.push(...parser.take(1e9));
    assert.deepEqual(rows, JSON.parse(text).data);
  });

  it('streams the same rows through client.sqlStream (the sql node with Split on)', async () => {
    const client = new MindsDBClient({ baseUrl: URL_, retries: 0 });
    try {
      const stream = await client.sqlStream({ query: QUERY });
      try {
        assert.deepEqual(stream.columns, ['id', 'name']);
        const rows = [];
        for (let part = await stream.read(1); part.length > 0; part = await stream.read(1)) rows.push(...part);
        assert.deepEqual(rows, [
          [1, 'first'],
          [2, 'second'],
        ]);
      } finally {
        stream.close();
      }
    } finally {
      await client.close(0);
    }
  });
});
