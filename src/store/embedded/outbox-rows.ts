import type { Held, Kept, KeptRow, NewRow, OutboxRows } from '../api';
import type { StateStore } from './state-store';

/**
 * The outbox's table in the embedded store: one row per kept message, in arrival order (an
 * AUTOINCREMENT id, never reused, so the order holds across restarts), per node. A row is written
 * before the node lets go of its message, marked `sending` in its own commit right before the
 * request that may store it, and deleted once the message has its outcome. A row still marked
 * `sending` when Node-RED starts was in a request when it died: it becomes `in_doubt`. One copy
 * uses the file, so every row is this copy's (epoch 0) and no write is ever fenced.
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

interface RawRow {
  id: number;
  accepted_at: number;
  in_doubt: number;
  bytes: number;
  msg: string;
}

const asRow = (r: RawRow): KeptRow => ({
  id: Number(r.id),
  epoch: 0,
  acceptedAt: Number(r.accepted_at),
  inDoubt: r.in_doubt === 1,
  bytes: Number(r.bytes),
  msg: r.msg,
  takenOver: false,
});

/** The id lists of a statement, as one JSON parameter (json_each): one statement for a whole batch. */
const idList = (rows: readonly Held[]): string => JSON.stringify(rows.map((r) => r.id));
const NONE: ReadonlySet<number> = new Set();

/** One node's rows in the embedded outbox; each call is on disk when it resolves (the store syncs each commit). */
export class EmbeddedOutboxRows implements OutboxRows {
  readonly shared = false;
  readonly takeoverPollMs = undefined;

  constructor(
    private readonly store: StateStore,
    readonly node: string,
  ) {
    store.migrate(OUTBOX_FEATURE, OUTBOX_SCHEMA);
  }

  async insert(rows: readonly NewRow[], sending: boolean): Promise<Kept[]> {
    const insert = this.store.statement(
      'INSERT INTO outbox (node, accepted_at, bytes, msg, sending) VALUES (?, ?, ?, ?, ?)',
    );
    const flag = sending ? 1 : 0;
    return this.store.transaction(
      () =>
        rows.map((r) => ({
          id: Number(insert.run(this.node, r.acceptedAt, r.bytes, r.msg, flag).lastInsertRowid),
          epoch: 0,
        })),
      'keep messages in the outbox',
    );
  }

  async markSending(rows: readonly Held[]): Promise<Set<number>> {
    if (rows.length > 0)
      this.store.transaction(() => {
        this.store
          .statement('UPDATE outbox SET sending = 1 WHERE id IN (SELECT value FROM json_each(?))')
          .run(idList(rows));
      }, 'mark outbox messages as sent');
    return new Set(NONE);
  }

  async remove(rows: readonly Held[]): Promise<Set<number>> {
    if (rows.length > 0)
      this.store.transaction(() => {
        this.store.statement('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))').run(idList(rows));
      }, 'remove sent messages from the outbox');
    return new Set(NONE);
  }

  async release(rows: readonly Held[], inDoubt: boolean): Promise<void> {
    if (rows.length === 0) return;
    this.store.transaction(() => {
      this.store
        .statement(
          'UPDATE outbox SET sending = 0, in_doubt = max(in_doubt, ?) WHERE id IN (SELECT value FROM json_each(?))',
        )
        .run(inDoubt ? 1 : 0, idList(rows));
    }, 'keep messages in the outbox');
  }

  async recover(): Promise<number> {
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

  async claim(after: number, limit: number, before?: number): Promise<KeptRow[]> {
    const rows = this.store.attempt(
      () =>
        before === undefined
          ? this.store
              .statement(
                'SELECT id, accepted_at, in_doubt, bytes, msg FROM outbox WHERE node = ? AND id > ? AND sending = 0 ' +
                  'ORDER BY id LIMIT ?',
              )
              .all(this.node, after, limit)
          : this.store
              .statement(
                'SELECT id, accepted_at, in_doubt, bytes, msg FROM outbox WHERE node = ? AND id > ? AND sending = 0 ' +
                  'AND accepted_at < ? ORDER BY id LIMIT ?',
              )
              .all(this.node, after, before, limit),
      'read the outbox',
    );
    return (rows as unknown as RawRow[]).map(asRow);
  }

  async usage(): Promise<{ count: number; bytes: number }> {
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
