'use strict';
/**
 * The one rule for a message value that is not plain JSON (src/client/shared/json-value.ts, issue
 * 32): every kind, and every writer (request bodies, bound parameters, USING values in SQL text,
 * inserted values, uploaded rows) and every node that takes such a value from a message follows it,
 * and names the value by its place in the message when it refuses one.
 */
const assert = require('node:assert/strict');
const vm = require('node:vm');
const {
  plainJson,
  jsonText,
  sqlLiteral,
  sqlUsing,
  insertValue,
  insertRows,
  toCsv,
  fileContent,
} = require('../../nodes/client');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, allNodes, flowWith, nextMessage } = require('../support/nr');

class Reading {
  constructor() {
    this.v = 1;
  }
}
const cycle = () => {
  const a = { x: 1 };
  a.self = a;
  return a;
};

/** [kind, value, what plainJson gives (JSON text) or the error it refuses with]. */
const KINDS = [
  ['a Date', new Date(Date.UTC(2026, 0, 31, 8)), '"2026-01-31T08:00:00.000Z"'],
  ['an invalid Date', new Date(NaN), /is an invalid Date/],
  ['a small bigint', 42n, '42'],
  ['a bigint beyond 2^53, within 64 bits', 1234567890123456789n, '1234567890123456789'],
  ['a negative 64-bit bigint', -9223372036854775808n, '-9223372036854775808'],
  ['a bigint beyond 64 bits', 2n ** 64n, /beyond the 64-bit range MindsDB binds exactly .* send it as text/],
  ['-0', -0, '0'],
  ['NaN', NaN, /is NaN, not a number MindsDB can store/],
  ['Infinity', Infinity, /is Infinity/],
  ['-Infinity', -Infinity, /is -Infinity/],
  ['undefined in an array', [1, undefined, 3], '[1,null,3]'],
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
  ['a hole in an array', [1, , 3], '[1,null,3]'],
  ['undefined in an object', { a: 1, b: undefined }, '{"a":1}'],
  ['a Buffer', Buffer.from('hi'), /is binary data \(Uint8Array\): MindsDB's JSON has no bytes/],
  ['a Uint8Array', new Uint8Array([1, 2]), /is binary data \(Uint8Array\)/],
  ['an ArrayBuffer', new ArrayBuffer(2), /is binary data \(ArrayBuffer\)/],
  ['a DataView', new DataView(new ArrayBuffer(2)), /is binary data \(DataView\)/],
  ['a Map', new Map([['a', 1]]), /is a Map, which JSON would write as \{\} .*Object\.fromEntries\(map\)/],
  ['a Set', new Set([1]), /is a Set, which JSON would write as \{\} .*\[\.\.\.set\]/],
  ['a class instance', new Reading(), /is an instance of Reading, not plain JSON/],
  ['a boxed string', Object('text'), /is an instance of String, not plain JSON/],
  ['a RegExp', /x/, /is an instance of RegExp/],
  ['an Error', new Error('x'), /is an instance of Error/],
  ['a symbol', Symbol('s'), /is a symbol, which has no JSON form/],
  ['a function', () => 1, /is a function, which has no JSON form/],
  ['a cycle', cycle(), /\.self refers back to an object that contains it \(a cycle\)/],
  ['a lone surrogate', 'a\ud800', /not well-formed Unicode text/],
  ['an object without a prototype', Object.assign(Object.create(null), { a: 1 }), '{"a":1}'],
  [
    'a key named __proto__ (from JSON.parse)',
    JSON.parse('{"__proto__": {"x": 1}, "d": 0}'),
    '{"__proto__":{"x":1},"d":0}',
  ],
];

describe('values that are not plain JSON: one rule (issue 32)', () => {
  describe('plainJson, every kind, nested where a message carries it', () => {
    for (const [kind, value, expected] of KINDS) {
      it(`${kind} ${expected instanceof RegExp ? 'is refused, naming where it is' : `is written as ${expected}`}`, () => {
        const msg = { payload: [{ reading: value }] };
        if (expected instanceof RegExp) {
          assert.throws(
            () => plainJson(msg.payload, 'msg.payload'),
            (err) => {
              assert.equal(err.kind, 'input');
              assert.match(err.message, /^msg\.payload\[0\]\.reading/);
              assert.match(err.message, expected);
              return true;
            },
          );
        } else {
          assert.equal(jsonText(msg.payload, 'msg.payload'), `[{"reading":${expected}}]`);
        }
      });
    }

    it('a value that needs no change comes back as it is (no copy), and is never changed in place', () => {
      const plain = { a: [1, 'x', { b: null }], c: true };
      assert.equal(plainJson(plain, 'msg.payload'), plain);
      const withDate = { when: new Date(0), n: [1] };
      const out = plainJson(withDate, 'msg.payload');
      assert.notEqual(out, withDate);
      assert.ok(withDate.when instanceof Date, 'the message is left as it was');
      assert.equal(out.n, withDate.n, 'unchanged parts are shared');
    });

    it("objects, arrays and dates from a function node's sandbox (another realm) are plain JSON", () => {
      const foreign = vm.runInNewContext('({ a: [1, { b: 2 }], when: new Date(0), m: new Map() })');
      assert.throws(() => plainJson(foreign, 'msg.payload'), /msg\.payload\.m is a Map/);
      delete foreign.m;
      assert.equal(jsonText(foreign, 'msg.payload'), '{"a":[1,{"b":2}],"when":"1970-01-01T00:00:00.000Z"}');
    });

    it('deep nesting is refused, not a stack overflow', () => {
      let deep = {};
      for (let i = 0; i < 200; i++) deep = { d: deep };
      assert.throws(() => plainJson(deep, 'msg.payload'), /nested more than 100 levels deep/);
    });

    it('a key that is not a name is written as ["…"] in the path', () => {
      assert.throws(() => plainJson({ 'a b': [NaN] }, 'msg.params'), /^.*msg\.params\["a b"\]\[0\] is NaN/);
    });
  });

  describe('every writer follows it', () => {
    it('SQL text: a USING value', () => {
      assert.equal(
        sqlUsing({ since: new Date(Date.UTC(2026, 0, 1)), big: 12345678901234567890n & ((1n << 63n) - 1n) }),
        ` USING \`since\` = '2026-01-01T00:00:00.000Z', \`big\` = ${12345678901234567890n & ((1n << 63n) - 1n)}`,
      );
      assert.equal(sqlLiteral(-0), '0');
      assert.throws(() => sqlUsing({ opts: { m: new Map() } }), /the USING options\.opts\.m is a Map/);
      assert.throws(() => sqlUsing({ n: -5n }), /the USING options\.n cannot be the negative number -5/);
    });

    it('an inserted value: JSON text for an object, exact digits for a big integer', () => {
      assert.equal(insertValue(new Date(0), 'msg.payload.t'), '1970-01-01T00:00:00.000Z');
      assert.equal(insertValue({ when: new Date(0) }, 'msg.payload.j'), '{"when":"1970-01-01T00:00:00.000Z"}');
      assert.equal(
        JSON.stringify({ p1: insertValue(1234567890123456789n, 'msg.payload.i') }),
        '{"p1":1234567890123456789}',
      );
      assert.throws(
        () => insertRows([{ id: 1 }, { id: 2, raw: Buffer.from('x') }]),
        /msg\.payload\[1\]\.raw is binary data/,
      );
    });

    it('an uploaded file: CSV and JSON rows', () => {
      assert.equal(
        toCsv([{ t: new Date(0), n: 2n ** 60n, o: { a: 1 } }]),
        't,n,o\r\n1970-01-01T00:00:00.000Z,1152921504606846976,"{""a"":1}"\r\n',
      );
      assert.equal(fileContent([{ n: 2n ** 60n }], 'f', 'json').data.toString(), '[{"n":1152921504606846976}]');
      assert.throws(() => fileContent([{ a: 1 }, { s: new Set() }], 'f', 'csv'), /msg\.payload\[1\]\.s is a Set/);
      assert.throws(() => fileContent([new Date(0)], 'f', 'csv'), /msg\.payload\[0\] must be a row object/);
    });
  });

  describe('every node that takes a value from the message', function () {
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
    const bodies = () => fake.requests.filter((r) => r.method !== 'GET').map((r) => r.rawBody);

    /** [node, its config, a message with a Date (sent as its ISO text) and one with a Map (refused at that path)]. */
    const NODES = [
      ['mindsdb-sql', {}, (v) => ({ query: 'SELECT :t AS t', params: { t: v } }), 'msg.params.t'],
      ['mindsdb-sql', {}, (v) => ({ query: 'SELECT ? AS t', params: [v] }), 'msg.params[0]'],
      [
        'mindsdb-predict',
        { model: 'home_rentals', modelType: 'str' },
        (v) => ({ payload: [{ sqft: 1, at: v }] }),
        'msg.payload[0].at',
      ],
      [
        'mindsdb-predict',
        { model: 'home_rentals', modelType: 'str' },
        (v) => ({ payload: { sqft: 1 }, predictParams: { since: v } }),
        'msg.predictParams.since',
      ],
      [
        'mindsdb-database',
        { operation: 'create', dbName: 'd1', dbNameType: 'str', engine: 'postgres' },
        (v) => ({ payload: { parameters: { since: v } } }),
        'msg.payload.parameters.since',
      ],
      [
        'mindsdb-chatbot',
        { operation: 'create', itemName: 'c1', itemNameType: 'str' },
        (v) => ({ payload: { model_name: 'home_rentals', params: { at: v } } }),
        'msg.payload.params.at',
      ],
      [
        'mindsdb-agent',
        { operation: 'create', itemName: 'a1', itemNameType: 'str' },
        // (data takes only lists of names, checked before sending: a value of the LLM's settings instead)
        (v) => ({ payload: { model_name: 'gpt-4', provider: 'openai', params: { at: v } } }),
        'msg.payload.params.at',
      ],
      [
        'mindsdb-knowledge-base',
        { operation: 'insert', itemName: 'kb1', itemNameType: 'str' },
        (v) => ({ payload: [{ content: 'x', at: v }] }),
        'msg.payload[0].at',
      ],
      [
        'mindsdb-knowledge-base',
        { operation: 'create', itemName: 'kb2', itemNameType: 'str' },
        (v) => ({ payload: { params: { at: v } } }),
        'msg.payload.params.at',
      ],
      [
        'mindsdb-model',
        { operation: 'train', model: 'm1', modelType: 'str', predict: 'y', engine: 'linear' },
        (v) => ({ payload: { using: { since: v } } }),
        'msg.payload.using.since',
      ],
      [
        'mindsdb-ml-engine',
        { operation: 'create', engineName: 'e1', engineNameType: 'str', handler: 'openai' },
        (v) => ({ payload: { settings: { since: v } } }),
        'msg.payload.settings.since',
      ],
      [
        'mindsdb-table',
        { operation: 'insert', database: 'pg', databaseType: 'str', table: 'readings', tableType: 'str' },
        (v) => ({ payload: { id: 1, note: v } }),
        'msg.payload.note',
      ],
      [
        'mindsdb-file',
        { operation: 'upload', fileName: 'f1', fileNameType: 'str' },
        (v) => ({ payload: [{ a: 1, at: v }] }),
        'msg.payload[0].at',
      ],
    ];
    const setup = () => {
      fake.state.kbs.set('mindsdb/kb1', { record: { id: 1, name: 'kb1', project: 'mindsdb' }, rows: [] });
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
          { name: 'note', type: 'text' },
        ],
        rows: [],
      });
    };
    for (const [type, def, msgWith, path] of NODES) {
      it(`${type}: a Date at ${path} is sent as its ISO text; a Map there is refused naming ${path}, nothing sent`, async () => {
        setup();
        await helper.load(allNodes(), flowWith({ type, ...def }, { url: fake.url }));
        const out = nextMessage('out');
        helper.getNode('n1').receive(msgWith(new Date(Date.UTC(2026, 0, 31))));
        await out;
        assert.ok(
          bodies().some((b) => b.includes('2026-01-31T00:00:00.000Z')),
          `the ISO text was sent: ${bodies().join(' | ').slice(0, 400)}`,
        );
        const before = bodies().length;
        const caught = nextMessage('caught');
        helper.getNode('n1').receive(msgWith(new Map([['k', 1]])));
        const e = await caught;
        assert.match(e.error.message, new RegExp(`(^|: )${path.replace(/[.[\]]/g, '\\$&')} is a Map`));
        assert.equal(bodies().length, before, 'nothing was sent');
      });
    }
  });
});
