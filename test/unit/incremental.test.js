'use strict';
/**
 * Incremental mode of the sql and view nodes (issue 33, part 1), against the test stand-in, which
 * answers each SELECT by running the statement as MindsDB's own parser read it
 * (../support/sql-table.js): so a rule that lives in the SQL text (the tie-break, the order) is
 * proven by what the rows are, not by the parameters sent. The position lives in the package's
 * store in a temporary user directory, as it would in Node-RED's.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { selectFrom } = require('../support/sql-table');
const {
  helper,
  node,
  catchNode,
  completeNode,
  flowWith,
  nextMessage,
  collect,
  userDirEachCase,
} = require('../support/nr');
const { waitFor, holdsFor } = require('../support/wait');
const { leaseStore } = require('../../nodes/store');

const nodes = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-view'].map(node).concat([catchNode, completeNode]);
const COLUMNS = ['ts', 'id', 'v'];
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
const T = (s) => `2024-01-01 10:00:${String(s).padStart(2, '0')}.000000`;

describe('incremental mode: new rows since the last run', function () {
  let fake;
  /** The table the stand-in reads: rows {ts, id, v} in insertion order (not sorted). */
  let table;
  beforeEach(async () => {
    table = [];
    fake = await createFakeMindsDB().listen();
    fake.state.sql = selectFrom({ 'pg.readings': table, 'mindsdb.v1': table }, COLUMNS);
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const userDir = userDirEachCase('mindsdb-incr-');
  const load = (def = {}, extra = []) => helper.load(nodes, flowWith({ ...SQL, ...def }, { url: fake.url }, extra));
  const add = (...rows) => {
    for (const [s, id] of rows) table.push({ ts: T(s), id, v: `r${id}` });
  };
  /** Runs the node once (an inject's message) and resolves with the rows it sent, by id. */
  const runOnce = async (id = 'n1') => {
    const got = nextMessage('out');
    helper.getNode(id).receive({ payload: Date.now() });
    return (await got).payload.map((r) => r.id);
  };
  const queries = () => fake.requestsTo('/sql/query').map((r) => r.body);
  const stored = () => {
    const lease = leaseStore(path.join(userDir.dir, 'node-red-mindsdb.sqlite'));
    try {
      return lease.store
        .statement('SELECT node, watermark, tie_key, rows_sent FROM incremental_position ORDER BY node')
        .all()
        .map((r) => ({ ...r }));
    } finally {
      lease.release();
    }
  };

  it('sends every row on the first run, in (watermark, key) order, then only the rows added since', async () => {
    add([2, 5], [1, 9], [1, 3], [3, 1]);
    await load();
    assert.deepEqual(await runOnce(), [3, 9, 5, 1]);
    assert.deepEqual(await runOnce(), [], 'nothing new: an empty array, nothing sent twice');
    add([4, 2], [3, 7]);
    assert.deepEqual(await runOnce(), [7, 2]);
    const sent = queries();
    assert.equal(
      sent[0].query,
      'SELECT * FROM (\nSELECT * FROM pg.readings\n) AS incremental_rows WHERE `ts` IS NOT NULL AND `id` IS NOT NULL ORDER BY `ts`, `id`',
      "the user's query stays as written, inside parentheses",
    );
    assert.deepEqual(
      sent[2].params,
      { incremental_watermark: T(3), incremental_key: 1 },
      'the position is bound by the server, not written into the text',
    );
  });

  it('rows that share the last watermark are neither lost nor sent twice', async () => {
    add([5, 1], [5, 2]);
    await load();
    assert.deepEqual(await runOnce(), [1, 2]);
    add([5, 3], [5, 4], [6, 1]); // same watermark as the last row sent, a later key; then a later watermark
    assert.deepEqual(await runOnce(), [3, 4, 1]);
    add([6, 2]);
    assert.deepEqual(await runOnce(), [2]);
  });

  it('never sends a row whose watermark or key is NULL (it has no place in the order)', async () => {
    add([1, 1], [2, 2]);
    table.push({ ts: null, id: 7, v: 'no watermark' }, { ts: T(3), id: null, v: 'no key' });
    await load();
    assert.deepEqual(await runOnce(), [1, 2]);
    assert.deepEqual(stored()[0].tie_key, '2');
  });

  it('keeps the position on disk per node, shows it in the status, and goes on from it after a restart', async () => {
    add([1, 1], [2, 2]);
    const second = {
      ...SQL,
      id: 'n2',
      z: 'f1',
      server: 'srv',
      wires: [['out']],
      name: '',
      outputProperty: 'payload',
      version: 1,
    };
    await load({}, [second]);
    assert.deepEqual(await runOnce('n1'), [1, 2]);
    assert.deepEqual(
      stored(),
      [{ node: 'n1', watermark: JSON.stringify(T(2)), tie_key: '2', rows_sent: 2 }],
      'n2 has no position yet',
    );
    await waitFor(() => helper.getNode('n1').status.lastCall.args[0].text === `2 new rows, after ${T(2)} / 2`, {
      timeoutMs: 2000,
      what: () => helper.getNode('n1').status.lastCall.args[0].text,
    });
    assert.deepEqual(await runOnce('n2'), [1, 2], 'each node has its own position');
    add([3, 3]);
    await helper.unload();
    await load({}, [second]); // a restart: the same user directory
    assert.equal(
      helper.getNode('n1').status.lastCall.args[0].text,
      `after ${T(2)} / 2`,
      'the status says where it stands from the start',
    );
    assert.deepEqual(await runOnce('n1'), [3]);
  });

  it('keeps the position before the rows leave: when the store cannot keep it (read-only), the rows are not sent, and the next run sends them', async () => {
    add([1, 1], [2, 2]);
    await load();
    assert.deepEqual(await runOnce(), [1, 2]);
    add([3, 3]);
    // The store refuses writes (a read-only disk: SQLite's query_only on the node's shared connection).
    const lease = leaseStore(path.join(userDir.dir, 'node-red-mindsdb.sqlite'));
    lease.store.statement('PRAGMA query_only = ON').get();
    const outputs = [];
    helper.getNode('out').on('input', (m) => outputs.push(m));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 1 });
    assert.match((await caught).error.message, /store .* could not keep an incremental position: .*readonly/);
    assert.equal(outputs.length, 0, 'nothing sent without its position kept');
    lease.store.statement('PRAGMA query_only = OFF').get();
    lease.release();
    assert.deepEqual(await runOnce(), [3]);
  });

  it('when the store cannot be opened, the node says so in red and every run fails with the reason, nothing sent', async () => {
    add([1, 1]);
    // The user directory is a file: no folder can be made there for the store.
    const blocked = path.join(userDir.dir, 'not-a-folder');
    require('node:fs').writeFileSync(blocked, '');
    helper.settings({ userDir: path.join(blocked, 'sub') });
    await load();
    const n1 = helper.getNode('n1');
    assert.equal(n1.status.lastCall.args[0].fill, 'red');
    assert.ok(
      n1.error.args.some((a) =>
        /incremental mode cannot keep its position: the MindsDB nodes' store .* could not be opened/.test(String(a[0])),
      ),
      JSON.stringify(n1.error.args),
    );
    const caught = nextMessage('caught');
    n1.receive({ payload: 1 });
    assert.match((await caught).error.message, /could not be opened/);
    assert.equal(queries().length, 0, 'no query without a position to keep');
  });

  describe('msg.reset', () => {
    beforeEach(() => add([1, 1], [2, 2], [2, 3], [3, 4]));

    const cases = [
      ['true: back to the first row', true, [1, 2, 3, 4], 'at the start'],
      ['{watermark, key}: the rows after that row', { watermark: T(2), key: 2 }, [3, 4], `after ${T(2)} / 2`],
      ['a watermark alone: the rows with a later watermark', T(2), [4], `after ${T(2)}`],
    ];
    for (const [what, reset, rows, statusText] of cases) {
      it(`${what}; the reset itself runs no query and sends nothing`, async () => {
        await load();
        assert.deepEqual(await runOnce(), [1, 2, 3, 4]);
        const before = queries().length;
        const done = nextMessage('completed');
        helper.getNode('n1').receive({ reset });
        await done;
        assert.equal(queries().length, before, 'no query');
        assert.equal(
          helper.getNode('n1').status.lastCall.args[0].text,
          statusText === 'at the start' ? 'mindsdb-sql.status.start' : statusText,
        );
        assert.deepEqual(await runOnce(), rows);
      });
    }

    it('a msg.reset it cannot read goes to Catch and leaves the position alone', async () => {
      await load();
      assert.deepEqual(await runOnce(), [1, 2, 3, 4]);
      for (const reset of [false, '', {}, { key: 3 }, [1]]) {
        const caught = nextMessage('caught');
        helper.getNode('n1').receive({ reset });
        assert.match((await caught).error.message, /msg.reset must be true/);
      }
      assert.deepEqual(await runOnce(), []);
    });
  });

  it('split: the position moves with each part; a result that breaks after two parts goes on after them, nothing lost or sent twice', async () => {
    for (let i = 1; i <= 6; i++) add([i, i]);
    await load({ split: true, rowsPerMsg: 2 });
    // The stand-in answers in lines of two rows; the first answer breaks after its second line.
    fake.state.jsonlinesBatch = 2;
    let broke = false;
    fake.state.faultPlan = (entry) => {
      if (broke || !entry.path.includes('/sql/query')) return null;
      broke = true;
      return (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/jsonlines' });
        res.write(`${JSON.stringify({ type: 'table', column_names: COLUMNS })}\n`);
        res.write(
          `${JSON.stringify([
            [T(1), 1, 'r1'],
            [T(2), 2, 'r2'],
          ])}\n${JSON.stringify([
            [T(3), 3, 'r3'],
            [T(4), 4, 'r4'],
          ])}\n`,
        );
        setTimeout(() => res.destroy(), 50); // fault: the answer breaks after two lines
      };
    };
    const parts = [];
    helper.getNode('out').on('input', (m) => parts.push(m));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 1 });
    const err = await caught;
    assert.equal(err.mindsdb.partsSent, parts.length);
    const first = parts.flatMap((m) => m.payload.map((r) => r.id));
    assert.ok(first.length >= 2 && first.length <= 4, `parts sent before the break: ${first}`);
    parts.length = 0;
    const all = collect('out', 3 - first.length / 2);
    helper.getNode('n1').receive({ payload: 2 });
    const rest = (await all).flatMap((m) => m.payload.map((r) => r.id));
    assert.deepEqual([...first, ...rest], [1, 2, 3, 4, 5, 6]);
  });

  it('runs take turns: two triggers at once never read the same rows', async () => {
    add([1, 1], [2, 2]);
    await load();
    const got = collect('out', 2);
    helper.getNode('n1').receive({ payload: 1 });
    helper.getNode('n1').receive({ payload: 2 });
    const [a, b] = await got;
    assert.deepEqual([a.payload.map((r) => r.id), b.payload.map((r) => r.id)], [[1, 2], []]);
  });

  it("keeps the user's query and its own parameters; refuses a parameter named like the node's", async () => {
    add([1, 1], [2, 2]);
    await load({ query: 'SELECT * FROM pg.readings WHERE id > :min' });
    const got = nextMessage('out');
    helper.getNode('n1').receive({ params: { min: 1 } });
    assert.deepEqual(
      (await got).payload.map((r) => r.id),
      [2],
    );
    assert.deepEqual(queries()[0].params, { min: 1 });
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ params: { min: 0, incremental_watermark: 'x' } });
    assert.match((await caught).error.message, /msg.params cannot hold "incremental_watermark"/);
  });

  const refused = [
    ['no key column', { keyColumn: '' }, {}, /needs a watermark column .* and a key column/],
    ['a native query', { nativeQuery: true }, {}, /cannot be used with a native query/],
    ['the same column twice', { keyColumn: 'ts' }, {}, /two different columns/],
    ['a column the rows do not have', { watermarkColumn: 'created' }, {}, /Column "created" not found/],
    [
      'a query that would leave its parentheses',
      { query: 'SELECT 1) UNION (SELECT 2' },
      {},
      /closes a parenthesis it did not open/,
    ],
  ];
  for (const [what, def, msg, pattern] of refused) {
    it(`refuses ${what} with an error at Catch`, async () => {
      add([1, 1]);
      await load(def);
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ payload: 1, ...msg });
      assert.match((await caught).error.message, pattern);
    });
  }

  it('refuses a key beyond 2^53 (JSON has already rounded it) rather than keep a wrong position', async () => {
    table.push({ ts: T(1), id: 2 ** 53 + 2, v: 'big' });
    await load();
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 1 });
    assert.match((await caught).error.message, /beyond 2\^53/);
  });

  it('a kept position for other columns is dropped at start, with a warning', async () => {
    add([1, 1], [2, 2]);
    await load();
    assert.deepEqual(await runOnce(), [1, 2]);
    await helper.unload();
    await load({ keyColumn: 'v' });
    const warned = helper.getNode('n1').warn.args.map((a) => String(a[0]));
    assert.ok(
      warned.some((w) => /kept position was for watermark "ts" and key "id"/.test(w)),
      warned.join('\n'),
    );
    assert.deepEqual(await runOnce(), [1, 2]);
  });

  it("the view node's query: the view's rows after the position", async () => {
    fake.state.views.set('mindsdb/v1', { id: 1, name: 'v1', query: 'SELECT * FROM pg.readings', project: 'mindsdb' });
    add([1, 1], [2, 2]);
    const view = {
      type: 'mindsdb-view',
      operation: 'query',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'v1',
      itemNameType: 'str',
      query: '',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
      incremental: true,
      watermarkColumn: 'ts',
      keyColumn: 'id',
    };
    await helper.load(nodes, flowWith(view, { url: fake.url }));
    assert.deepEqual(await runOnce(), [1, 2]);
    add([2, 3]);
    assert.deepEqual(await runOnce(), [3]);
    assert.match(
      queries().at(-1).query,
      /^SELECT \* FROM \(\nSELECT \* FROM `mindsdb`\.`v1`\n\) AS incremental_rows WHERE/,
    );
  });

  it('msg.reset during a split sequence waiting for its tick stops it (Catch: "reset"), frees its connection, and rewinds', async () => {
    for (let i = 1; i <= 4; i++) add([i, i]);
    await load({ split: true, rowsPerMsg: 1, flowControl: true, partsAhead: 1 });
    // The first answer is a long result still coming: two lines, then the server holds the rest.
    let socket;
    fake.state.faultPlan = (entry) =>
      entry.path.includes('/sql/query') && !socket
        ? (req, res) => {
            socket = req.socket;
            res.writeHead(200, { 'content-type': 'application/jsonlines' });
            res.write(
              `${JSON.stringify({ type: 'table', column_names: COLUMNS })}\n${JSON.stringify([[T(1), 1, 'r1']])}\n${JSON.stringify([[T(2), 2, 'r2']])}\n`,
            );
          }
        : null;
    let closed = false;
    const first = nextMessage('out');
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 1 });
    assert.deepEqual(
      (await first).payload.map((r) => r.id),
      [1],
    );
    socket.on('close', () => {
      closed = true;
    });
    await holdsFor(() => !closed, { forMs: 100, what: 'the paused answer stays open while it waits for a tick' });
    helper.getNode('n1').receive({ reset: true });
    const err = await caught;
    assert.equal(err.mindsdbError.kind, 'reset');
    assert.equal(err.mindsdb.partsSent, 1);
    await waitFor(() => closed, { timeoutMs: 1000, what: "the stopped sequence's connection closed" });
    fake.state.faultPlan = null;
    // Rewound: the next run starts at the first row again (flow control: a tick per part).
    const out = [];
    helper.getNode('out').on('input', (m) => {
      out.push(...m.payload.map((r) => r.id));
      helper.getNode('n1').receive({ tick: true, parts: m.parts });
    });
    helper.getNode('n1').receive({ payload: 2 });
    await waitFor(() => out.length === 4, { timeoutMs: 3000, what: () => `the whole table again (${out})` });
    assert.deepEqual(out, [1, 2, 3, 4]);
    await holdsFor(() => out.length === 4, { forMs: 100 });
  });

  describe('under flow control (msg.tick): a part is kept as done when its tick comes back', () => {
    const FC = { split: true, rowsPerMsg: 1, flowControl: true, partsAhead: 2 };
    /** The ids of each part as it comes out. */
    const watch = () => {
      const got = [];
      helper.getNode('out').on('input', (m) => got.push(m));
      return got;
    };
    const tickFor = (m) => helper.getNode('n1').receive({ tick: true, parts: m.parts });

    it('parts sent but not acknowledged are sent again after a restart; acknowledged ones are not', async () => {
      for (let i = 1; i <= 4; i++) add([i, i]);
      await load(FC);
      const got = watch();
      helper.getNode('n1').receive({ payload: 1 });
      await waitFor(() => got.length === 2, { what: () => `two parts out (${got.length})` });
      tickFor(got[0]); // the flow has done with row 1 only
      await waitFor(() => got.length === 3, { what: () => `a third part after the tick (${got.length})` });
      await waitFor(() => stored().length === 1, { what: 'the first part kept' });
      assert.deepEqual(
        stored().map((r) => r.tie_key),
        ['1'],
        'only the acknowledged part is kept',
      );
      await helper.unload(); // Node-RED stops (a kill keeps no less: the position is on disk)
      await load(FC);
      const again = watch();
      helper.getNode('n1').receive({ payload: 2 });
      await waitFor(() => again.length === 2, { what: () => `parts again (${again.length})` });
      assert.deepEqual(
        again.map((m) => m.payload[0].id),
        [2, 3],
        'from the first part not acknowledged',
      );
    });

    it('a run ends when every part is acknowledged: the next run waits for it, and reads after it', async () => {
      for (let i = 1; i <= 3; i++) add([i, i]);
      await load({ ...FC, partsAhead: 5 });
      const got = watch();
      helper.getNode('n1').receive({ payload: 1 });
      helper.getNode('n1').receive({ payload: 2 });
      await waitFor(() => got.length === 3, { what: () => `three parts out (${got.length})` });
      await holdsFor(() => queries().length === 1, {
        forMs: 150,
        what: 'the second run waits for the ticks of the first',
      });
      add([4, 4]);
      for (const m of got.slice(0, 3)) tickFor(m);
      await waitFor(() => got.length === 4, { what: () => `the second run's part (${got.length})` });
      assert.deepEqual(
        got.map((m) => m.payload[0].id),
        [1, 2, 3, 4],
      );
      assert.deepEqual(queries()[1].params, { incremental_watermark: T(3), incremental_key: 3 });
    });

    it('no tick for the last parts within the timeout: the run fails, and the next one sends them again', async () => {
      for (let i = 1; i <= 2; i++) add([i, i]);
      await load({ ...FC, partsAhead: 5 });
      const got = watch();
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ payload: 1, timeout: 300 });
      assert.match(
        (await caught).error.message,
        /no msg\.tick came back within 300 ms for the last 2 part\(s\): their rows were not kept as done/,
      );
      assert.deepEqual(stored(), []);
      helper.getNode('n1').receive({ payload: 2 });
      await waitFor(() => got.length === 4, { what: () => `the two rows again (${got.length})` });
      assert.deepEqual(
        got.map((m) => m.payload[0].id),
        [1, 2, 1, 2],
      );
    });
  });
});
