'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { toCsv, fileContent, checkFileName } = require('../../nodes/client');

const nodes = [node('mindsdb-server'), node('mindsdb-file'), catchNode];
const base = {
  type: 'mindsdb-file',
  operation: 'msg',
  fileName: '',
  fileNameType: 'str',
  format: 'csv',
  replace: false,
  maxSizeMB: 100,
};

describe('mindsdb-file node', function () {
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
  const load = (def = {}, server = {}) =>
    helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url, ...server }));
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

  it('uploads rows as CSV in a multipart body with only file, source_type and original_file_name', async () => {
    await load({ operation: 'upload', fileName: 'readings' });
    const m = await run({
      payload: [
        { t: 20, note: 'a, "b"' },
        { t: 21, extra: null },
      ],
    });
    assert.deepEqual(m.payload, {
      uploaded: true,
      name: 'readings',
      table: 'files.readings',
      bytes: m.payload.bytes,
      rows: 2,
      replaced: false,
    });
    const put = fake.requests.find((r) => r.method === 'PUT');
    assert.equal(put.path, '/api/files/readings');
    assert.match(put.headers['content-type'], /^multipart\/form-data; boundary=/);
    assert.deepEqual(put.form.fields, { source_type: 'file', original_file_name: 'readings.csv' });
    assert.equal(put.form.file.field, 'file');
    assert.equal(put.form.file.filename, 'readings.csv');
    assert.equal(put.form.file.content.toString(), 't,note,extra\r\n20,"a, ""b""",\r\n21,,\r\n');
    assert.deepEqual(m.mindsdb, { operation: 'upload', name: 'readings', stored: true });
  });

  it('is accepted by a MindsDB 26 server, which refuses any other form field', async () => {
    await fake.close();
    fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
    await load({ operation: 'upload', fileName: 'r26' });
    assert.equal((await run({ payload: 'a,b\n1,2\n' })).payload.table, 'files.r26');
  });

  it('uploads rows as JSON, a JSON string, and a Buffer with msg.filename', async () => {
    await load({ operation: 'upload', format: 'json' });
    await run({ name: 'j1', payload: [{ a: 1 }, { a: 2 }] });
    assert.equal(fake.state.files.get('j1').filename, 'j1.json');
    assert.deepEqual(JSON.parse(fake.state.files.get('j1').content), [{ a: 1 }, { a: 2 }]);
    await run({ name: 'j2', payload: '[{"a": 1}]' });
    assert.equal(fake.state.files.get('j2').filename, 'j2.json');
    await run({ name: 'b1', payload: Buffer.from('x,y\n1,2\n'), filename: '/tmp/data/sheet.csv' });
    assert.equal(fake.state.files.get('b1').filename, 'sheet.csv');
    assert.equal(fake.state.files.get('b1').fields.original_file_name, 'sheet.csv');
  });

  it('replaces an existing file (new content first, under a temporary name) only when asked', async () => {
    await load({ operation: 'upload', fileName: 'r' });
    await run({ payload: 'a\n1\n' });
    const e = await fail({ payload: 'a\n2\n' });
    assert.match(e.error.message, /file "r" already exists.*Replace an existing file/);
    await helper.unload();
    await load({ operation: 'upload', fileName: 'R', replace: true });
    const m = await run({ payload: 'a\n3\n' });
    assert.equal(m.payload.replaced, true);
    assert.equal(fake.state.files.get('r').content.toString(), 'a\n3\n');
    // list, upload the new content as a temporary copy, delete the stored `r`, upload `R`, read back
    // the name MindsDB stored it under, delete the copy
    const steps = fake.requests.slice(-6).map((r) => `${r.method} ${decodeURIComponent(r.path)}`);
    assert.match(
      steps.join('\n'),
      /^GET \/api\/files\/\nPUT \/api\/files\/r__replacing_[0-9a-f]{8}\nDELETE \/api\/files\/r\nPUT \/api\/files\/R\nGET \/api\/files\/\nDELETE \/api\/files\/r__replacing_[0-9a-f]{8}$/,
    );
    assert.deepEqual([...fake.state.files.keys()], ['r'], 'the temporary copy is gone');
    assert.equal(m.payload.table, 'files.r');
  });

  it('lists and deletes files; a missing file is a clear error', async () => {
    await load();
    await run({ operation: 'upload', name: 'f1', payload: [{ a: 1 }] });
    assert.deepEqual(
      (await run({ operation: 'list' })).payload.map((f) => f.name),
      ['f1'],
    );
    assert.deepEqual((await run({ operation: 'delete', name: 'f1' })).payload, { deleted: true, name: 'f1' });
    assert.match((await fail({ operation: 'delete', name: 'f1' })).error.message, /file "f1" does not exist/);
  });

  it('node fields win over msg.name', async () => {
    await load({ operation: 'delete', fileName: 'mine' });
    await fail({ name: 'theirs' });
    assert.deepEqual(
      fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path),
      ['/api/files/mine'],
    );
  });

  it('never repeats an upload after a dropped connection (the server may have stored it)', async () => {
    await load({ operation: 'upload', fileName: 'once' }, { retries: 3 });
    fake.fault((req) => {
      req.socket.destroy();
    }, 1);
    await fail({ payload: 'a\n1\n' });
    assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 1);
  });

  for (const [what, def, msg, pattern] of [
    [
      'a name with an extension',
      { operation: 'upload' },
      { name: 'readings.csv', payload: 'a\n1\n' },
      /has an extension.*use "readings"/,
    ],
    [
      'a body over the size limit',
      { operation: 'upload', maxSizeMB: 1 },
      { name: 'big', payload: `a\n${'x\n'.repeat(600000)}` },
      /over the upload limit of 1\.0 MB/,
    ],
    [
      'a Buffer without msg.filename',
      { operation: 'upload' },
      { name: 'b', payload: Buffer.from('a') },
      /set msg.filename/,
    ],
    [
      'a JSON string that does not parse',
      { operation: 'upload' },
      { name: 'b', payload: '[{"a": 1' },
      /does not parse/,
    ],
    [
      'rows that are not objects',
      { operation: 'upload' },
      { name: 'b', payload: [1, 2] },
      /msg.payload\[0\] must be a row object/,
    ],
    ['an empty array', { operation: 'upload' }, { name: 'b', payload: [] }, /no rows/],
    [
      'a number payload',
      { operation: 'upload' },
      { name: 'b', payload: 42 },
      /must be an array of row objects, a CSV or JSON string, or a Buffer/,
    ],
    ['no name', { operation: 'upload' }, { payload: 'a\n1\n' }, /no file name/],
    ['a bad operation', {}, { operation: 'rename' }, /must be one of upload, list, delete/],
  ]) {
    it(`sends ${what} to Catch with the msg, nothing uploaded`, async () => {
      await load(def);
      const m = await fail({ ...msg, marker: 7 });
      assert.equal(m.marker, 7);
      assert.match(m.error.message, pattern);
      assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 0);
    });
  }

  describe('content helpers', () => {
    it('CSV: columns in first-seen order, quoting, dates and objects', () => {
      const d = new Date('2026-01-02T03:04:05Z');
      assert.equal(
        toCsv([
          { a: 1, b: ' x' },
          { c: { k: [1] }, a: d, b: 'line\nbreak' },
        ]),
        'a,b,c\r\n1," x",\r\n2026-01-02T03:04:05.000Z,"line\nbreak","{""k"":[1]}"\r\n',
      );
      assert.throws(() => toCsv([{}]), /no columns/);
    });
    it("file names: the server's extension rule", () => {
      assert.equal(checkFileName('readings'), 'readings');
      assert.equal(checkFileName('.hidden'), '.hidden');
      assert.throws(() => checkFileName('v1.2'), /extension/);
    });
    it('a string picks CSV or JSON by its first character; msg.filename overrides', () => {
      assert.equal(fileContent('a,b', 'n', 'csv').filename, 'n.csv');
      assert.equal(fileContent(' {"a":1}', 'n', 'csv').filename, 'n.json');
      assert.equal(fileContent('x', 'n', 'csv', 'notes.txt').filename, 'notes.txt');
    });
  });
});
