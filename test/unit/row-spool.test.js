'use strict';
/**
 * A streamed JSON answer whose rows come before its column names (MindsDB 25.x's key order, see
 * test/e2e/json-order.e2e.js): the rows' text is set aside in a temporary file until the names
 * are known, then read back part by part. The file must go on every path: the end, an error, an
 * abort (the reader closes early), a deadline (the body stalls), and a body over the size limit.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { JsonAnswerParser, SqlResultStream } = require('../../nodes/client/answers');
const { Redactor } = require('../../nodes/client/shared');
const { waitFor } = require('../support/wait');

const P = '/api/sql/query';
const ROWS = Array.from({ length: 3000 }, (_, i) => [i, `sensor-${i % 50}`, 20 + (i % 10) / 10]);
const BODY = `{"type":"table","data":${JSON.stringify(ROWS)},"column_names":["id","sensor","t"],"context":{"db":"mindsdb"}}`;

/**
 * A network body in chunks of 1,000 characters: `fault` says what happens after `at` chunks
 * ('break': the connection breaks; 'stall': nothing more comes until the reader gives up).
 */
function source(text, { at = Infinity, fault } = {}) {
  let i = 0;
  let pending;
  return {
    destroyed: undefined,
    next() {
      if (i >= at && fault === 'break') return Promise.reject(new Error('socket hang up'));
      if (i >= at && fault === 'stall')
        return new Promise((_resolve, reject) => {
          pending = reject;
        });
      const chunk = text.slice(i * 1000, (i + 1) * 1000);
      i++;
      return Promise.resolve(chunk ? { done: false, value: Buffer.from(chunk) } : { done: true, value: undefined });
    },
    destroy(err) {
      this.destroyed = err ?? true;
      pending?.(err ?? new Error('destroyed'));
    },
  };
}

const hold = { park() {}, async unpark() {}, release() {} };

describe('rows before the column names are spooled to a temporary file', function () {
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'row-spool-test-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = (src, { maxBytes = 1 << 20, idleMs = 2000 } = {}) => {
    const parser = new JsonAnswerParser(P, maxBytes, { dir, memoryChars: 2000 });
    return { parser, stream: new SqlResultStream(src, parser, idleMs, P, new Redactor(), hold) };
  };
  const files = () => fs.readdirSync(dir);
  const gone = () =>
    waitFor(() => files().length === 0, { what: () => `the spool file to be deleted (left: ${files().join(', ')})` });

  it('reads every row back in order and deletes the file at the end', async () => {
    const { parser, stream } = open(source(BODY));
    await stream.open();
    assert.ok(parser.spool?.path, 'the rows went to a file');
    assert.equal(files().length, 1);
    assert.equal(fs.statSync(parser.spool.path).mode & 0o777, 0o600);
    assert.deepEqual(stream.columns, ['id', 'sensor', 't']);
    const rows = [];
    for (let part = await stream.read(1000); part.length > 0; part = await stream.read(1000)) rows.push(...part);
    assert.deepEqual(rows, ROWS);
    assert.ok(stream.done);
    await gone();
    stream.close();
  });

  it('deletes the file when the reader closes the stream before reading every row (abort)', async () => {
    const { parser, stream } = open(source(BODY));
    await stream.open();
    assert.equal((await stream.read(10)).length, 10);
    assert.ok(fs.existsSync(parser.spool.path));
    stream.close();
    await gone();
  });

  it('deletes the file when the connection breaks while rows are being spooled (error)', async () => {
    const { parser, stream } = open(source(BODY, { at: 20, fault: 'break' }));
    await assert.rejects(stream.open(), (e) => e.kind === 'network');
    assert.ok(parser.spool?.path, 'a file had been started');
    stream.close();
    await gone();
  });

  it('deletes the file when the body stalls past the idle deadline (deadline)', async () => {
    const { parser, stream } = open(source(BODY, { at: 20, fault: 'stall' }), { idleMs: 50 });
    await assert.rejects(stream.open(), (e) => e.kind === 'timeout');
    assert.ok(parser.spool?.path, 'a file had been started');
    stream.close();
    await gone();
  });

  it('deletes the file when a spooled row turns out not to be JSON (error while reading back)', async () => {
    const broken = BODY.replace('[2999,', '[2999,,');
    const { stream } = open(source(broken));
    await stream.open();
    await assert.rejects(
      async () => {
        for (let part = await stream.read(1000); part.length > 0; part = await stream.read(1000));
      },
      (e) => e.kind === 'invalid-response',
    );
    stream.close();
    await gone();
  });

  it('refuses rows before the column names over the size limit, and deletes the file', async () => {
    const { parser, stream } = open(source(BODY), { maxBytes: 30_000 });
    await assert.rejects(
      stream.open(),
      (e) => e.kind === 'too-large' && /rows before the column names/.test(e.message),
    );
    const file = parser.spool?.path;
    assert.ok(file, 'a file had been started');
    if (fs.existsSync(file)) assert.ok(fs.statSync(file).size <= 30_000);
    stream.close();
    await gone();
  });

  it('keeps a small answer in memory: no file at all', async () => {
    const small = '{"type":"table","data":[[1],[2]],"column_names":["a"]}';
    const { parser, stream } = open(source(small));
    await stream.open();
    assert.equal(parser.spool.path, undefined);
    assert.deepEqual(await stream.read(10), [[1], [2]]);
    assert.equal(files().length, 0);
    stream.close();
  });
});
