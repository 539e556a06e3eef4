'use strict';
/**
 * The package's one store (src/store, docs/state-store.md): a real SQLite file through node:sqlite.
 * What the features that keep state build on: schema steps applied once, a transaction on disk
 * whole or not at all (a process killed with SIGKILL right after a commit keeps it, one killed
 * inside a transaction leaves nothing), errors that say which file and what to do, one shared
 * connection per file.
 */
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { StateStore, StoreError, leaseStore, storeError } = require('../../nodes/store');

describe('the state store (node:sqlite)', function () {
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-store-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const steps = ['CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'];

  it('creates its folder and file, and applies each schema step once', function () {
    const file = path.join(dir, 'sub', 'state.sqlite');
    const store = StateStore.open(file);
    store.migrate('items', steps);
    store.migrate('items', steps); // again: nothing to do, no "table exists" error
    store.statement('INSERT INTO items (v) VALUES (?)').run('a');
    store.migrate('items', [...steps, 'ALTER TABLE items ADD COLUMN w TEXT']);
    assert.deepEqual(
      store
        .statement('SELECT v, w FROM items')
        .all()
        .map((r) => ({ ...r })),
      [{ v: 'a', w: null }],
    );
    store.close();
    assert.ok(fs.existsSync(file));
  });

  it('refuses a file written by a newer release instead of guessing', function () {
    const file = path.join(dir, 'state.sqlite');
    const store = StateStore.open(file);
    store.migrate('items', [...steps, 'ALTER TABLE items ADD COLUMN w TEXT']);
    assert.throws(
      () => store.migrate('items', steps),
      (err) => err instanceof StoreError && /newer release/.test(err.message) && err.message.includes(file),
    );
    store.close();
  });

  it('keeps a transaction whole or not at all', function () {
    const store = StateStore.open(path.join(dir, 'state.sqlite'));
    store.migrate('items', steps);
    const insert = store.statement('INSERT INTO items (v) VALUES (?)');
    assert.throws(
      () =>
        store.transaction(() => {
          insert.run('a');
          insert.run('b');
          throw new Error('half-way');
        }, 'store two items'),
      (err) => err instanceof StoreError && /could not store two items: half-way/.test(err.message),
    );
    assert.equal(store.statement('SELECT count(*) AS n FROM items').get().n, 0);
    store.transaction(() => {
      insert.run('a');
      store.transaction(() => insert.run('b'));
    });
    assert.equal(store.statement('SELECT count(*) AS n FROM items').get().n, 2);
    store.close();
  });

  it('a commit survives a kill -9 right after it; a transaction cut by one leaves nothing', function () {
    const file = path.join(dir, 'state.sqlite');
    const child = (code) =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `
      const { StateStore } = require(${JSON.stringify(path.resolve(__dirname, '../../nodes/store'))});
      const store = StateStore.open(${JSON.stringify(file)});
      store.migrate('items', ${JSON.stringify(steps)});
      const insert = store.statement('INSERT INTO items (v) VALUES (?)');
      ${code}
      process.kill(process.pid, 'SIGKILL');`,
        ],
        { encoding: 'utf8' },
      );
    let r = child(`store.transaction(() => { insert.run('kept-1'); insert.run('kept-2'); });`);
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    r = child(`store.transaction(() => { insert.run('lost'); process.kill(process.pid, 'SIGKILL'); });`);
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    const store = StateStore.open(file);
    assert.deepEqual(
      store
        .statement('SELECT v FROM items ORDER BY id')
        .all()
        .map((x) => x.v),
      ['kept-1', 'kept-2'],
    );
    store.close();
  });

  it('says when the disk is full, naming the file, and stays usable after', function () {
    const file = path.join(dir, 'state.sqlite');
    const store = StateStore.open(file);
    store.migrate('items', steps);
    // SQLite's own size cap: the same SQLITE_FULL a full disk gives.
    store.statement('PRAGMA max_page_count = 8').get();
    const insert = store.statement('INSERT INTO items (v) VALUES (?)');
    assert.throws(
      () =>
        store.transaction(() => {
          for (let i = 0; i < 100; i++) insert.run('x'.repeat(4000));
        }, 'store the items'),
      (err) =>
        err instanceof StoreError &&
        err.kind === 'full' &&
        err.message.includes(file) &&
        /free space/.test(err.message),
    );
    assert.equal(store.statement('SELECT count(*) AS n FROM items').get().n, 0, 'the failed transaction left nothing');
    store.transaction(() => insert.run('small'));
    store.close();
  });

  it('words a read-only file and a file that is not a database as what the user can do', function () {
    const { DatabaseSync } = require('node:sqlite');
    const file = path.join(dir, 'state.sqlite');
    StateStore.open(file).close();
    const ro = new DatabaseSync(file, { readOnly: true });
    let caught;
    try {
      ro.exec('CREATE TABLE t (x)');
    } catch (err) {
      caught = err;
    }
    ro.close();
    const e = storeError(caught, file, 'write');
    assert.equal(e.kind, 'read-only');
    assert.match(e.message, /write access/);
    const junk = path.join(dir, 'junk.sqlite');
    fs.writeFileSync(junk, 'not a database, just text that is long enough to be read as a header '.repeat(20));
    assert.throws(
      () => StateStore.open(junk),
      (err) => err instanceof StoreError && err.kind === 'corrupt' && err.message.includes(junk),
    );
  });

  it('shares one connection per file between its users and closes it after the last', function () {
    const file = path.join(dir, 'state.sqlite');
    const a = leaseStore(file);
    const b = leaseStore(file);
    assert.equal(a.store, b.store);
    a.release();
    a.release(); // once only
    a.store.migrate('items', steps); // still open: b holds it
    b.release();
    assert.throws(
      () => b.store.statement('SELECT 1'),
      (err) => err instanceof StoreError && /closed/.test(err.message),
    );
    const c = leaseStore(file);
    assert.notEqual(c.store, a.store, 'opened again after the last release');
    c.release();
  });
});
