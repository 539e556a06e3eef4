'use strict';
/**
 * msg.mindsdb on every error (issue 32): every action node, every operation, and an error from
 * each of its three sources (MindsDB answers an error, the network refuses, the node's own check of
 * the message) reaches Catch with msg.mindsdb an object of this message: the fields the node's
 * success gives for that operation (operation, project, names as given), never the msg.mindsdb an
 * earlier node left on the message.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { helper, allNodes, flowWith, nextMessage } = require('../support/nr');

/** The node's saved fields: the declared defaults (filled in by the runtime), operation from the msg. */
const defaults = (node) => ({ ...(node.ops[0] ? { operation: 'msg' } : {}), ...node.def });

/**
 * Per node: its operations, a message for each that passes the node's own checks, and what
 * msg.mindsdb must say about it.
 */
const NODES = [
  { type: 'mindsdb-sql', ops: [null], msg: () => ({ query: 'SELECT 1' }), expect: () => ({}) },
  {
    type: 'mindsdb-predict',
    ops: [null],
    def: { model: 'home_rentals', modelType: 'str' },
    msg: () => ({ payload: { sqft: 1 } }),
    expect: () => ({ project: 'mindsdb', model: 'home_rentals' }),
  },
  {
    type: 'mindsdb-database',
    ops: ['list', 'get', 'create', 'update', 'delete'],
    msg: () => ({ name: 'd1', payload: { engine: 'postgres', parameters: { host: 'h' } } }),
    expect: (op) => ({ operation: op, ...(op === 'list' ? {} : { name: 'd1' }) }),
  },
  ...['chatbot', 'skill', 'agent'].map((kind) => ({
    type: `mindsdb-${kind}`,
    ops: ['list', 'get', 'create', 'update', 'delete', ...(kind === 'agent' ? ['completions'] : [])],
    msg: (op) => ({ name: 'r1', payload: op === 'completions' ? 'hello' : { model_name: 'm' } }),
    expect: (op) => ({ resource: kind, operation: op, project: 'mindsdb', name: 'r1' }),
  })),
  {
    type: 'mindsdb-file',
    ops: ['list', 'upload', 'delete'],
    msg: () => ({ name: 'f1', payload: 'a,b\n1,2\n' }),
    expect: (op) => ({ operation: op, ...(op === 'list' ? {} : { name: 'f1' }) }),
  },
  {
    type: 'mindsdb-job',
    ops: ['list', 'get', 'create', 'history', 'delete'],
    msg: () => ({ name: 'j1', payload: { query: 'SELECT 1' } }),
    expect: (op) => ({ resource: 'job', operation: op, project: 'mindsdb', name: 'j1' }),
  },
  {
    type: 'mindsdb-model',
    ops: ['list', 'get', 'describe', 'train', 'retrain', 'finetune', 'versions', 'activate', 'delete'],
    msg: () => ({
      model: 'm1',
      version: 2,
      payload: { database: 'files', select: 'SELECT * FROM t', predict: 'y', engine: 'e' },
    }),
    expect: (op) => ({ operation: op, project: 'mindsdb', model: 'm1', version: 2 }),
  },
  {
    type: 'mindsdb-knowledge-base',
    ops: ['list', 'get', 'create', 'insert', 'search', 'delete'],
    msg: (op) => ({ name: 'kb1', payload: op === 'search' ? 'warm' : op === 'insert' ? [{ content: 'x' }] : {} }),
    expect: (op) => ({ resource: 'knowledge_base', operation: op, project: 'mindsdb', name: 'kb1' }),
  },
  {
    type: 'mindsdb-table',
    ops: ['list', 'insert', 'create', 'delete'],
    msg: (op) => ({ database: 'pg', table: 't1', payload: op === 'create' ? 'SELECT 1 AS a' : { id: 1 } }),
    expect: (op) => ({ operation: op, database: 'pg', ...(op === 'list' ? {} : { table: 't1' }) }),
  },
  {
    type: 'mindsdb-project',
    ops: ['list', 'get', 'create', 'delete'],
    msg: () => ({ name: 'p1' }),
    expect: (op) => ({ resource: 'project', operation: op, name: 'p1' }),
  },
  {
    type: 'mindsdb-view',
    ops: ['list', 'get', 'create', 'update', 'delete', 'query'],
    msg: () => ({ name: 'v1', query: 'SELECT 1' }),
    expect: (op) => ({ resource: 'view', operation: op, project: 'mindsdb', name: 'v1' }),
  },
  {
    type: 'mindsdb-ml-engine',
    ops: ['list', 'handlers', 'create', 'delete'],
    msg: () => ({ name: 'e1', payload: { handler: 'openai' } }),
    expect: (op) => ({
      resource: 'ml_engine',
      operation: op,
      ...(op === 'create' || op === 'delete' ? { name: 'e1' } : {}),
    }),
  },
];

/** The three sources of an error. */
const SOURCES = {
  'MindsDB answers an error': {
    server: (fake) => {
      fake.state.faultPlan = () => FAULTS['HTTP 500'];
      return fake.url;
    },
  },
  'the network refuses': { server: () => 'http://127.0.0.1:1' },
  "the node's own check (msg.timeout)": { server: (fake) => fake.url, msg: { timeout: 'soon' } },
};

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
    for (const op of node.ops) {
      for (const [source, how] of Object.entries(SOURCES)) {
        it(`${node.type}${op ? ` ${op}` : ''} × ${source}`, async () => {
          const url = how.server(fake);
          await helper.load(
            allNodes(),
            flowWith({ type: node.type, ...defaults(node) }, { url, timeout: 2000, retries: 0 }),
          );
          const caught = nextMessage('caught');
          const msg = {
            ...node.msg(op),
            ...(op ? { operation: op } : {}),
            ...how.msg,
            mindsdb: { from: 'an earlier node', name: 'stale' },
          };
          helper.getNode('n1').receive(msg);
          const got = await caught;
          assert.ok(got.error, 'the message reached Catch with an error');
          assert.ok(got.mindsdb && typeof got.mindsdb === 'object', `msg.mindsdb is an object (${got.error.message})`);
          assert.equal(
            got.mindsdb.from,
            undefined,
            `msg.mindsdb is this message's, not an earlier node's: ${JSON.stringify(got.mindsdb)}`,
          );
          for (const [key, value] of Object.entries(node.expect(op))) {
            assert.deepEqual(
              got.mindsdb[key],
              value,
              `msg.mindsdb.${key} (${got.error.message}): ${JSON.stringify(got.mindsdb)}`,
            );
          }
        });
      }
    }
  }
});
