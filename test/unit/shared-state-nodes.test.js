'use strict';
/**
 * Incremental mode and agent conversations on a shared state store (a mindsdb-state-store node on
 * the server node) against the machine's real PostgreSQL, each test in a schema of its own. The
 * other copy of the flows is a store instance of its own in this process (another copy id): a run
 * waits while the other copy's run holds the node's position, then reads after the position it
 * left (each row once across the pair); a run that cannot get it in time ends at Catch saying so;
 * a question sees the turns the other copy kept.
 */
const assert = require('node:assert/strict');
const { PgStore } = require('../../nodes/store');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { selectFrom } = require('../support/sql-table');
const { helper, node, catchNode, completeNode, flowWith, nextMessage, userDirEachCase } = require('../support/nr');
const { URL, sql, freshSchema, dropSchema, storeOptions } = require('../support/pg-store');
const { waitFor } = require('../support/wait');

const nodes = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-agent', 'mindsdb-state-store']
  .map(node)
  .concat([catchNode, completeNode]);
const T = (s) => `2024-01-01 10:00:${String(s).padStart(2, '0')}.000000`;

describe('incremental mode and conversations on a shared state store (PostgreSQL)', function () {
  this.timeout(30000);
  let fake;
  let schema;
  let table;
  const others = [];
  userDirEachCase('mindsdb-shared-nodes-');
  beforeEach(async () => {
    schema = freshSchema('sn');
    table = [];
    fake = await createFakeMindsDB().listen();
    fake.state.sql = selectFrom({ 'pg.readings': table }, ['ts', 'id', 'v']);
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
  });
  afterEach(async () => {
    await helper.unload();
    await Promise.all(others.splice(0).map((s) => s.close()));
    await fake.close();
    await dropSchema(schema);
  });
  const storeNode = () => ({
    id: 'store1',
    type: 'mindsdb-state-store',
    name: 'shared',
    url: URL,
    schema,
    tls: '',
    leaseSeconds: 5,
    forgetDays: 7,
  });
  const load = (def) =>
    helper.load(nodes, flowWith(def, { url: fake.url, stateStore: 'store1' }, [storeNode()]), {
      store1: { user: 'postgres' },
    });
  const otherCopy = () => {
    const s = new PgStore(storeOptions(schema, { leaseSeconds: 5 }));
    others.push(s);
    return s;
  };
  const add = (...rows) => {
    for (const [s, id] of rows) table.push({ ts: T(s), id, v: `r${id}` });
  };
  const SQL = {
    type: 'mindsdb-sql',
    query: 'SELECT * FROM pg.readings',
    database: '',
    databaseType: 'str',
    rowFormat: 'objects',
    split: false,
    rowsPerMsg: 100,
    incremental: true,
    watermarkColumn: 'ts',
    keyColumn: 'id',
  };
  const run = async (extra = {}) => {
    const got = nextMessage('out');
    helper.getNode('n1').receive({ payload: 1, ...extra });
    return (await got).payload.map((r) => r.id);
  };

  it("a run waits while the other copy's run holds the position, then reads after the position it left", async () => {
    add([1, 1], [2, 2], [3, 3]);
    await load(SQL);
    assert.deepEqual(await run(), [1, 2, 3]);
    add([4, 4], [5, 5]);
    // The other copy runs the same node: it sends row 4 and keeps its position, holding the lease a while.
    const positions = await otherCopy().positions('n1');
    const lease = await positions.acquire(1000);
    await lease.write({ ...lease.position, watermark: JSON.stringify(T(4)), tieKey: '4', rowsSent: 4 });
    const t0 = Date.now();
    const got = run();
    setTimeout(() => lease.release(), 600); // fault: the other copy's run holds the position for 600 ms
    assert.deepEqual(await got, [5], 'row 4 is not sent again');
    assert.ok(Date.now() - t0 >= 550, 'it waited for the other run');
    // The run lets go of the position just after its output (a commit of its own): waited for, not raced.
    const position = async () =>
      (await sql(`SELECT watermark, tie_key, rows_sent, holder FROM "${schema}".incremental_position`))[0];
    await waitFor(async () => (await position()).holder === null, { what: 'the position let go' });
    assert.deepEqual(await position(), { watermark: JSON.stringify(T(5)), tie_key: '5', rows_sent: '5', holder: null });
  });

  it('a run that cannot get the position within its time limit ends at Catch saying another copy runs the query', async () => {
    add([1, 1]);
    await load(SQL);
    const lease = await (await otherCopy().positions('n1')).acquire(1000);
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 1, timeout: 400 });
    const m = await caught;
    assert.match(m.error.message, /another copy of this flow is running this node's query .* within 400 ms/);
    assert.equal(fake.requestsTo('/sql/query').length, 0, 'no query without the position');
    await lease.release();
    assert.deepEqual(await run(), [1]);
  });

  it('a question sees the turns the other copy kept, and the other copy sees its answer', async () => {
    await load({
      type: 'mindsdb-agent',
      operation: 'completions',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'a1',
      itemNameType: 'str',
      streamMode: 'final',
      memory: true,
      conversationKey: 'topic',
      maxTurns: 20,
      idleMinutes: 60,
      historyOut: false,
    });
    const turns = await otherCopy().turns('n1');
    await turns.append('chat', 'turn-on-b', { question: 'asked on B', answer: 'answered on B' }, 20);
    const out = nextMessage('out');
    helper.getNode('n1').receive({ topic: 'chat', payload: 'asked on A' });
    await out;
    const sent = fake.requests.filter((r) => r.path.includes('/completions')).map((r) => r.body.messages);
    assert.deepEqual(sent.at(-1), [
      { question: 'asked on B', answer: 'answered on B' },
      { question: 'asked on A', answer: null },
    ]);
    assert.deepEqual(await turns.history('chat', 60_000), [
      { question: 'asked on B', answer: 'answered on B' },
      { question: 'asked on A', answer: 'answer to: asked on A' },
    ]);
  });
});
