'use strict';
/**
 * msg.mindsdb on every error, as each node's help promises it (issues 32 and 39). The fields come
 * from the help, not from this file: every node's help names them once per language in its
 * `<!-- part errors-mindsdb fields="…" -->` line (and a write's operations in
 * `<!-- part errors-stored ops="…" -->`). Every action node, every operation, and an error from each
 * source (MindsDB answers an error, the network refuses, the node's own checks of the message,
 * before anything is sent) reaches Catch with those fields, this message's values, and never the
 * msg.mindsdb an earlier node left. Two rules for the whole class: a list concerns no single item
 * (no name, table, model or version), and `stored` (with an insert's `rows`) belongs to the
 * operations the help names as writes.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { helper, allNodes, flowWith, nextMessage } = require('../support/nr');
const { SCHEMAS } = require('../../nodes/schema');
const { storedAfter, MindsDBError } = require('../../nodes/client');

const HELP = path.join(__dirname, '..', '..', 'src', 'help');
const LANGS = ['en-US', 'de', 'ja', 'zh-CN'];
/** Operations that list: they concern no single item. */
const LISTS = new Set(['list', 'handlers']);
/** Fields that name a single item. */
const ITEM_FIELDS = new Set(['name', 'table', 'model', 'version']);
/** Fields of a write only. */
const WRITE_FIELDS = new Set(['stored', 'rows']);

/** What a node's help (in one language) promises on an error: its fields, and which operations write. */
function promised(type, lang) {
  const text = fs.readFileSync(path.join(HELP, lang, `${type}.html`), 'utf8');
  const fields = /<!-- part errors-mindsdb fields="([^"]*)" -->/.exec(text);
  assert.ok(fields, `src/help/${lang}/${type}.html names no fields in its errors-mindsdb part`);
  const writes = /<!-- part errors-stored ops="([^"]*)" -->/.exec(text);
  return {
    fields: fields[1]
      .replace(/&quot;/g, '"')
      .split(/,\s*/)
      .map((f) => {
        const m = /^(\w+)(?::\s*"([^"]*)")?$/.exec(f.trim());
        assert.ok(m, `${type} (${lang}): "${f}" is not a field`);
        return { key: m[1], literal: m[2] };
      }),
    writes: writes ? writes[1] : undefined,
  };
}

/** The node's saved fields: the declared defaults (filled in by the runtime), operation from the msg. */
const defaults = (node) => ({ ...(node.ops[0] ? { operation: 'msg' } : {}), ...node.def });

/** Each node's operations, as its schema declares them (none: a node without operations). */
const opsOf = (type) => {
  const op = SCHEMAS[type]?.fields.operation;
  return op ? op.values.filter((v) => v !== 'msg') : [null];
};

/** Per node: a message for each operation that passes the node's own checks (its inputs; the fields are the help's). */
const NODES = [
  { type: 'mindsdb-sql', msg: () => ({ query: 'SELECT 1' }) },
  {
    type: 'mindsdb-predict',
    def: { model: 'home_rentals', modelType: 'str' },
    msg: () => ({ payload: { sqft: 1 } }),
  },
  {
    type: 'mindsdb-database',
    msg: () => ({ name: 'd1', payload: { engine: 'postgres', parameters: { host: 'h' } } }),
  },
  ...['chatbot', 'skill', 'agent'].map((kind) => ({
    type: `mindsdb-${kind}`,
    msg: (op) => ({ name: 'r1', payload: op === 'completions' ? 'hello' : { model_name: 'm' } }),
  })),
  {
    type: 'mindsdb-file',
    msg: () => ({ name: 'f1', payload: 'a,b\n1,2\n' }),
  },
  {
    type: 'mindsdb-job',
    msg: () => ({ name: 'j1', payload: { query: 'SELECT 1' } }),
  },
  {
    type: 'mindsdb-model',
    msg: () => ({
      model: 'm1',
      version: 2,
      payload: { database: 'files', select: 'SELECT * FROM t', predict: 'y', engine: 'e' },
    }),
  },
  {
    type: 'mindsdb-knowledge-base',
    msg: (op) => ({ name: 'kb1', payload: op === 'search' ? 'warm' : op === 'insert' ? [{ content: 'x' }] : {} }),
  },
  {
    type: 'mindsdb-table',
    msg: (op) => ({ database: 'pg', table: 't1', payload: op === 'create' ? 'SELECT 1 AS a' : { id: 1 } }),
  },
  {
    type: 'mindsdb-project',
    msg: () => ({ name: 'p1' }),
  },
  {
    type: 'mindsdb-view',
    msg: () => ({ name: 'v1', query: 'SELECT 1' }),
  },
  {
    type: 'mindsdb-ml-engine',
    msg: () => ({ name: 'e1', payload: { handler: 'openai' } }),
  },
].map((n) => ({ ...n, ops: opsOf(n.type) }));

/** The sources of an error: MindsDB, the network, and the node's own checks before it sends anything. */
const SOURCES = {
  'MindsDB answers an error': {
    server: (fake) => {
      fake.state.faultPlan = () => FAULTS['HTTP 500'];
      return fake.url;
    },
  },
  'the network refuses': { server: () => 'http://127.0.0.1:1' },
  "the node's own check of msg.timeout": { server: (fake) => fake.url, msg: { timeout: 'soon' } },
  'msg.server naming no server the node may use': { server: (fake) => fake.url, msg: { server: 'elsewhere' } },
};

/** The value a field must have for this message (undefined: the field is not required for this operation). */
function expected(field, node, op, msg, writes) {
  const isWrite = writes !== undefined && (op === null || writes.split(/,\s*|\s+and\s+/).includes(op));
  // an insert's rows go with its stored; a node that writes nothing (predict) counts its rows on every message
  if (WRITE_FIELDS.has(field.key) && !isWrite && !(field.key === 'rows' && writes === undefined)) return undefined;
  if (ITEM_FIELDS.has(field.key) && LISTS.has(op)) return undefined;
  switch (field.key) {
    case 'resource':
      return field.literal;
    case 'operation':
      return op;
    case 'project':
      return 'mindsdb';
    case 'rows':
      return Array.isArray(msg.payload) ? msg.payload.length : 1;
    case 'stored':
      return (error) => storedAfter(error);
    default: {
      // as the message gives it, or the node's own field
      const value = msg[field.key] ?? node.def?.[field.key];
      assert.ok(value !== undefined, `${node.type}: the test gives no ${field.key} for ${op}`);
      return value;
    }
  }
}

describe('msg.mindsdb on every error: the fields the help promises', () => {
  it('every action node promises its fields in every language, the same ones', () => {
    // the action nodes: every type that talks to a server (the config nodes, server and state store, take no message)
    const types = Object.keys(SCHEMAS).filter((t) => SCHEMAS[t].fields.server !== undefined);
    assert.deepEqual(NODES.map((n) => n.type).sort(), types.sort(), 'a message for every action node');
    for (const type of types) {
      const en = promised(type, 'en-US');
      for (const lang of LANGS.slice(1)) {
        const other = promised(type, lang);
        assert.deepEqual(other.fields, en.fields, `${type}: ${lang} names other fields than en-US`);
        assert.equal(other.writes !== undefined, en.writes !== undefined, `${type}: ${lang} on stored`);
      }
      assert.equal(
        en.fields.some((f) => f.key === 'stored'),
        en.writes !== undefined,
        `${type}: stored is promised with the operations that write`,
      );
    }
  });
});

describe('msg.mindsdb on every error: every node × every operation × every source', function () {
  this.timeout(20000);
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await fake.close();
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  for (const node of NODES) {
    const help = promised(node.type, 'en-US');
    for (const op of node.ops) {
      for (const [source, how] of Object.entries(SOURCES)) {
        it(`${node.type}${op ? ` ${op}` : ''} × ${source}`, async () => {
          const url = how.server(fake);
          await helper.load(
            allNodes(),
            flowWith({ type: node.type, ...defaults(node) }, { url, timeout: 2000, retries: 0 }),
          );
          const caught = nextMessage('caught');
          const given = { ...node.msg(op), ...(op ? { operation: op } : {}), ...how.msg };
          helper.getNode('n1').receive({ ...given, mindsdb: { from: 'an earlier node', name: 'stale' } });
          const got = await caught;
          assert.ok(got.error, 'the message reached Catch with an error');
          assert.ok(got.mindsdb && typeof got.mindsdb === 'object', `msg.mindsdb is an object (${got.error.message})`);
          assert.equal(
            got.mindsdb.from,
            undefined,
            `msg.mindsdb is this message's, not an earlier node's: ${JSON.stringify(got.mindsdb)}`,
          );
          const error = new MindsDBError(got.error.message, got.mindsdbError ?? { kind: 'input' });
          for (const field of help.fields) {
            let want = expected(field, node, op, given, help.writes);
            if (want === undefined) continue;
            if (typeof want === 'function') want = want(error);
            assert.deepEqual(
              got.mindsdb[field.key],
              want,
              `msg.mindsdb.${field.key} (${got.error.message}): ${JSON.stringify(got.mindsdb)}`,
            );
          }
        });
      }
    }
  }
});
