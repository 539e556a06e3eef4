import type { StateStore } from '../../store';

/**
 * The outbox's table in the package's store (docs/state-store.md): one row per kept message, in
 * arrival order (an AUTOINCREMENT id, never reused, so the order holds across restarts), per node.
 * A row is written before the node lets go of its message, marked `sending` in its own commit
 * right before the request that may store it, and deleted once the message has its outcome
 * (deleted first, then the outcome: a kill in between loses an output, never stores twice).
 * A row still marked `sending` when Node-RED starts was in a request when it died: it becomes
 * `in_doubt` (its write may have landed), and is never sent blindly again.
 */
export const OUTBOX_FEATURE = 'outbox';
export const OUTBOX_SCHEMA: readonly string[] = [
  `CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    node TEXT NOT NULL,
    accepted_at INTEGER NOT NULL,
    sending INTEGER NOT NULL DEFAULT 0,
    in_doubt INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL,
    msg TEXT NOT NULL
  );
  CREATE INDEX outbox_by_node ON outbox (node, id);`,
];

/** A message to keep: its JSON (the msg with what the node resolved for it when it took it: its target). */
export interface NewRow {
  acceptedAt: number;
  msg: string;
  bytes: number;
}

/** A kept row as read back. */
export interface KeptRow {
  id: number;
  acceptedAt: number;
  inDoubt: boolean;
  bytes: number;
  msg: string;
}

interface RawRow {
  id: number;
  accepted_at: number;
  in_doubt: number;
  bytes: number;
  msg: string;
}

const asRow = (r: RawRow): KeptRow => ({
  id: Number(r.id),
  acceptedAt: Number(r.accepted_at),
  inDoubt: r.in_doubt === 1,
  bytes: Number(r.bytes),
  msg: r.msg,
});

/** The id lists of a statement, as one JSON parameter (json_each): one statement for a whole batch. */
const idList = (ids: readonly number[]): string => JSON.stringify(ids);

/**
 * One node's rows in the outbox. Every call is synchronous and is on disk when it returns (the
 * store syncs each commit); each may throw a StoreError (a full or read-only disk), which the
 * caller reports.
 */
export class OutboxRows {
  constructor(
    private readonly store: StateStore,
    readonly node: string,
  ) {
    store.migrate(OUTBOX_FEATURE, OUTBOX_SCHEMA);
  }

  /** Writes `rows` in one commit (`sending`: already as in a request); returns their ids, in order. */
  insert(rows: readonly NewRow[], sending = false): number[] {
    const insert = this.store.statement(
      'INSERT INTO outbox (node, accepted_at, bytes, msg, sending) VALUES (?, ?, ?, ?, ?)',
    );
    const flag = sending ? 1 : 0;
    return this.store.transaction(
      () => rows.map((r) => Number(insert.run(this.node, r.acceptedAt, r.bytes, r.msg, flag).lastInsertRowid)),
      'keep messages in the outbox',
    );
  }

  /** Marks rows as in a request that may store them (its own commit, before the request). */
  markSending(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.store.transaction(() => {
      this.store
        .statement('UPDATE outbox SET sending = 1 WHERE id IN (SELECT value FROM json_each(?))')
        .run(idList(ids));
    }, 'mark outbox messages as sent');
  }

  /** Deletes rows whose message has its outcome. */
  remove(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.store.transaction(() => {
      this.store.statement('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))').run(idList(ids));
    }, 'remove sent messages from the outbox');
  }

  /** Rows whose request ended without storing them: to be sent again (and, `inDoubt`, checked first). */
  release(ids: readonly number[], inDoubt: boolean): void {
    if (ids.length === 0) return;
    this.store.transaction(() => {
      this.store
        .statement(
          'UPDATE outbox SET sending = 0, in_doubt = max(in_doubt, ?) WHERE id IN (SELECT value FROM json_each(?))',
        )
        .run(inDoubt ? 1 : 0, idList(ids));
    }, 'keep messages in the outbox');
  }

  /** At start: the rows a request was under way for when Node-RED stopped are in doubt now. */
  recover(): number {
    return Number(
      this.store.transaction(
        () =>
          this.store
            .statement('UPDATE outbox SET sending = 0, in_doubt = 1 WHERE node = ? AND sending = 1')
            .run(this.node).changes,
        'recover the outbox',
      ),
    );
  }

  /** The next rows to send, in arrival order, after id `after`. */
  read(after: number, limit: number): KeptRow[] {
    const rows = this.store.attempt(
      () =>
        this.store
          .statement(
            'SELECT id, accepted_at, in_doubt, bytes, msg FROM outbox WHERE node = ? AND id > ? AND sending = 0 ' +
              'ORDER BY id LIMIT ?',
          )
          .all(this.node, after, limit),
      'read the outbox',
    );
    return (rows as unknown as RawRow[]).map(asRow);
  }

  /** Rows kept since before `before` (ms) and not in a request, oldest first. */
  olderThan(before: number, limit: number): KeptRow[] {
    const rows = this.store.attempt(
      () =>
        this.store
          .statement(
            'SELECT id, accepted_at, in_doubt, bytes, msg FROM outbox WHERE node = ? AND sending = 0 AND accepted_at ' +
              '< ? ORDER BY id LIMIT ?',
          )
          .all(this.node, before, limit),
      'read the outbox',
    );
    return (rows as unknown as RawRow[]).map(asRow);
  }

  /** How much this node keeps. */
  usage(): { count: number; bytes: number } {
    const r = this.store.attempt(
      () =>
        this.store
          .statement('SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM outbox WHERE node = ?')
          .get(this.node),
      'read the outbox',
    ) as { n: number; b: number };
    return { count: Number(r.n), bytes: Number(r.b) };
  }
}

/**
 * Rows whose messages have their outcomes, deleted in one commit for every outcome of one turn of
 * the event loop; then each outcome is delivered (`then`: whether its row went), in the order they came.
 */
export class Removals {
  private readonly queue: Array<{ id: number; bytes: number; then?: (removed: boolean) => void }> = [];

  /**
   * `removeRows` deletes the rows and says whether it could. `gatherMs`: how long the first outcome
   * waits for others to share its commit (each commit is synced to disk, and blocks the event loop
   * while it is: answers of micro-batches come a few ms apart).
   */
  constructor(
    private readonly removeRows: (ids: number[], bytes: number) => boolean,
    private readonly gatherMs = 0,
  ) {}

  add(id: number, bytes: number, then?: (removed: boolean) => void): void {
    this.queue.push({ id, bytes, then });
    if (this.queue.length !== 1) return;
    if (this.gatherMs > 0) setTimeout(() => this.flush(), this.gatherMs);
    else setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.queue.splice(0).filter((r) => r.id > 0 || r.then);
    const rows = batch.filter((r) => r.id > 0);
    const removed =
      rows.length === 0 ||
      this.removeRows(
        rows.map((r) => r.id),
        rows.reduce((n, r) => n + r.bytes, 0),
      );
    for (const r of batch) r.then?.(removed || r.id === 0);
  }
}
