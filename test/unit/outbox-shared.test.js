'use strict';
/**
 * The table node's outbox on a shared state store (a mindsdb-state-store node on the server node)
 * against the machine's real PostgreSQL (a schema per test), a PostgreSQL cluster of the test's own
 * where it must be restarted or ask for a password, and the in-process MindsDB stand-in: kept rows
 * live in PostgreSQL and go when MindsDB is back; a dead copy's rows are sent by this one within two
 * lease periods; a slow holder whose rows another copy took over gives no outcome; a store that
 * cannot be reached, or refuses the login, is said at deploy without the password, and a message it
 * cannot keep ends at Catch unsent; a commit whose answer was lost is looked up, and a PostgreSQL
 * restart mid-flow loses nothing and stores nothing twice.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PgStore } = require('../../nodes/store');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { portBelowEphemeral } = require('../support/ports');
const { helper, node, catchNode, completeNode, flowWith } = require('../support/nr');
const { waitFor, holdsFor } = require('../support/wait');
const { URL, sql, freshSchema, dropSchema, storeOptions } = require('../support/pg-store');
const { startCluster, PASSWORD } = require('../support/pg-cluster');
const { pgProxy } = require('../support/pg-proxy');

const nodes = [node('mindsdb-server'), node('mindsdb-table'), node('mindsdb-state-store'), catchNode, completeNode];
const LEASE_S = 2;

describe('the outbox on a shared state store (PostgreSQL)', function () {
  this.timeout(60000);
  let fake;
  let port;
  let dir;
  let schema;
  let got;
  const others = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-shared-'));
    helper.settings({ userDir: dir });
    schema = freshSchema('ob');
    port = await portBelowEphemeral();
    fake = createFakeMindsDB();
    fake.state.databases.set('pg', { id: 7, name: 'pg', type: 'data', engine: 'postgres', class_type: 'sql' });
    fake.state.tables.set('pg/readings', {
      name: 'readings',
      columns: [
        { name: 'id', type: 'int' },
        { name: 'temp', type: 'float' },
      ],
      rows: [],
    });
  });
  afterEach(async () => {
    await helper.unload();
    helper.settings({});
    await Promise.all(others.splice(0).map((s) => s.close()));
    await fake.close().catch(() => undefined);
    await dropSchema(schema).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const TABLE = {
    type: 'mindsdb-table',
    operation: 'insert',
    database: 'pg',
    databaseType: 'str',
    table: 'readings',
    tableType: 'str',
    select: '',
    replace: false,
    batch: true,
    batchSize: 100,
    batchWindow: 20,
    keyColumn: 'id',
    outbox: true,
    outboxSizeMB: 10,
    outboxMaxAgeH: 24,
  };
  /** The flow with a state store `store1` (`store`: its fields; `creds`: its credentials). */
  async function load(store = {}, creds = { user: 'postgres' }) {
    const storeNode = {
      id: 'store1',
      type: 'mindsdb-state-store',
      name: 'shared',
      url: URL,
      schema,
      tls: '',
      leaseSeconds: LEASE_S,
      forgetDays: 7,
      ...store,
    };
    await helper.load(
      nodes,
      flowWith(TABLE, { url: `http://127.0.0.1:${port}`, stateStore: 'store1', timeout: 3000 }, [storeNode]),
      { store1: creds },
    );
    got = { out: [], caught: [], completed: [] };
    for (const [id, list] of Object.entries({ out: got.out, caught: got.caught, completed: got.completed }))
      helper.getNode(id).on('input', (m) => list.push(m));
  }
  const send = (ids) => {
    for (const id of ids) helper.getNode('n1').receive({ _msgid: `m${id}`, payload: { id, temp: 20 } });
  };
  const stored = () => fake.state.tables.get('pg/readings').rows.map((r) => r.id);
  const inserts = () => fake.requestsTo('/sql/query').filter((r) => /^INSERT/.test(r.body.query));
  const kept = async (s = schema, query = sql) =>
    (await query(`SELECT count(*)::int AS n FROM "${s}".outbox`).catch(() => [{ n: -1 }]))[0].n;
  const statuses = () => helper.getNode('n1').status.args.map((a) => a[0]);
  const other = (extra = {}) => {
    const s = new PgStore(storeOptions(schema, { leaseSeconds: LEASE_S, ...extra }));
    others.push(s);
    return s;
  };
  /** Everything this Node-RED said: log lines, node errors and warnings, statuses. */
  const said = () =>
    JSON.stringify([
      helper.log().args,
      helper.getNode('n1').status.args,
      helper.getNode('n1').error.args,
      helper.getNode('store1')?.error?.args,
    ]);

  it('keeps messages in PostgreSQL while MindsDB is away and sends them in order when it is back; says where state is kept', async () => {
    await load();
    send([1, 2, 3]);
    await waitFor(() => got.completed.length === 3, { timeoutMs: 8000, what: 'three kept' });
    assert.equal(await kept(), 3, 'in the shared store');
    await fake.listen(port);
    await waitFor(() => got.out.length === 3, { timeoutMs: 10000, what: () => `3 outputs (${got.out.length})` });
    assert.deepEqual(
      got.out.map((m) => m._msgid),
      ['m1', 'm2', 'm3'],
    );
    assert.deepEqual(stored(), [1, 2, 3]);
    assert.deepEqual(got.caught, []);
    await waitFor(async () => (await kept()) === 0, { what: 'the outbox empty' });
    assert.match(
      said(),
      new RegExp(`state is kept in the PostgreSQL store \\\\"shared\\\\" \\(127.0.0.1:5432/test, schema ${schema}\\)`),
    );
  });

  it("sends a dead copy's kept messages within two lease periods of its death", async () => {
    await fake.listen(port);
    await load();
    send([1]);
    await waitFor(() => got.out.length === 1, { what: 'this copy works' });
    // Another copy of the same flows kept three readings of node n1 while MindsDB was away, then died.
    const dead = other();
    const rows = await dead.outbox('n1');
    const msg = (id) =>
      JSON.stringify({
        msg: { _msgid: `d${id}`, payload: { id, temp: 21 } },
        target: { database: 'pg', table: 'readings' },
      });
    await rows.insert(
      [10, 11, 12].map((id) => ({ uid: `dead-${id}`, acceptedAt: Date.now(), msg: msg(id), bytes: 60 })),
      false,
    );
    const died = Date.now();
    await dead.database.close(); // SIGKILL: no goodbye, its lease simply runs out
    await waitFor(() => got.out.length === 4, {
      timeoutMs: 4 * LEASE_S * 1000,
      what: () => `its rows sent (${got.out.length})`,
    });
    const leases = (Date.now() - died) / (LEASE_S * 1000);
    assert.ok(leases <= 2, `the first of them was sent ${leases.toFixed(2)} lease periods after its death`);
    assert.deepEqual(
      got.out.slice(1).map((m) => m._msgid),
      ['d10', 'd11', 'd12'],
    );
    assert.ok(got.out.slice(1).every((m) => m.mindsdb.replayed === true));
    assert.deepEqual(stored(), [1, 10, 11, 12]);
    assert.deepEqual(got.caught, []);
  });

  it('a slow holder whose rows another copy took over gives no outcome: no output, no Catch', async () => {
    await fake.listen(port);
    await load();
    let release;
    fake.fault(
      () =>
        new Promise((resolve) => {
          release = () => resolve(false);
        }),
    ); // the INSERT is held
    send([1, 2]);
    await waitFor(() => release !== undefined, { what: 'the INSERT at MindsDB' });
    // This copy stalls past its lease (a frozen container); another copy takes its rows over.
    await sql(`UPDATE "${schema}".copy SET lease_until = now() - interval '1 second'`);
    const next = other();
    const taken = await (await next.outbox('n1')).claim(0, 10);
    assert.equal(taken.length, 2, 'taken over');
    release();
    await waitFor(() => got.completed.length === 2, { what: 'their inputs ended' });
    await holdsFor(() => got.out.length === 0 && got.caught.length === 0, {
      forMs: 1500,
      what: 'no outcome from the slow holder',
    });
    assert.equal(await kept(), 2, 'the rows are the new holder’s, not deleted by the slow one');
  });

  it('a store that cannot be reached: said at deploy and on the ring, each message at Catch with why, nothing sent', async () => {
    await fake.listen(port);
    await load({ url: 'postgres://127.0.0.1:1/test' });
    send([1]);
    await waitFor(() => got.caught.length === 1, { timeoutMs: 10000, what: 'the message at Catch' });
    const m = got.caught[0];
    assert.match(
      m.error.message,
      /the outbox could not keep this message, so it was not sent: the PostgreSQL store "shared" \(127.0.0.1:1\/test, schema \w+\) could not .*ECONNREFUSED/,
    );
    assert.equal(m.mindsdb.stored, false);
    assert.deepEqual(inserts(), [], 'never sent unkept');
    assert.match(
      String(helper.getNode('store1').error.args[0][0]),
      /cannot open the state store: .*ECONNREFUSED.*is PostgreSQL running/,
    );
    await waitFor(
      () => statuses().some((s) => s.fill === 'red' && /^State store unreachable since \S+$/.test(s.text)),
      {
        what: () => `the store on the ring (${JSON.stringify(statuses().slice(-2))})`,
      },
    );
  });

  describe('on a PostgreSQL of its own (restarted, with a password)', () => {
    let cluster;
    before(async function () {
      this.timeout(120000);
      cluster = await startCluster();
    });
    after(() => cluster?.remove());
    const clusterSql = (text, values) => cluster.sql(text, values);

    it('wrong credentials: a clear error at deploy, each message at Catch, and the password nowhere', async () => {
      const wrong = 'not-the-Password-4711';
      await fake.listen(port);
      await load({ url: cluster.url }, { user: 'store', password: wrong });
      send([1]);
      await waitFor(() => got.caught.length === 1, { timeoutMs: 10000, what: 'the message at Catch' });
      assert.match(got.caught[0].error.message, /password authentication failed for user "store"/);
      assert.match(
        String(helper.getNode('store1').error.args[0][0]),
        /cannot open the state store: .*password authentication failed for user "store" \(check the state store node's user and password/,
      );
      assert.deepEqual(inserts(), []);
      const everything = said() + JSON.stringify(got.caught);
      assert.ok(!everything.includes(wrong), 'the password is in no log, status, error or msg');
      await helper.unload();
      // the same with the password written into the URL
      await load({ url: cluster.url.replace('//', `//store:${wrong}@`) }, {});
      send([2]);
      await waitFor(() => got.caught.length === 1, { timeoutMs: 10000, what: 'the message at Catch' });
      assert.ok(!(said() + JSON.stringify(got.caught)).includes(wrong), 'not from the URL either');
    });

    it('a PostgreSQL restart mid-flow: every message kept (the keeping waits for the store), stored once, none at Catch', async () => {
      await fake.listen(port);
      // a lease longer than the restart, as a deployment sets it (a restart of a few seconds, a 15 s lease)
      await load({ url: cluster.url, schema: 'restart', leaseSeconds: 10 }, { user: 'store', password: PASSWORD });
      let next = 1;
      const feeder = setInterval(() => send([next++, next++]), 20); // fault: 100 readings a second, on and on
      try {
        await waitFor(() => got.out.length > 50, { timeoutMs: 10000, what: 'messages flowing' });
        const downAt = got.out.length;
        await cluster.restart();
        assert.ok(next - 1 > downAt + 20, `messages kept coming during the restart (${next - 1 - downAt})`);
        await waitFor(() => got.out.length > next / 2 + 60, {
          timeoutMs: 20000,
          what: 'flowing again after the restart',
        });
      } finally {
        clearInterval(feeder);
      }
      const total = next - 1;
      await waitFor(() => got.out.length + got.caught.length === total, {
        timeoutMs: 20000,
        what: () => `every message has its outcome (${got.out.length} + ${got.caught.length} of ${total})`,
      });
      assert.deepEqual(
        got.caught.map((m) => m.error.message),
        [],
        'none at Catch: a restart is shorter than the two lease periods the keeping waits',
      );
      const rows = stored();
      assert.equal(new Set(rows).size, rows.length, 'nothing stored twice');
      assert.equal(new Set(got.out.map((m) => m._msgid)).size, got.out.length, 'one output each');
      assert.deepEqual(
        [...rows].sort((a, b) => a - b),
        Array.from({ length: total }, (_, i) => i + 1),
        'every message stored once',
      );
      await waitFor(async () => (await kept('restart', clusterSql)) === 0, { what: 'the outbox empty' });
    });

    it('a store that is away for a moment (stopped, started a second later): a message waits for it, is kept and sent, none at Catch', async () => {
      await fake.listen(port);
      await load({ url: cluster.url, schema: 'away', leaseSeconds: 5 }, { user: 'store', password: PASSWORD });
      send([1]);
      await waitFor(() => got.out.length === 1, { what: 'the store works' });
      cluster.stop();
      // the pool has dropped its dead connections: the next keep finds no store to connect to
      await waitFor(() => helper.getNode('store1').sharedStore.health.state === 'unreachable', {
        what: 'the store seen away',
      });
      send([2, 3]);
      await holdsFor(() => got.out.length + got.caught.length === 1, { forMs: 1000, what: 'they wait for the store' });
      cluster.start();
      await waitFor(() => got.out.length === 3, {
        timeoutMs: 15000,
        what: () => `kept and sent (${got.out.length}, caught ${got.caught.map((m) => m.error.message)})`,
      });
      assert.deepEqual(got.caught, []);
      assert.deepEqual(stored(), [1, 2, 3]);
    });

    for (const [what, tag] of [
      ['an insert', 'INSERT 0 3'],
      ['a delete', 'DELETE 3'],
    ])
      it(`${what} whose commit answer was lost is looked up (or repeated), never guessed: each message once`, async () => {
        const proxy = pgProxy({ host: '127.0.0.1', port: cluster.port });
        const proxyPort = await proxy.listen();
        try {
          await fake.listen(port);
          await load(
            { url: `postgres://127.0.0.1:${proxyPort}/store`, schema: `lost_${tag[0].toLowerCase()}` },
            { user: 'store', password: PASSWORD },
          );
          send([100]);
          await waitFor(() => got.out.length === 1, { what: 'the store open and working' });
          const dropped = proxy.dropAnswerOf(tag);
          send([1, 2, 3]);
          await dropped;
          await waitFor(() => got.out.length === 4, {
            timeoutMs: 15000,
            what: () =>
              `three outputs (${got.out.length - 1}, caught ${got.caught.length}: ${got.caught.map((m) => m.error.message)})`,
          });
          assert.deepEqual(got.caught, []);
          assert.deepEqual(stored(), [100, 1, 2, 3], 'stored once each');
          await waitFor(async () => (await kept(`lost_${tag[0].toLowerCase()}`, clusterSql)) === 0, {
            what: 'nothing left',
          });
        } finally {
          await helper.unload();
          await proxy.close();
        }
      });
  });
});
