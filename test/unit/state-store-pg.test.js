'use strict';
/**
 * The shared state store (src/store/postgres, docs/state-store.md) against the machine's real
 * PostgreSQL, each test in a schema of its own: tables created and migrated once under an advisory
 * lock even when copies start at once, a store written by a newer release refused; outbox rows
 * claimed by one copy at a time (FOR UPDATE SKIP LOCKED), a dead copy's rows taken over once its
 * lease ran out, a slow holder fenced by the row's epoch; the incremental position's lease; the
 * conversations of both copies; the janitor. Two store instances with different copy ids in one
 * process are two copies here.
 */
const assert = require('node:assert/strict');
const { PgStore, StoreError } = require('../../nodes/store');
const { sql, freshSchema, dropSchema, storeOptions } = require('../support/pg-store');
const { waitFor, holdsFor } = require('../support/wait');

describe('the shared state store (PostgreSQL)', function () {
  this.timeout(30000);
  let schema;
  const stores = [];
  const open = (extra = {}) => {
    const s = new PgStore(storeOptions(schema, extra));
    stores.push(s);
    return s;
  };
  beforeEach(() => {
    schema = freshSchema();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await dropSchema(schema);
  });

  const row = (i) => ({ uid: `u${i}-${schema}`, acceptedAt: Date.now(), msg: JSON.stringify({ i }), bytes: 10 });
  /** Ends a copy as SIGKILL would: its connections go, its lease and rows stay as they were. */
  const kill = (store) => store.database.close();
  /** A copy that stalls past its lease (a GC pause, a frozen container): its lease runs out on the store's clock. */
  const stall = (store) =>
    sql(`UPDATE "${schema}".copy SET lease_until = now() - interval '1 second' WHERE id = $1`, [store.copy]);

  it('creates its schema and tables once, under an advisory lock, when four copies start at once', async () => {
    const copies = [open(), open(), open(), open()];
    await Promise.all(copies.map((s) => s.ready()));
    const versions = await sql(`SELECT feature, version FROM "${schema}".store_schema ORDER BY feature`);
    assert.deepEqual(
      versions.map((v) => `${v.feature}:${v.version}`),
      ['conversations:1', 'copies:1', 'incremental:1', 'outbox:1'],
    );
    const live = await sql(`SELECT count(*)::int AS n FROM "${schema}".copy WHERE lease_until > now()`);
    assert.equal(live[0].n, 4, 'each copy registered with a lease');
  });

  it('refuses a store written by a newer release, saying so', async () => {
    await open().ready();
    await sql(`UPDATE "${schema}".store_schema SET version = 99 WHERE feature = 'outbox'`);
    const later = open();
    await assert.rejects(
      () => later.ready(),
      (err) => err instanceof StoreError && /holds outbox version 99, newer than this package knows/.test(err.message),
    );
  });

  it('never gives one row to two copies: claims of two copies at once are disjoint and cover the backlog', async () => {
    const a = open();
    await (await a.outbox('n1')).insert(
      Array.from({ length: 300 }, (_, i) => row(i)),
      false,
    );
    await a.close(); // a graceful stop gives its rows back
    const b = open();
    const c = open();
    const drain = async (store) => {
      const rows = await store.outbox('n1');
      const got = [];
      for (;;) {
        const claimed = await rows.claim(0, 7);
        if (claimed.length === 0) return got;
        got.push(...claimed.map((r) => r.id));
        await rows.remove(claimed);
      }
    };
    const [fromB, fromC] = await Promise.all([drain(b), drain(c)]);
    const both = fromB.filter((id) => fromC.includes(id));
    assert.deepEqual(both, [], 'no row claimed by both');
    assert.equal(fromB.length + fromC.length, 300);
    assert.ok(fromB.length > 0 && fromC.length > 0, `both took part (${fromB.length} / ${fromC.length})`);
  });

  it("takes a dead copy's rows over once its lease ran out, within two lease periods, in doubt if they were in a request", async () => {
    const a = open();
    const rowsA = await a.outbox('n1');
    const kept = await rowsA.insert([row(1), row(2)], false);
    await rowsA.markSending([kept[0]]);
    const b = open();
    const rowsB = await b.outbox('n1');
    assert.deepEqual(await rowsB.claim(0, 10), [], "a live copy's rows are not taken");
    const died = Date.now();
    await kill(a);
    let claimed = [];
    await waitFor(
      async () => {
        claimed = await rowsB.claim(0, 10);
        return claimed.length === 2;
      },
      { timeoutMs: 6000, intervalMs: 100, what: "B takes A's rows" },
    );
    const leases = (Date.now() - died) / 2000;
    assert.ok(leases <= 2, `taken over after ${leases.toFixed(2)} lease periods`);
    assert.deepEqual(
      claimed.map((r) => [r.takenOver, r.inDoubt]),
      [
        [true, true],
        [true, false],
      ],
      'the row that was in a request is in doubt',
    );
    assert.ok(
      claimed.every((r, i) => r.epoch !== kept[i].epoch),
      'under a new epoch',
    );
  });

  it('fences a slow holder: after a takeover its mark, delete and release change nothing', async () => {
    const a = open();
    const rowsA = await a.outbox('n1');
    const held = await rowsA.insert([row(1), row(2)], false);
    const b = open();
    const rowsB = await b.outbox('n1');
    await stall(a);
    const taken = await rowsB.claim(0, 10);
    assert.equal(taken.length, 2);
    assert.deepEqual([...(await rowsA.markSending(held))].sort(), held.map((h) => h.id).sort(), 'mark refused');
    await rowsA.release(held, true);
    assert.deepEqual([...(await rowsA.remove(held))].sort(), held.map((h) => h.id).sort(), 'delete refused');
    const left = await sql(`SELECT id, in_doubt, holder FROM "${schema}".outbox ORDER BY id`);
    assert.deepEqual(
      left.map((r) => [Number(r.id), r.in_doubt, r.holder]),
      held.map((h) => [h.id, false, b.copy]),
    );
    assert.deepEqual(await rowsB.remove(taken), new Set(), 'the new holder removes them');
  });

  it("the position's lease: one run of one copy at a time; the next reads where the last left; a slow holder's write is refused", async () => {
    const a = open();
    const b = open();
    const posA = await a.positions('n1');
    const posB = await b.positions('n1');
    const leaseA = await posA.acquire(1000);
    assert.equal(leaseA.position, undefined);
    await assert.rejects(
      () => posB.acquire(300),
      (err) => err instanceof StoreError && /another copy of this flow is running this node's query/.test(err.message),
    );
    const p = { watermarkColumn: 'ts', keyColumn: 'id', watermark: '"2024-01-01"', tieKey: '7', rowsSent: 3 };
    await leaseA.write(p);
    const waiting = posB.acquire(5000); // waits for A's run
    let taken = false;
    waiting.then(() => {
      taken = true;
    });
    await holdsFor(() => !taken, { forMs: 200, what: "B waits while A's run holds the position" });
    await leaseA.release();
    const leaseB = await waiting;
    assert.deepEqual(leaseB.position, p, "B goes on from A's position");
    // B stalls past its lease; A takes the position over; B's write is refused, and every later one
    await sql(`UPDATE "${schema}".incremental_position SET lease_until = now() - interval '1 second'`);
    const again = await posA.acquire(1000);
    await assert.rejects(
      () => leaseB.write({ ...p, watermark: '"2024-01-02"' }),
      (err) => err instanceof StoreError && /another copy took over this node's position/.test(err.message),
    );
    assert.deepEqual(again.position, p);
    assert.deepEqual(await posB.read(), p, "the slow holder's write changed nothing");
    await again.release();
  });

  it('conversations: a question to either copy sees the turns of both; a turn written twice is kept once', async () => {
    const a = open();
    const b = open();
    const ta = await a.turns('agent1');
    const tb = await b.turns('agent1');
    await ta.append('chat', 'uid-1', { question: 'q1', answer: 'a1' }, 20);
    await tb.append('chat', 'uid-2', { question: 'q2', answer: 'a2' }, 20);
    await tb.append('chat', 'uid-2', { question: 'q2', answer: 'a2' }, 20); // repeated after a lost answer
    const turns = [
      { question: 'q1', answer: 'a1' },
      { question: 'q2', answer: 'a2' },
    ];
    assert.deepEqual(await ta.history('chat', 60_000), turns);
    assert.deepEqual(await tb.history('chat', 60_000), turns);
    await ta.append('chat', 'uid-3', { question: 'q3', answer: 'a3' }, 2);
    assert.deepEqual(await tb.history('chat', 60_000), [turns[1], { question: 'q3', answer: 'a3' }], 'the last 2');
    await sql(`UPDATE "${schema}".agent_turn SET at = at - interval '2 minutes'`);
    assert.deepEqual(await tb.history('chat', 60_000), [], 'idle on the store clock: forgotten');
  });

  it('the janitor deletes the rows of nodes no copy ran for forgetDays, and copies gone for a day, one copy at a time', async () => {
    const a = open({ forgetDays: 1 });
    const b = open({ forgetDays: 1 });
    await (await a.outbox('gone')).insert([row(1)], false);
    await (await a.outbox('kept')).insert([row(2)], false);
    await (await a.turns('gone')).append('c', 'uid-g', { question: 'q', answer: 'a' }, 5);
    const pos = await (await a.positions('gone')).acquire(1000);
    await pos.write({ watermarkColumn: 'ts', keyColumn: 'id', watermark: '1', tieKey: '1', rowsSent: 1 });
    await pos.release();
    a.use('kept');
    await waitFor(async () => (await sql(`SELECT count(*)::int AS n FROM "${schema}".node_seen`))[0].n === 1, {
      what: 'kept seen',
    });
    // 'gone' has rows but was never seen: adopted as seen now, then made two days old
    assert.equal(await b.clean(), 0, 'nothing is older than a day yet');
    await sql(`UPDATE "${schema}".node_seen SET seen_at = now() - interval '2 days' WHERE node = 'gone'`);
    await sql(`INSERT INTO "${schema}".copy (id, host, lease_until) VALUES ('old', 'h', now() - interval '25 hours')`);
    assert.equal(await b.clean(), 3, 'the outbox row, the turn and the position of "gone"');
    const left = await sql(`SELECT node FROM "${schema}".outbox UNION ALL SELECT node FROM "${schema}".agent_turn
      UNION ALL SELECT node FROM "${schema}".incremental_position`);
    assert.deepEqual(
      left.map((r) => r.node),
      ['kept'],
    );
    assert.deepEqual(await sql(`SELECT id FROM "${schema}".copy WHERE id = 'old'`), []);
  });
});
