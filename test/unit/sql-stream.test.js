'use strict';
/**
 * Streamed SQL answers in the client: both body formats parsed as they arrive (whatever the chunk
 * boundaries), the socket left unread while nobody asks for rows, the per-line / per-row size
 * limit, the idle deadline, and retries only before the answer started.
 */
const assert = require('node:assert/strict');
const { fakeClient } = require('../support/client-fixture');
const http = require('node:http');
const { FAULTS } = require('../support/faults');
const { Redactor, supportsJsonLines } = require('../../nodes/client');
const { JsonAnswerParser } = require('../../nodes/client/answers');
const { JsonLinesParser } = require('../../nodes/client/answers');
const { waitFor } = require('../support/wait');

const P = '/api/sql/query';

/** Feeds `text` to a parser in pieces of `size` characters; returns its rows and fields. */
function parseInPieces(parser, text, size) {
  const rows = [];
  for (let i = 0; i < text.length; i += size) {
    parser.push(text.slice(i, i + size));
    if (parser.head) rows.push(...parser.take(1e9));
  }
  parser.end();
  rows.push(...parser.take(1e9));
  return { rows, fields: parser.fields, head: parser.head };
}

/** parseInPieces, then the rows set aside before the column names (read back first, as SqlResultStream does). */
async function parseAll(parser, text, size) {
  const out = parseInPieces(parser, text, size);
  if (parser.spool) {
    const replay = parser.spooledRows();
    for (let t = await parser.spool.read(); t !== undefined; t = await parser.spool.read()) replay.push(t);
    replay.push(']}');
    replay.end();
    out.rows.unshift(...replay.take(1e9));
  }
  return out;
}

const TRICKY_ROWS = [
  [1, 'a "quoted" ] } string', null, true, -1.5e-7],
  ['"]"', '\\"]', '[', '{"', -1.5e-7],
  [2, 'back\\slash\\', { nested: [1, [2, { x: ']' }]] }, false, 0],
  [3, 'unicode ☃ 😀 \u0000 \n', [], '', 12345678901],
  [4, '\\"', { '': '' }, null, 0],
];

describe('streamed SQL answers', function () {
  describe('JSON body parser (MindsDB ≤ 26.0, or without jsonlines)', () => {
    for (const order of [
      ['type', 'data', 'column_names', 'context'],
      ['type', 'column_names', 'data', 'context'],
      ['column_names', 'context', 'data', 'type'],
    ]) {
      it(`gives the same rows and fields as JSON.parse for any chunking, keys ${order.join(',')}`, async () => {
        const answer = {
          type: 'table',
          data: TRICKY_ROWS,
          column_names: ['i', 's', 'o', 'b', 'n'],
          context: { db: 'mindsdb', x: [1, '}'] },
        };
        const text = ` {${order.map((k) => `${JSON.stringify(k)} : ${JSON.stringify(answer[k], null, k === 'data' ? 1 : 0)}`).join(' ,\n')}} \n`;
        for (const size of [1, 2, 3, 7, 13, 64, text.length]) {
          const { rows, fields, head } = await parseAll(new JsonAnswerParser(P, 1 << 20), text, size);
          assert.deepEqual(rows, TRICKY_ROWS, `pieces of ${size}`);
          assert.deepEqual(fields.context, answer.context);
          assert.equal(head.type, 'table');
        }
      });
    }

    it('labels rows as soon as the column names came first (nothing waits for the end)', () => {
      const p = new JsonAnswerParser(P, 1 << 20);
      p.push('{"type":"table","column_names":["a"],"data":[[1],[2],[3');
      assert.ok(p.head);
      assert.deepEqual(p.take(10), [[1], [2]]);
    });

    it('reads ok, error, empty and null-data answers', () => {
      assert.equal(
        parseInPieces(new JsonAnswerParser(P, 1 << 20), '{"type":"ok","affected_rows":3,"context":{}}', 5).head.type,
        'ok',
      );
      const e = parseInPieces(
        new JsonAnswerParser(P, 1 << 20),
        '{"type":"error","error_code":0,"error_message":"nope"}',
        4,
      );
      assert.equal(e.head.type, 'error');
      assert.equal(e.fields.error_message, 'nope');
      assert.deepEqual(
        parseInPieces(new JsonAnswerParser(P, 1 << 20), '{"type":"table","data":[],"column_names":["a"]}', 3).rows,
        [],
      );
      assert.deepEqual(
        parseInPieces(new JsonAnswerParser(P, 1 << 20), '{"type":"table","data":null,"column_names":["a"]}', 3).rows,
        [],
      );
    });

    it('refuses truncated, malformed and non-row answers', () => {
      const bad = [
        '{"type":"table","data":[[1],[2',
        '{"type":"table","data":[[1],2],"column_names":["a"]}',
        '[1,2]',
        '{"type":"table" "data":[]}',
        '',
        '{"type":"table","data":[[1]],"column_names":["a"]} x',
      ];
      for (const text of bad) {
        assert.throws(
          () => parseInPieces(new JsonAnswerParser(P, 1 << 20), text, 3),
          (e) => e.kind === 'invalid-response',
          text,
        );
      }
    });

    it('bounds one row once the columns are known, and all rows while they are not', () => {
      const big = JSON.stringify(['x'.repeat(3000)]);
      assert.throws(
        () => parseInPieces(new JsonAnswerParser(P, 1024), `{"column_names":["a"],"data":[${big}]}`, 100),
        (e) => e.kind === 'too-large',
      );
      const many = JSON.stringify(Array.from({ length: 200 }, (_, i) => [i, 'abcdefgh']));
      assert.throws(
        () =>
          parseInPieces(new JsonAnswerParser(P, 1024), `{"type":"table","data":${many},"column_names":["a","b"]}`, 100),
        (e) => e.kind === 'too-large',
      );
      // the same rows after the column names: each row is small, so any number of them passes
      assert.equal(
        parseInPieces(new JsonAnswerParser(P, 1024), `{"type":"table","column_names":["a","b"],"data":${many}}`, 100)
          .rows.length,
        200,
      );
    });
  });

  describe('jsonlines parser (MindsDB ≥ 26.1)', () => {
    const lines = `{"type":"table","column_names":["i","s","o","b","n"]}\n${JSON.stringify(TRICKY_ROWS.slice(0, 4))}\n${JSON.stringify(TRICKY_ROWS.slice(4))}\n`;
    it('gives every row for any chunking', () => {
      for (const size of [1, 2, 5, 17, lines.length]) {
        const { rows, head } = parseInPieces(new JsonLinesParser(P, 1 << 20, new Redactor()), lines, size);
        assert.deepEqual(rows, TRICKY_ROWS);
        assert.deepEqual(head.fields.column_names, ['i', 's', 'o', 'b', 'n']);
      }
    });
    it('turns an error line after rows into an SQL error, and a cut last line into a truncated answer', () => {
      assert.throws(
        () =>
          parseInPieces(
            new JsonLinesParser(P, 1 << 20, new Redactor()),
            `${lines}{"type":"error","error_message":"boom"}\n`,
            8,
          ),
        (e) => e.kind === 'sql' && /boom/.test(e.message),
      );
      assert.throws(
        () => parseInPieces(new JsonLinesParser(P, 1 << 20, new Redactor()), lines.slice(0, -3), 8),
        (e) => e.kind === 'invalid-response',
      );
    });
    it('reads a line that spans many chunks (a whole result in one batch)', () => {
      const rows = Array.from({ length: 5000 }, (_, i) => [i, `s${i}`]);
      const text = `{"type":"table","column_names":["i","s"]}\n${JSON.stringify(rows)}\n`;
      assert.deepEqual(parseInPieces(new JsonLinesParser(P, 1 << 20, new Redactor()), text, 100).rows, rows);
    });

    it('bounds one line', () => {
      const long = `{"type":"table","column_names":["a"]}\n[${Array(200).fill('["abcdefgh"]').join(',')}]\n`;
      assert.throws(
        () => parseInPieces(new JsonLinesParser(P, 1000, new Redactor()), long, 64),
        (e) => e.kind === 'too-large',
      );
    });
  });

  it('asks for jsonlines from MindsDB 26.1 on only', () => {
    assert.deepEqual(['25.14.1', '26.0.0', '26.1.0', '26.10.2', '27.0', undefined, 'dev'].map(supportsJsonLines), [
      false,
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  describe('client.sqlStream', () => {
    const t = fakeClient({ retries: 0 });

    for (const version of ['25.14.1', '26.1.0']) {
      it(`reads rows in order on MindsDB ${version} (${version.startsWith('26') ? 'jsonlines' : 'JSON body'})`, async () => {
        await t.replaceFake({ version });
        t.fake.state.sql = () => ({
          type: 'table',
          column_names: ['i'],
          data: Array.from({ length: 7 }, (_, i) => [i]),
        });
        t.make({ retries: 0 });
        const stream = await t.client.sqlStream({ query: 'SELECT i' });
        assert.deepEqual(stream.columns, ['i']);
        const got = [];
        for (let rows = await stream.read(3); rows.length; rows = await stream.read(3)) got.push(rows.map((r) => r[0]));
        stream.close();
        assert.deepEqual(got, [[0, 1, 2], [3, 4, 5], [6]]);
        const sent = t.fake.requestsTo('/sql/query')[0].body;
        assert.equal(sent.response_format, version.startsWith('26') ? 'jsonlines' : undefined);
        assert.equal(t.fake.requestsTo('/status').length, 1);
        // the version is asked once per t.client
        (await t.client.sqlStream({ query: 'SELECT i' })).close();
        assert.equal(t.fake.requestsTo('/status').length, 1);
      });
    }

    it('rejects an SQL error answer before any row, and frees its slot', async () => {
      await t.replaceFake({ version: '26.1.0' });
      t.make({ retries: 0, maxInFlight: 1 });
      await assert.rejects(
        t.client.sqlStream({ query: 'SELECT * FROM nope' }),
        (e) => e.kind === 'sql' && /not found/.test(e.message),
      );
      const s = await t.client.sqlStream({ query: 'SELECT 1' });
      assert.deepEqual(await s.read(10), [[1]]);
      s.close();
      await waitFor(() => t.client.load.inFlight === 0, {
        what: () => `the stream's slot freed (${t.client.load.inFlight} in flight)`,
      });
    });

    it('stops reading the socket while no rows are asked for (memory stays bounded)', async () => {
      // A server that writes a 200 MB answer as fast as the socket takes it, counting what it wrote.
      let written = 0;
      let held = false; // the server waits for 'drain': the t.client stopped taking bytes
      const row = JSON.stringify(Array.from({ length: 50 }, () => ['abcdefghij', 12345, 6.789, null, true]));
      const server = http.createServer((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(JSON.stringify({ mindsdb_version: '26.1.0' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/jsonlines' });
        res.write('{"type":"table","column_names":["a","b","c","d","e"]}\n');
        const pump = () => {
          while (written < 200 * 2 ** 20) {
            written += row.length + 1;
            if (!res.write(`${row}\n`)) {
              held = true;
              res.once('drain', () => {
                held = false;
                pump();
              });
              return;
            }
          }
          res.end();
        };
        pump();
      });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      t.make({ baseUrl: `http://127.0.0.1:${server.address().port}`, retries: 0 });
      try {
        const stream = await t.client.sqlStream({ query: 'SELECT big' });
        assert.equal((await stream.read(10)).length, 10);
        // Held back, and no longer moving for 300 ms in a row: the client's buffers are full too (it
        // may read a little after the first hold before its own stream pauses, later on a loaded
        // machine). Without back-pressure the server writes its whole 200 MB and is never held.
        let last = -1;
        let stillSince = Date.now();
        await waitFor(
          () => {
            if (!held || written !== last) {
              last = written;
              stillSince = Date.now();
              return false;
            }
            return Date.now() - stillSince >= 300;
          },
          {
            timeoutMs: 10000,
            intervalMs: 20,
            what: () => `the server to be held back by the t.client for 300 ms (${written} bytes written)`,
          },
        );
        assert.ok(written < 16 * 2 ** 20, `only socket buffers' worth was written (${written} bytes)`);
        let total = 10;
        for (let i = 0; i < 100; i++) total += (await stream.read(1000)).length;
        assert.equal(total, 100010);
        stream.close();
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it('times out when the answer stalls after it started, with the idle deadline', async () => {
      await t.replaceFake({ version: '26.1.0' });
      // 1 s: the first row must come within it on a loaded CI machine too; the stall lasts 8 s.
      t.make({ retries: 0, timeoutMs: 1000 });
      await t.client.serverVersion();
      t.fake.fault((req, res) => {
        res.writeHead(200, { 'content-type': 'application/jsonlines' });
        res.write('{"type":"table","column_names":["a"]}\n[[1]]\n');
        setTimeout(() => req.socket.destroy(), 8000).unref();
      }); // fault: the answer stalls after its first row
      const stream = await t.client.sqlStream({ query: 'SELECT 1' });
      const t0 = Date.now();
      await assert.rejects(stream.read(5), (e) => e.kind === 'timeout');
      // the stall ends only at 8000 ms
      assert.ok(Date.now() - t0 < 4000, `took ${Date.now() - t0} ms for a 1000 ms idle deadline`);
      stream.close();
    });

    it('reports a connection broken mid-answer as a network error', async () => {
      await t.replaceFake();
      t.make({ retries: 2, retryBaseDelayMs: 5, retryPost: true });
      await t.client.serverVersion();
      t.fake.fault(FAULTS['reset mid-body']);
      await assert.rejects(
        async () => {
          const s = await t.client.sqlStream({ query: 'SELECT 1' });
          try {
            await s.read(100);
          } finally {
            s.close();
          }
        },
        (e) => e.kind === 'network' || e.kind === 'invalid-response',
      );
      assert.equal(t.fake.requestsTo('/sql/query').length, 1, 'never repeated once the answer started');
    });

    it('follows a same-origin redirect and refuses one to another host, as sql() does', async () => {
      const other = http.createServer((_req, res) => {
        res.end('{}');
      });
      await new Promise((r) => other.listen(0, '127.0.0.1', r));
      const server = http.createServer((req, res) => {
        if (req.url.endsWith('/status')) {
          res.end(JSON.stringify({ mindsdb_version: '26.1.0' }));
          return;
        }
        if (req.url === '/api/sql/query') {
          res.writeHead(307, { location: '/api/sql/query/' });
          res.end();
          return;
        }
        if (req.url === '/api/sql/query/') {
          res.writeHead(200, { 'content-type': 'application/jsonlines' });
          res.end('{"type":"table","column_names":["a"]}\n[[1],[2]]\n');
          return;
        }
        res.writeHead(404);
        res.end();
      });
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      try {
        t.make({ baseUrl: `http://127.0.0.1:${server.address().port}`, retries: 0 });
        const s = await t.client.sqlStream({ query: 'SELECT a' });
        assert.deepEqual(await s.read(5), [[1], [2]]);
        s.close();
        server.removeAllListeners('request');
        server.on('request', (req, res) => {
          if (req.url.endsWith('/status')) {
            res.end(JSON.stringify({ mindsdb_version: '26.1.0' }));
            return;
          }
          res.writeHead(307, { location: `http://127.0.0.1:${other.address().port}/api/sql/query` });
          res.end();
        });
        await assert.rejects(t.client.sqlStream({ query: 'SELECT a' }), (e) =>
          /redirected .* to another host/.test(e.message),
        );
      } finally {
        server.closeAllConnections();
        other.closeAllConnections();
        await new Promise((r) => server.close(r));
        await new Promise((r) => other.close(r));
      }
    });

    it('retries before the answer starts (503 with retryPost), as sql() does', async () => {
      await t.replaceFake();
      t.make({ retries: 2, retryBaseDelayMs: 5, retryPost: true });
      await t.client.serverVersion();
      t.fake.fault(FAULTS['HTTP 503'], 1);
      const s = await t.client.sqlStream({ query: 'SELECT 1' });
      assert.deepEqual(await s.read(5), [[1]]);
      s.close();
      assert.equal(t.fake.requestsTo('/sql/query').length, 2);
    });
  });
});
