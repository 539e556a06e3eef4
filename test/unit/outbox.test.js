'use strict';
/**
 * The table node's durable outbox (src/runtime/outbox/outbox.ts) against the in-process stand-in
 * (a PostgreSQL-like table) and the real store file in a temporary user directory: messages are
 * kept on disk while MindsDB is away and sent in arrival order, micro-batched, when it is back
 * (after a restart too); each failure class is kept or reported as issue 31 says; a write whose
 * answer was lost is looked up by its key column before it goes again, and without one ends as
 * stored: "unknown"; the bounds (MB, age) and a full disk end messages at Catch with what happened.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { portBelowEphemeral } = require('../support/ports');
const { helper, node, catchNode, completeNode } = require('../support/nr');
const { waitFor, holdsFor } = require('../support/wait');
const { leaseStore } = require('../../nodes/store');

const nodes = [node('mindsdb-server'), node('mindsdb-table'), catchNode, completeNode];
const STORE = 'node-red-mindsdb.sqlite';

describe('the outbox (table node)', function () {
  this.timeout(30000);
  let fake;
  let port;
  let dir;
  let outs;
  let caught;
  let completed;
  let warnings;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-outbox-'));
    helper.settings({ userDir: dir });
    port = await portBelowEphemeral();
    fake = createFakeMindsDB();
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
        { name: 'temp', type: 'float' },
      ],
      rows: [],
    });
  });
  afterEach(async () => {
    await helper.unload();
    helper.settings({});
    await fake.close().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const table = (def = {}) => ({
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
    ...def,
  });
  async function load(def, server = {}) {
    await helper.load(nodes, [
      { id: 'f1', type: 'tab', label: 'outbox' },
      {
        id: 'srv',
        type: 'mindsdb-server',
        name: 'local MindsDB',
        url: `http://127.0.0.1:${port}`,
        apiPrefix: '/api',
        authMode: 'none',
        timeout: 5000,
        retries: 0,
        maxInFlight: 8,
        maxQueue: 1000,
        maxResponseMB: 64,
        ...server,
      },
      {
        id: 'n1',
        z: 'f1',
        server: 'srv',
        wires: [['out']],
        name: '',
        outputProperty: 'payload',
        version: 1,
        ...table(def),
      },
      { id: 'out', z: 'f1', type: 'helper' },
      { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', z: 'f1', type: 'helper' },
      { id: 'completer', z: 'f1', type: 'complete', scope: ['n1'], uncaught: false, wires: [['completed']] },
      { id: 'completed', z: 'f1', type: 'helper' },
    ]);
    outs = [];
    caught = [];
    completed = [];
    warnings = [];
    helper.getNode('out').on('input', (m) => outs.push(m));
    helper.getNode('caught').on('input', (m) => caught.push(m));
    helper.getNode('completed').on('input', (m) => completed.push(m));
    helper.getNode('n1').on('call:warn', (c) => warnings.push(String(c.args[0])));
  }
  const send = (ids) => {
    for (const id of ids) helper.getNode('n1').receive({ _msgid: `m${id}`, payload: { id, temp: 20 + id / 10 } });
  };
  const stored = () => fake.state.tables.get('pg/readings').rows.map((r) => r.id);
  const inserts = () => fake.requestsTo('/sql/query').filter((r) => /^INSERT/.test(r.body.query));
  /** The rows of the store file's outbox, read through this process's connection to it. */
  function keptRows() {
    const lease = leaseStore(path.join(dir, STORE));
    try {
      return lease.store.statement('SELECT id, in_doubt, sending FROM outbox ORDER BY id').all();
    } finally {
      lease.release();
    }
  }
  const statuses = () => helper.getNode('n1').status.args.map((a) => a[0]);
  const ids = (msgs) => msgs.map((m) => m._msgid);

  it('keeps messages on disk while MindsDB is away (each input ends, none at Catch), shows the backlog, and sends them in arrival order, micro-batched, once it is back', async () => {
    await load();
    send([1, 2, 3, 4, 5]);
    await waitFor(() => completed.length === 5, {
      timeoutMs: 5000,
      what: () => `5 inputs ended (${completed.length})`,
    });
    assert.deepEqual(outs, []);
    assert.deepEqual(caught, []);
    assert.equal(keptRows().length, 5, 'all five on disk');
    await waitFor(
      () => statuses().some((s) => s.fill === 'red' && /^MindsDB unreachable since \S+, 5 kept$/.test(s.text)),
      { timeoutMs: 5000, what: () => `the backlog on the red ring (${JSON.stringify(statuses().slice(-3))})` },
    );
    send([6]);
    await waitFor(() => completed.length === 6, { timeoutMs: 5000, what: 'the sixth kept' });
    assert.equal(keptRows().length, 6);

    await fake.listen(port);
    await waitFor(() => outs.length === 6, {
      timeoutMs: 8000,
      what: () => `6 outputs after MindsDB came back (${outs.length})`,
    });
    assert.deepEqual(ids(outs), ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'], 'in arrival order, each once');
    assert.deepEqual(stored(), [1, 2, 3, 4, 5, 6]);
    assert.equal(inserts().length, 1, 'one INSERT for the six: the replay is micro-batched');
    for (const m of outs)
      assert.deepEqual(m.mindsdb, {
        operation: 'insert',
        database: 'pg',
        table: 'readings',
        rows: 1,
        stored: true,
        replayed: true,
      });
    assert.deepEqual(caught, []);
    assert.deepEqual(keptRows(), [], 'nothing left');
    await waitFor(() => statuses().at(-1).text === 'mindsdb-table.status.serverUp', {
      timeoutMs: 3000,
      what: () => `the green ring (${JSON.stringify(statuses().at(-1))})`,
    });

    // healthy again: a new message goes at once (through the outbox), with its own output
    send([7]);
    await waitFor(() => outs.length === 7, { timeoutMs: 3000, what: 'the live message' });
    assert.deepEqual(outs[6].mindsdb, {
      operation: 'insert',
      database: 'pg',
      table: 'readings',
      rows: 1,
      stored: true,
    });
    assert.equal(completed.length, 7);
  });

  it('a burst larger than one commit (1,200 in one turn, written 500 at a time): kept, stored once each, its outputs in arrival order, from the backlog and live', async () => {
    await load();
    const burst = Array.from({ length: 1200 }, (_, i) => i + 1);
    send(burst);
    await waitFor(() => completed.length === 1200, {
      timeoutMs: 10000,
      what: () => `1,200 inputs ended (${completed.length})`,
    });
    assert.equal(keptRows().length, 1200, 'all on disk while MindsDB is away');
    await fake.listen(port);
    await waitFor(() => outs.length === 1200, { timeoutMs: 15000, what: () => `1,200 outputs (${outs.length})` });
    // Batches go side by side (docs/outbox.md, Order): rows land once each; outputs leave in arrival order.
    const sorted = () => [...stored()].sort((a, b) => a - b);
    assert.deepEqual(sorted(), burst, 'stored once each');
    assert.deepEqual(
      ids(outs),
      burst.map((i) => `m${i}`),
      'outputs in arrival order',
    );
    const live = burst.map((i) => i + 1200);
    send(live);
    await waitFor(() => outs.length === 2400, { timeoutMs: 15000, what: () => `1,200 live outputs (${outs.length})` });
    assert.deepEqual(sorted(), [...burst, ...live], 'live: each once');
    assert.deepEqual(
      ids(outs.slice(1200)),
      live.map((i) => `m${i}`),
      'live outputs in arrival order',
    );
    assert.deepEqual(caught, []);
    assert.deepEqual(keptRows(), [], 'nothing left');
  });

  it('a message sent at once costs its row two writes: written as in a request already, then deleted (never marked again)', async () => {
    await fake.listen(port);
    await load();
    // SQLite's total_changes() counts the rows this process's connection to the file inserted, updated or deleted.
    const changes = () => {
      const lease = leaseStore(path.join(dir, STORE));
      try {
        return lease.store.statement('SELECT total_changes() AS n').get().n;
      } finally {
        lease.release();
      }
    };
    send([1]);
    await waitFor(() => outs.length === 1, { timeoutMs: 10000, what: () => 'the first output' });
    const before = changes();
    const live = Array.from({ length: 300 }, (_, i) => i + 2);
    send(live);
    await waitFor(() => outs.length === 301, { timeoutMs: 15000, what: () => `300 live outputs (${outs.length})` });
    await waitFor(() => keptRows().length === 0, { timeoutMs: 5000, what: () => 'every row deleted' });
    assert.equal(changes() - before, 600, 'each row inserted once and deleted once, none updated');
    assert.deepEqual(stored(), [1, ...live]);
    assert.deepEqual(caught, []);
  });

  it('survives a restart: what was kept is sent by the node when it starts again on the same user directory', async () => {
    await load();
    send([1, 2, 3]);
    await waitFor(() => completed.length === 3 && keptRows().length === 3, { timeoutMs: 5000, what: 'three kept' });
    await helper.unload();
    await fake.listen(port);
    await load();
    await waitFor(() => outs.length === 3, {
      timeoutMs: 8000,
      what: () => `3 outputs after the restart (${outs.length})`,
    });
    assert.deepEqual(ids(outs), ['m1', 'm2', 'm3']);
    assert.deepEqual(stored(), [1, 2, 3]);
    assert.deepEqual(keptRows(), []);
  });

  it('a write whose answer was lost: with a key column, looked up first and not sent again when found', async () => {
    await fake.listen(port);
    await load();
    let lost = 1;
    fake.state.faultPlan = (e) =>
      typeof e.body?.query === 'string' && /^INSERT/.test(e.body.query) && lost-- > 0
        ? FAULTS['answer lost after the write']
        : null;
    send([1, 2]);
    await waitFor(() => outs.length === 2, {
      timeoutMs: 12000,
      what: () => `2 outputs (${outs.length}, caught ${caught.length})`,
    });
    assert.deepEqual(stored(), [1, 2], 'stored once each');
    assert.equal(inserts().length, 1, 'never sent again');
    const lookups = fake.requestsTo('/sql/query').filter((r) => /^SELECT id FROM/.test(r.body.query));
    assert.equal(lookups.length, 1);
    assert.deepEqual(lookups[0].body.params, { p1: 1, p2: 2 });
    for (const m of outs) assert.equal(m.mindsdb.alreadyStored, true);
    assert.deepEqual(caught, []);
  });

  it("a write in doubt is looked up only once its lost request cannot still be running (the server's timeout after it was lost): a late commit is found, not stored twice", async () => {
    await fake.listen(port);
    await load({}, { timeout: 2000 });
    let lost = 1;
    let lostAt = 0;
    // The connection drops at once, but MindsDB goes on with the INSERT and commits it a second later.
    fake.state.faultPlan = (e) =>
      typeof e.body?.query === 'string' && /^INSERT/.test(e.body.query) && lost-- > 0
        ? (req) => {
            lostAt = Date.now();
            req.socket.destroy();
            const { p1, p2 } = e.body.params;
            // fault: the server commits after the client is gone
            setTimeout(() => fake.state.tables.get('pg/readings').rows.push({ id: p1, temp: p2 }), 1000);
          }
        : null;
    send([1]);
    await waitFor(() => outs.length === 1, {
      timeoutMs: 10000,
      what: () => `the output (caught ${caught.length}: ${caught.map((m) => m.error.message).join('; ')})`,
    });
    const lookup = fake.requestsTo('/sql/query').find((r) => /^SELECT id FROM/.test(r.body.query));
    assert.equal(
      lookup.body.query,
      'SELECT id FROM `pg`.`readings` WHERE id = :p1',
      'one key is looked up with =: MindsDB writes IN (:p1) as IN 1',
    );
    assert.ok(
      lookup.at >= lostAt + 2000,
      `looked up after the server's timeout (${lookup.at - lostAt} ms after the answer was lost)`,
    );
    assert.deepEqual(stored(), [1], 'stored once: the late commit was found');
    assert.equal(outs[0].mindsdb.alreadyStored, true);
    assert.equal(inserts().length, 1);
    assert.ok(lostAt > 0);
  });

  it('a write whose answer was lost, without a key column: each message ends at Catch with stored "unknown", and is not kept', async () => {
    await fake.listen(port);
    await load({ keyColumn: '' });
    let lost = 1;
    fake.state.faultPlan = (e) =>
      typeof e.body?.query === 'string' && /^INSERT/.test(e.body.query) && lost-- > 0
        ? FAULTS['answer lost after the write']
        : null;
    send([1, 2]);
    await waitFor(() => caught.length === 2, { timeoutMs: 8000, what: 'two at Catch' });
    for (const m of caught) assert.equal(m.mindsdb.stored, 'unknown');
    assert.deepEqual(stored(), [1, 2]);
    assert.equal(inserts().length, 1);
    assert.deepEqual(keptRows(), []);
  });

  it('keeps what the server refused without doing it (503, 429), and reports at once what it refused for itself (an SQL error for a row)', async () => {
    await fake.listen(port);
    await load({ batch: false });
    let busy = 2;
    fake.state.faultPlan = (e) =>
      typeof e.body?.query === 'string' && /^INSERT/.test(e.body.query) && busy-- > 0
        ? FAULTS[busy ? 'HTTP 503' : 'HTTP 429 with Retry-After']
        : null;
    send([1]);
    await waitFor(() => outs.length === 1, {
      timeoutMs: 10000,
      what: () => `the refused message stored later (${outs.length}, caught ${caught.length})`,
    });
    assert.deepEqual(stored(), [1]);
    helper.getNode('n1').receive({ _msgid: 'bad', payload: { id: 2, temp: 'warm' } });
    await waitFor(() => caught.length === 1, { timeoutMs: 5000, what: 'the bad row at Catch' });
    assert.equal(caught[0]._msgid, 'bad');
    assert.equal(caught[0].mindsdb.stored, false);
    assert.match(caught[0].error.message, /invalid input syntax/);
    assert.deepEqual(keptRows(), [], 'a row refused for itself is not kept');
  });

  it('bounds: a message that does not fit reaches Catch at once; kept messages older than the maximum age reach Catch unsent', async () => {
    // a few messages fit in 600 bytes (each is its JSON with its target, 100 to 200 bytes)
    await load({ outboxSizeMB: 600 / 1048576, outboxMaxAgeH: 1.5 / 3600 });
    send([1, 2, 3, 4, 5, 6, 7, 8]);
    await waitFor(() => completed.length + caught.length === 8, {
      timeoutMs: 5000,
      what: 'eight inputs ended (kept, or at Catch)',
    });
    const full = caught.filter((m) => m.mindsdbError?.code === 'EOUTBOXFULL');
    assert.ok(full.length >= 2 && full.length <= 6, `${full.length} did not fit`);
    for (const m of full) {
      assert.match(
        m.error.message,
        /outbox is full \(\d+ message\(s\), .* of its 1 kB\): the message was not kept and not sent/,
      );
      assert.equal(m.mindsdb.stored, false);
    }
    const keptIds = keptRows().length;
    assert.equal(keptIds + full.length, 8);
    await waitFor(() => caught.length === 8, {
      timeoutMs: 6000,
      what: () => `the kept ones expired (${caught.length} at Catch)`,
    });
    const expired = caught.filter((m) => m.mindsdbError?.code === 'EOUTBOXEXPIRED');
    assert.equal(expired.length, keptIds);
    for (const m of expired) {
      assert.match(
        m.error.message,
        /kept in the outbox since \S+, longer than its maximum age of 2 s, while MindsDB could not take it: not sent$/,
      );
      assert.equal(m.mindsdb.stored, false);
    }
    assert.deepEqual(keptRows(), []);
    assert.equal(new Set(caught.map((m) => m._msgid)).size, 8, 'one outcome each');
    assert.deepEqual(outs, []);
  });

  it('a full disk: a message the outbox cannot keep ends at Catch with why (stored: false) and is not sent; once there is room again, messages are kept and sent', async () => {
    await fake.listen(port);
    await load();
    // SQLite's own size cap on the store this Node-RED shares: the same SQLITE_FULL a full disk gives.
    const lease = leaseStore(path.join(dir, STORE));
    const pages = lease.store.statement('PRAGMA page_count').get().page_count;
    lease.store.statement(`PRAGMA max_page_count = ${pages}`).get();
    try {
      // each message larger than a page, so that keeping it needs a page the cap refuses
      for (const id of [1, 2, 3])
        helper.getNode('n1').receive({ _msgid: `m${id}`, payload: { id, temp: 20 }, trace: 'x'.repeat(8000) });
      await waitFor(() => caught.length === 3, { timeoutMs: 8000, what: () => `three at Catch (${caught.length})` });
      for (const m of caught) {
        assert.match(
          m.error.message,
          /^MindsDBError: the outbox could not keep this message, so it was not sent: the MindsDB nodes' store \(.*node-red-mindsdb\.sqlite\) could not keep messages in the outbox: .*free space\)$/,
        );
        assert.equal(m.mindsdb.stored, false);
      }
      assert.deepEqual(inserts(), [], 'never sent unkept');
      assert.deepEqual(outs, []);
      lease.store.statement('PRAGMA max_page_count = 1073741823').get();
      send([4]);
      await waitFor(() => outs.length === 1, { timeoutMs: 5000, what: 'the next message kept and sent' });
      assert.deepEqual(stored(), [4]);
      assert.deepEqual(keptRows(), []);
      assert.equal(caught.length, 3);
    } finally {
      lease.release();
    }
  });

  it('msg.reset drops the open micro-batch with its kept messages: each ends at Catch with the reset error, stored: false, and leaves the outbox', async () => {
    await fake.listen(port);
    await load({ batchWindow: 60000, batchSize: 1000 });
    send([1, 2]);
    await waitFor(() => keptRows().length === 2, { timeoutMs: 3000, what: 'two kept, waiting in the batch' });
    helper.getNode('n1').receive({ reset: true });
    await waitFor(() => caught.length === 2, { timeoutMs: 3000, what: 'both at Catch' });
    for (const m of caught) {
      assert.equal(m.mindsdbError.kind, 'reset');
      assert.equal(m.mindsdb.stored, false, 'nothing of a dropped batch was sent');
    }
    await waitFor(() => keptRows().length === 0, { timeoutMs: 3000, what: 'the outbox empty' });
    assert.deepEqual(inserts(), []);
  });

  it('no probe while inserts are answered', async () => {
    await fake.listen(port);
    await load();
    send([1]);
    await waitFor(() => outs.length === 1, { timeoutMs: 3000, what: 'the first output' });
    let next = 2;
    await holdsFor(
      () => {
        send([next++]);
        return fake.requestsTo('/util/readiness').length === 0;
      },
      { forMs: 600, intervalMs: 50, what: 'no probe' },
    );
  });
});
