'use strict';
/**
 * mindsdb-table against the in-process stand-in (test/support/fake-mindsdb.js), which parses every
 * statement with MindsDB's own parser and keeps a PostgreSQL-like table: an INSERT stores all its
 * rows or none, column names match case-insensitively, a quoted column name keeps its backticks.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const sqlParser = require('../support/mindsdb-sql-parser');
const { helper, node, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { insertStatement, insertRows, insertColumn } = require('../../nodes/client');

const nodes = [node('mindsdb-server'), node('mindsdb-table'), catchNode];
const base = {
  type: 'mindsdb-table',
  operation: 'msg',
  database: 'pg',
  databaseType: 'str',
  table: '',
  tableType: 'str',
  select: '',
  replace: false,
  batch: false,
  batchSize: 100,
  batchWindow: 50,
};

describe('mindsdb-table node', function () {
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    fake.state.databases.set('pg', {
      id: 7,
      name: 'pg',
      type: 'data',
      engine: 'postgres',
      class_type: 'sql',
      connection_data: {},
    });
    fake.state.tables.set('pg/readings', {
      name: 'readings',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'sensor', type: 'text' },
        { name: 'temp', type: 'float' },
        { name: 'note', type: 'text' },
      ],
      rows: [],
    });
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
  const inserts = () => fake.requestsTo('/sql/query').filter((r) => /^INSERT/.test(r.body.query));
  const stored = () => fake.state.tables.get('pg/readings').rows;

  describe('insert', () => {
    it('inserts one row object with one INSERT whose values are bound parameters', async () => {
      await load({ operation: 'insert', table: 'readings' });
      const m = await run({ payload: { id: 1, sensor: 's1', temp: 21.5 } });
      assert.deepEqual(m.payload, { inserted: 1, database: 'pg', table: 'readings' });
      assert.deepEqual(m.mindsdb, { operation: 'insert', database: 'pg', table: 'readings', rows: 1, stored: true });
      assert.deepEqual(
        inserts().map((r) => r.body),
        [
          {
            query: 'INSERT INTO `pg`.`readings` (id, sensor, temp) VALUES (:p1, :p2, :p3)',
            params: { p1: 1, p2: 's1', p3: 21.5 },
          },
        ],
      );
      assert.deepEqual(stored(), [{ id: 1, sensor: 's1', temp: 21.5 }]);
    });

    it('inserts an array of rows: the columns are the union of the keys in first-seen order, a missing one is NULL', async () => {
      await load({ operation: 'insert', table: 'readings' });
      const m = await run({
        payload: [
          { id: 1, temp: 2 },
          { sensor: 's2', id: 2 },
        ],
      });
      assert.equal(m.payload.inserted, 2);
      assert.equal(
        inserts()[0].body.query,
        'INSERT INTO `pg`.`readings` (id, temp, sensor) VALUES (:p1, :p2, :p3), (:p4, :p5, :p6)',
      );
      assert.deepEqual(stored(), [
        { id: 1, temp: 2, sensor: null },
        { id: 2, temp: null, sensor: 's2' },
      ]);
    });

    it('stores hostile text exactly as sent: quotes, backslashes, comments, semicolons, newlines, any script', async () => {
      await load({ operation: 'insert', table: 'readings' });
      const hostile = [
        "it's",
        '"quoted"',
        '\'both"',
        'C:\\data\\',
        "a\\'b",
        "x'); DROP TABLE readings; --",
        '/* c */',
        '`tick`',
        'line\nbreak',
        ':p1',
        '?',
        'Ωμέγα 温度 🌡️',
        '',
      ];
      await run({ payload: hostile.map((note, id) => ({ id, note })) });
      assert.deepEqual(
        stored().map((r) => r.note),
        hostile,
      );
      // the statement MindsDB parsed holds no value: only placeholders
      assert.ok(inserts().every((r) => !/DROP|quoted|data/.test(r.body.query)));
    });

    it('writes objects and arrays as JSON text, a Date as its ISO time, booleans and null as they are', async () => {
      await load({ operation: 'insert', table: 'readings' });
      await run({ payload: { id: 1, note: { a: [1, "it's"] }, sensor: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) } });
      await run({ payload: { id: 2, note: true, sensor: null } });
      assert.deepEqual(stored(), [
        { id: 1, note: '{"a":[1,"it\'s"]}', sensor: '2026-01-02T03:04:05.000Z' },
        { id: 2, note: 'True', sensor: null },
      ]);
    });

    for (const [what, payload, pattern] of [
      ['a string payload', 'id=1', /msg.payload must be an object \(one row\) or an array of objects/],
      ['a number payload', 42, /msg.payload must be an object/],
      ['an empty array', [], /empty array/],
      ['an array with a non-object', [{ id: 1 }, 3], /msg.payload\[1\] must be an object/],
      ['a row without columns', {}, /msg.payload has no columns/],
      ['a column name with a space', { 'a b': 1 }, /column name "a b" cannot be written/],
      ['a column name with a backtick', { 'x`y': 1 }, /cannot be written/],
      ['a column name MindsDB reads as a keyword', { select: 1 }, /"select" is an SQL keyword/],
      ['a column name starting with a digit', { '1st': 1 }, /cannot be written/],
      ['NaN', { id: 1, temp: NaN }, /msg.payload.temp is NaN/],
      ['Infinity', { id: 1, temp: Infinity }, /is Infinity/],
      ['text with NUL', { id: 1, note: 'a\u0000b' }, /contains NUL/],
      ['a lone surrogate', { id: 1, note: '\ud800' }, /not well-formed Unicode/],
      ['a function', { id: 1, note: () => 1 }, /msg\.payload\.note is a function, which has no JSON form/],
      ['two keys differing only in case', [{ Temp: 1 }, { temp: 2 }], /differ only in case/],
    ]) {
      it(`refuses ${what} before anything is sent`, async () => {
        await load({ operation: 'insert', table: 'readings' });
        const m = await fail({ payload });
        assert.match(m.error.message, pattern);
        assert.equal(inserts().length, 0);
      });
    }

    it("a row the table refuses fails its message with MindsDB's error, and nothing of it is stored", async () => {
      await load({ operation: 'insert', table: 'readings' });
      const m = await fail({ payload: [{ id: 1 }, { id: 'one' }] });
      assert.match(m.error.message, /invalid input syntax for type integer: "one"/);
      assert.equal(m.mindsdb.stored, false);
      assert.deepEqual(stored(), []);
    });

    it('finds a table stored lower-case by the name written with capitals', async () => {
      await load({ operation: 'insert', table: 'Readings' });
      const m = await run({ payload: { id: 1 } });
      assert.deepEqual(m.payload, { inserted: 1, database: 'pg', table: 'readings' });
      assert.deepEqual(
        inserts().map((r) => r.body.query.split(' (')[0]),
        ['INSERT INTO `pg`.`Readings`', 'INSERT INTO `pg`.`readings`'],
      );
      assert.equal(stored().length, 1);
    });

    it('a lost answer is never sent again, not even with Retry POST: the message says its rows may be stored', async () => {
      await load({ operation: 'insert', table: 'readings' }, { retries: 3, retryPost: true });
      fake.state.faultPlan = (entry) =>
        /^INSERT/.test(entry.body?.query) ? FAULTS['answer lost after the write'] : null;
      const m = await fail({ payload: { id: 1 } });
      assert.match(m.error.message, /answer to the INSERT of 1 row\(s\) into pg.readings was lost.*not sent again/);
      assert.equal(m.mindsdb.stored, 'unknown');
      assert.equal(inserts().length, 1);
      assert.equal(stored().length, 1, 'the stand-in stored it once');
    });

    it('says which MindsDB is too old to bind values, and sends nothing', async () => {
      fake.options.version = '25.11.0';
      await load({ operation: 'insert', table: 'readings' });
      const m = await fail({ payload: { id: 1 } });
      assert.match(m.error.message, /needs MindsDB 25.12 or later.*this server is MindsDB 25.11.0/);
      assert.equal(inserts().length, 0);
    });

    it('needs a data source and a table', async () => {
      await load({ operation: 'insert', database: '' });
      assert.match((await fail({ payload: { id: 1 } })).error.message, /no database/);
      assert.match((await fail({ database: 'pg', payload: { id: 1 } })).error.message, /no table/);
      assert.equal((await run({ database: 'pg', table: 'readings', payload: { id: 1 } })).payload.inserted, 1);
    });
  });

  describe('insert, micro-batched', () => {
    const batched = { operation: 'insert', table: 'readings', batch: true, batchSize: 10, batchWindow: 20 };

    it('many messages, one INSERT; each message gets its own output, in order', async () => {
      await load(batched);
      const got = collect('out', 10);
      for (let i = 0; i < 10; i++)
        helper
          .getNode('n1')
          .receive({ i, payload: i === 3 ? [{ id: i }, { id: 100 + i, note: 'two' }] : { id: i, temp: i / 2 } });
      const msgs = await got;
      assert.deepEqual(
        msgs.map((m) => m.i),
        [...Array(10).keys()],
      );
      assert.deepEqual(
        msgs.map((m) => m.payload.inserted),
        [1, 1, 1, 2, 1, 1, 1, 1, 1, 1],
      );
      assert.equal(inserts().length, 1);
      assert.equal(inserts()[0].body.query.split(' VALUES')[0], 'INSERT INTO `pg`.`readings` (id, temp, note)');
      assert.equal(stored().length, 11);
    });

    it('a row the server refuses fails only its message: the others are stored once each', async () => {
      await load(batched);
      const out = collect('out', 9);
      const caught = nextMessage('caught');
      for (let i = 0; i < 10; i++) helper.getNode('n1').receive({ i, payload: { id: i === 4 ? 'four' : i } });
      const [ok, bad] = await Promise.all([out, caught]);
      assert.deepEqual(
        ok.map((m) => m.i),
        [0, 1, 2, 3, 5, 6, 7, 8, 9],
      );
      assert.equal(bad.i, 4);
      assert.match(bad.error.message, /invalid input syntax for type integer: "four"/);
      assert.deepEqual(
        stored()
          .map((r) => r.id)
          .sort((a, b) => a - b),
        [0, 1, 2, 3, 5, 6, 7, 8, 9],
      );
      assert.equal(inserts().length, 11, 'the refused batch, then each message alone');
    });

    it('a batch whose answer was lost is not sent again: each of its messages fails, its rows may be stored', async () => {
      await load(batched, { retries: 3, retryPost: true });
      fake.state.faultPlan = (entry) =>
        /^INSERT/.test(entry.body?.query) ? FAULTS['answer lost after the write'] : null;
      const caught = collect('caught', 10);
      for (let i = 0; i < 10; i++) helper.getNode('n1').receive({ i, payload: { id: i } });
      const msgs = await caught;
      assert.deepEqual(
        msgs.map((m) => m.mindsdb.stored),
        Array(10).fill('unknown'),
      );
      assert.equal(inserts().length, 1);
      assert.equal(stored().length, 10, 'stored once, never twice');
    });

    it('a batch refused for its table (no such table) fails every message without sending each alone', async () => {
      await load({ ...batched, table: 'nosuch', batchSize: 5 });
      const caught = collect('caught', 5);
      for (let i = 0; i < 5; i++) helper.getNode('n1').receive({ i, payload: { id: i } });
      const msgs = await caught;
      assert.ok(
        msgs.every((m) => /relation "nosuch" does not exist/.test(m.error.message) && m.mindsdb.stored === false),
      );
      assert.equal(inserts().length, 1);
    });

    it('a message refused before batching fails alone and does not hold up the others', async () => {
      await load(batched);
      const out = collect('out', 2);
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ payload: { id: 1 } });
      helper.getNode('n1').receive({ payload: { 'bad key': 1 } });
      helper.getNode('n1').receive({ payload: { id: 2 } });
      assert.equal((await out).length, 2);
      assert.match((await caught).error.message, /cannot be written/);
      assert.equal(inserts().length, 1);
    });
  });

  describe('list, create, delete', () => {
    it("lists a data source's tables; an unknown data source is said as such", async () => {
      await load({ operation: 'list' });
      const m = await run({});
      assert.deepEqual(m.payload, [{ name: 'readings', type: 'data' }]);
      assert.deepEqual(m.mindsdb, { operation: 'list', database: 'pg' });
      assert.equal(fake.requests.at(-1).path, '/api/databases/pg/tables');
      await helper.unload();
      await load({ operation: 'list', database: '' });
      assert.match((await fail({ database: 'nope' })).error.message, /database "nope" does not exist/);
    });

    it("creates a table from the node's SELECT, or from msg.payload; an existing one is a conflict unless replaced", async () => {
      await load({ operation: 'create', table: 'daily', select: "SELECT 1 AS id, 'a' AS name;" });
      const m = await run({});
      assert.deepEqual(m.payload, { name: 'daily', type: 'data', database: 'pg' });
      assert.deepEqual(fake.requests.at(-1).body, { table: { name: 'daily', select: "SELECT 1 AS id, 'a' AS name" } });
      assert.match((await fail({})).error.message, /409.*already exists/);
      await helper.unload();
      await load({ operation: 'create', table: 'daily', replace: true });
      await run({ payload: 'SELECT 2 AS id' });
      // A replace fills a new table first, then replaces the old one from it (./table-create.ts).
      const posts = fake.requests
        .filter((r) => r.method === 'POST')
        .slice(-2)
        .map((r) => r.body.table);
      assert.match(posts[0].name, /^daily__replacing_[0-9a-f]{6}$/);
      assert.deepEqual(posts, [
        { name: posts[0].name, select: 'SELECT 2 AS id' },
        { name: 'daily', select: `SELECT * FROM \`pg\`.\`${posts[0].name}\``, replace: true },
      ]);
      assert.deepEqual(fake.state.tables.get('pg/daily').rows, [{ id: 2 }]);
      assert.deepEqual(
        [...fake.state.tables.keys()].filter((k) => k.includes('replacing')),
        [],
        'the new table is dropped at the end',
      );
      await run({ payload: { select: 'SELECT 3 AS id' } });
      assert.match((await fail({ payload: 42 })).error.message, /no SELECT/);
    });

    it('a create whose rows the data source refuses drops the empty table MindsDB made (issue 32)', async () => {
      await load({ operation: 'create', table: 'bad' });
      const e = await fail({ payload: 'SELECT 1 AS id, CHR(0) AS note' });
      assert.match(
        e.error.message,
        /invalid byte sequence.*\(the node dropped the empty table pg\.bad that MindsDB made before it failed/,
      );
      assert.equal(fake.state.tables.has('pg/bad'), false);
      assert.deepEqual(
        [e.mindsdb.operation, e.mindsdb.database, e.mindsdb.table, e.mindsdb.leftover],
        ['create', 'pg', 'bad', undefined],
      );
      // so the same name can be created at once
      assert.equal((await run({ payload: 'SELECT 1 AS id' })).payload.name, 'bad');
    });

    it('a replace whose rows are refused keeps the old table and its rows (MindsDB would drop it first)', async () => {
      fake.state.tables.set('pg/daily', {
        name: 'daily',
        columns: [{ name: 'id', type: 'int' }],
        rows: [{ id: 1 }, { id: 2 }],
      });
      await load({ operation: 'create', table: 'daily', replace: true });
      const e = await fail({ payload: 'SELECT 9 AS id, CHR(0) AS note' });
      assert.match(e.error.message, /invalid byte sequence.*pg\.daily is as it was/);
      assert.deepEqual(fake.state.tables.get('pg/daily').rows, [{ id: 1 }, { id: 2 }]);
      assert.deepEqual(
        [...fake.state.tables.keys()].filter((k) => k.includes('replacing')),
        [],
      );
    });

    it('a name with capitals is made as the data source keeps it (PostgreSQL: lower case), with no table left under the first try', async () => {
      await load({ operation: 'create', table: 'DailySum' });
      const m = await run({ payload: 'SELECT 1 AS id' });
      assert.equal(m.payload.name, 'dailysum');
      assert.deepEqual(m.mindsdb, { operation: 'create', database: 'pg', table: 'dailysum' });
      assert.deepEqual(fake.state.tables.get('pg/dailysum').rows, [{ id: 1 }]);
      const posts = fake.requests.filter((r) => r.method === 'POST').map((r) => r.body.table.name);
      assert.deepEqual(posts, ['DailySum', 'dailysum']);
    });

    it('a failed create never drops a table that was there before', async () => {
      fake.state.tables.set('pg/keep', { name: 'keep', columns: [{ name: 'id', type: 'int' }], rows: [{ id: 1 }] });
      await load({ operation: 'create', table: 'Keep' });
      const e = await fail({ payload: 'SELECT 1 AS id' });
      assert.match(e.error.message, /relation "keep" already exists/);
      assert.deepEqual(fake.state.tables.get('pg/keep').rows, [{ id: 1 }]);
      assert.equal(
        fake.requests.some((r) => r.method === 'DELETE'),
        false,
      );
    });

    it("refuses a create in a project and one whose SELECT does not parse (MindsDB's 400s)", async () => {
      await load({ operation: 'create', table: 't', database: '' });
      assert.match((await fail({ database: 'mindsdb', payload: 'SELECT 1' })).error.message, /is a project/);
      await helper.unload();
      await load({ operation: 'create', table: 't' });
      assert.match((await fail({ payload: 'SELEC 1' })).error.message, /Could not parse select statement/);
    });

    it('drops a table, by the name written with capitals too; a missing one is an error', async () => {
      await load({ operation: 'delete', table: 'Readings' });
      const m = await run({});
      assert.deepEqual(m.payload, { deleted: true, database: 'pg', table: 'readings' });
      assert.equal(fake.state.tables.has('pg/readings'), false);
      assert.match((await fail({})).error.message, /Table not found/);
    });

    it('takes the operation, data source and table from the message when the node leaves them blank', async () => {
      await load({ database: '' });
      assert.equal((await run({ operation: 'list', database: 'pg' })).payload.length, 1);
      assert.equal(
        (await run({ operation: 'insert', database: 'pg', table: 'readings', payload: { id: 1 } })).payload.inserted,
        1,
      );
      assert.match(
        (await fail({ operation: 'truncate', database: 'pg' })).error.message,
        /must be one of insert, list, create, delete/,
      );
    });
  });

  describe("the INSERT text, against MindsDB's parser", () => {
    it("names no column MindsDB's parser refuses, and refuses every keyword it does not take", async () => {
      const lexer = await sqlParser.tokens('SELECT 1');
      assert.ok(lexer.ok);
      const words = [
        'id',
        'temp',
        'sensor',
        'date',
        'time',
        'timestamp',
        'value',
        'status',
        'type',
        'name',
        'key',
        'data',
        'model',
        'project',
        'Mixed_Case',
        '_x1',
        'select',
        'from',
        'where',
        'values',
        'null',
        'true',
        'insert',
        'into',
        'order',
        'group',
        'limit',
        'and',
        'or',
        'not',
        'in',
        'is',
        'as',
        'on',
        'join',
        'using',
        'set',
        'end',
        'case',
        'when',
        'then',
        'else',
        'desc',
        'asc',
        'with',
        'union',
      ];
      for (const w of words) {
        const parsed = await sqlParser.parse(`INSERT INTO db.t (${w}) VALUES (1)`);
        const works = parsed.ok && parsed.ast.columns[0].name === w;
        let taken = true;
        try {
          insertColumn(w);
        } catch {
          taken = false;
        }
        assert.equal(
          taken,
          works,
          `${w}: the node ${taken ? 'takes' : 'refuses'} it, MindsDB's parser ${works ? 'takes' : 'refuses'} it`,
        );
      }
    });

    it('the statement MindsDB parses holds the columns and placeholders the node meant', async () => {
      const { query, params } = insertStatement('my db', 'T.1', insertRows([{ a: 1, B_2: 'x' }, { a: 2 }]));
      const parsed = await sqlParser.parse(query);
      assert.ok(parsed.ok, parsed.error);
      assert.deepEqual(parsed.ast.table.parts, ['my db', 'T.1']);
      assert.deepEqual(
        parsed.ast.columns.map((c) => c.name),
        ['a', 'B_2'],
      );
      assert.deepEqual(
        parsed.ast.values.map((row) => row.map((v) => v.value)),
        [
          ['p1', 'p2'],
          ['p3', 'p4'],
        ],
      );
      assert.deepEqual(params, { p1: 1, p2: 'x', p3: 2, p4: null });
    });
  });
});
