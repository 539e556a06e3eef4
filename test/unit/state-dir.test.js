'use strict';
/**
 * Where the embedded store lives (docs/state-store.md): the Node-RED user directory by default;
 * settings.js `mindsdb.stateDir`, then NODE_RED_MINDSDB_STATE_DIR, put it elsewhere (a mounted
 * volume); the log says once where state is kept. And its janitor: the rows of a node no longer
 * run for the forget period go; a node's rows from before the janitor are adopted, not deleted.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, completeNode, flowWith, nextMessage } = require('../support/nr');
const { leaseStore, EmbeddedStore } = require('../../nodes/store');

const nodes = ['mindsdb-server', 'mindsdb-sql'].map(node).concat([catchNode, completeNode]);
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
const FILE = 'node-red-mindsdb.sqlite';

describe('where the embedded store lives', function () {
  let fake;
  let dirs;
  const dir = (name) => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), `mindsdb-${name}-`));
    dirs.push(d);
    return d;
  };
  beforeEach(async () => {
    dirs = [];
    fake = await createFakeMindsDB().listen();
    fake.state.sql = () => ({ type: 'table', column_names: ['ts', 'id'], data: [[1, 1]] });
  });
  afterEach(async () => {
    await helper.unload();
    helper.settings({});
    delete process.env.NODE_RED_MINDSDB_STATE_DIR;
    await fake.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  /** Loads the flow, runs the node once (its position is kept), and returns what the log said of the store. */
  async function runWith(settings) {
    helper.settings(settings);
    await helper.load(nodes, flowWith(SQL, { url: fake.url }));
    const out = nextMessage('out');
    helper.getNode('n1').receive({ payload: 1 });
    await out;
    return helper
      .log()
      .args.map((a) => a[0]?.msg)
      .filter((m) => /state is kept/.test(String(m)));
  }

  it('the user directory by default, said once in the log', async () => {
    const user = dir('user');
    const said = await runWith({ userDir: user });
    assert.ok(fs.existsSync(path.join(user, FILE)));
    assert.deepEqual(said, [
      `[mindsdb] state is kept in ${path.join(user, FILE)} (embedded SQLite; the Node-RED user directory)`,
    ]);
  });

  it('settings.js mindsdb.stateDir first, then NODE_RED_MINDSDB_STATE_DIR', async () => {
    const user = dir('user');
    const volume = dir('volume');
    const env = dir('env');
    process.env.NODE_RED_MINDSDB_STATE_DIR = env;
    const said = await runWith({ userDir: user, mindsdb: { stateDir: path.join(volume, 'storage') } });
    const file = path.join(volume, 'storage', FILE);
    assert.ok(fs.existsSync(file), 'the folder is made');
    assert.ok(!fs.existsSync(path.join(user, FILE)) && !fs.existsSync(path.join(env, FILE)));
    assert.deepEqual(said, [`[mindsdb] state is kept in ${file} (embedded SQLite; settings.js mindsdb.stateDir)`]);
    await helper.unload();
    const saidEnv = await runWith({ userDir: user });
    assert.ok(fs.existsSync(path.join(env, FILE)));
    assert.deepEqual(saidEnv, [
      `[mindsdb] state is kept in ${path.join(env, FILE)} (embedded SQLite; NODE_RED_MINDSDB_STATE_DIR)`,
    ]);
  });
});

describe("the embedded store's janitor", () => {
  let at;
  beforeEach(() => {
    at = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-janitor-'));
  });
  afterEach(() => fs.rmSync(at, { recursive: true, force: true }));

  it('deletes the rows of nodes not seen for the forget period, and adopts rows of nodes never recorded', async () => {
    const lease = leaseStore(path.join(at, FILE));
    const day = 24 * 3_600_000;
    const store = new EmbeddedStore(lease.store, 'test', 7 * day);
    try {
      const outbox = (n) => store.outbox(n);
      for (const n of ['gone', 'kept', 'old'])
        await (await outbox(n)).insert([{ uid: '', acceptedAt: Date.now(), msg: '{}', bytes: 2 }], false);
      const turns = await store.turns('gone');
      await turns.append('c', '', { question: 'q', answer: 'a' }, 5);
      store.use('kept');
      const now = Date.now();
      assert.equal(store.clean(now), 0, '"gone" and "old" were never recorded: adopted as seen now');
      lease.store.statement("UPDATE node_seen SET seen_at = ? WHERE node = 'gone'").run(now - 8 * day);
      lease.store.statement("UPDATE node_seen SET seen_at = ? WHERE node = 'old'").run(now - 6 * day);
      assert.equal(store.clean(now), 2, 'the outbox row and the turn of "gone"');
      const left = lease.store
        .statement('SELECT node FROM outbox ORDER BY node')
        .all()
        .map((r) => r.node);
      assert.deepEqual(left, ['kept', 'old']);
      assert.deepEqual(lease.store.statement('SELECT node FROM agent_turn').all(), []);
    } finally {
      store.close();
      lease.release();
    }
  });
});
