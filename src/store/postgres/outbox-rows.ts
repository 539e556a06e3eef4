import type { Held, Kept, KeptRow, NewRow, OutboxRows } from '../api';
import { surelyUndone } from './database';
import { inDoubt, persist, whenBack } from './persist';
import type { PgContext } from './context';

interface RawRow {
  id: string;
  epoch: string;
  accepted_at: string;
  in_doubt: boolean;
  bytes: number;
  msg: string;
  taken_over: boolean;
}

const asRow = (r: RawRow): KeptRow => ({
  id: Number(r.id),
  epoch: Number(r.epoch),
  acceptedAt: Number(r.accepted_at),
  inDoubt: r.in_doubt,
  bytes: Number(r.bytes),
  msg: r.msg,
  takenOver: r.taken_over,
});

const ids = (rows: readonly Held[]): string[] => rows.map((r) => String(r.id));
const epochs = (rows: readonly Held[]): string[] => rows.map((r) => String(r.epoch));

/**
 * One node's rows in the shared outbox (docs/outbox.md). A row is held by one copy at a time
 * (`holder`, under `epoch`): a live message is kept already held by the copy that took it; backlog
 * rows are claimed in arrival order with FOR UPDATE SKIP LOCKED, the unheld ones and those of a
 * copy whose lease ran out under a new epoch (its rows that were in a request become in doubt).
 * Every later write names the row's epoch; a write that finds another one is refused, and the
 * caller leaves that row (and its outcome) to the copy that holds it now.
 */
export class PgOutboxRows implements OutboxRows {
  readonly shared = true;
  readonly takeoverPollMs: number;
  private readonly s: string;

  constructor(
    private readonly store: PgContext,
    readonly node: string,
  ) {
    this.s = store.database.connection.schema;
    this.takeoverPollMs = Math.max(500, store.leaseMs / 3);
  }

  /**
   * Keeps `rows` in one statement, held by this copy. A failure that may have been committed (a
   * restart mid-commit) is looked up by each row's uid once the store answers: what was kept is
   * kept once, what was not is kept now; never guessed.
   */
  async insert(rows: readonly NewRow[], sending: boolean): Promise<Kept[]> {
    const lapses = this.store.lapses;
    try {
      // A store that is away for a moment (a restart, a failover) is waited for, up to two lease periods.
      return await whenBack(this.store, this.store.leaseMs * 2, () => this.insertOnce(rows, sending));
    } catch (err) {
      if (surelyUndone(err)) throw err;
      return persist(this.store, () => this.lookUp(rows, sending, lapses));
    }
  }

  async markSending(rows: readonly Held[]): Promise<Set<number>> {
    if (rows.length === 0) return new Set();
    const marked = await persist(this.store, () =>
      this.store.database.query<{ id: string }>(
        'mark outbox messages as sent',
        `UPDATE ${this.s}.outbox o SET sending = true FROM unnest($1::bigint[], $2::bigint[]) AS r(id, epoch)
         WHERE o.id = r.id AND o.epoch = r.epoch RETURNING o.id`,
        [ids(rows), epochs(rows)],
        `${this.s}:outbox-mark`,
      ),
    );
    return missing(rows, marked);
  }

  async remove(rows: readonly Held[]): Promise<Set<number>> {
    if (rows.length === 0) return new Set();
    const lapses = this.store.lapses;
    return persist(this.store, async (repeated) => {
      const gone = await this.store.database.query<{ id: string }>(
        'remove sent messages from the outbox',
        `DELETE FROM ${this.s}.outbox o USING unnest($1::bigint[], $2::bigint[]) AS r(id, epoch)
         WHERE o.id = r.id AND o.epoch = r.epoch RETURNING o.id`,
        [ids(rows), epochs(rows)],
        `${this.s}:outbox-remove`,
      );
      const left = missing(rows, gone);
      if (!repeated || left.size === 0) return left;
      // Repeated after a lost answer: a row gone may be one the first attempt removed. It was, unless
      // this copy's lease ran out meanwhile (then another copy may have sent it: its outcome is not ours).
      if (this.store.lapses !== lapses && (await this.othersExist())) return left;
      const still = await this.store.database.query<{ id: string }>(
        'read the outbox',
        `SELECT id FROM ${this.s}.outbox WHERE id = ANY($1::bigint[])`,
        [[...left].map(String)],
      );
      return new Set(still.map((r) => Number(r.id)));
    });
  }

  async release(rows: readonly Held[], inDoubt: boolean): Promise<void> {
    if (rows.length === 0) return;
    await persist(this.store, () =>
      this.store.database.query(
        'keep messages in the outbox',
        `UPDATE ${this.s}.outbox o SET sending = false, in_doubt = o.in_doubt OR $3
         FROM unnest($1::bigint[], $2::bigint[]) AS r(id, epoch) WHERE o.id = r.id AND o.epoch = r.epoch`,
        [ids(rows), epochs(rows), inDoubt],
      ),
    );
  }

  /** A new copy holds nothing yet: rows a dead copy had in a request are found in doubt by `claim`. */
  async recover(): Promise<number> {
    return 0;
  }

  async claim(after: number, limit: number, before?: number): Promise<KeptRow[]> {
    const s = this.s;
    // No join to the copy table: a row another claim locked and moved meanwhile is checked again on its
    // new version (READ COMMITTED), and a joined copy row would be the old one; the subquery is run again.
    const rows = await this.store.database.query<RawRow>(
      'read the outbox',
      `WITH picked AS (
         SELECT o.id, o.holder AS was FROM ${s}.outbox o
         WHERE o.node = $1 AND o.id > $2 AND ($5::bigint IS NULL OR o.accepted_at < $5)
           AND ((o.holder = $3 AND NOT o.sending) OR o.holder IS NULL
             OR NOT EXISTS (SELECT 1 FROM ${s}.copy c WHERE c.id = o.holder AND c.lease_until >= now()))
         ORDER BY o.id LIMIT $4 FOR UPDATE SKIP LOCKED
       ), fresh AS (SELECT nextval('${s}.epoch_seq') AS epoch),
       taken AS (
         UPDATE ${s}.outbox o SET holder = $3, epoch = fresh.epoch, in_doubt = o.in_doubt OR o.sending, sending = false
         FROM picked, fresh WHERE o.id = picked.id AND picked.was IS DISTINCT FROM $3
         RETURNING o.id, o.epoch, o.accepted_at, o.in_doubt, o.bytes, o.msg, true AS taken_over
       )
       SELECT * FROM taken
       UNION ALL
       SELECT o.id, o.epoch, o.accepted_at, o.in_doubt, o.bytes, o.msg, false AS taken_over
       FROM ${s}.outbox o JOIN picked ON picked.id = o.id WHERE picked.was = $3`,
      [this.node, after, this.store.copy, limit, before ?? null],
      `${s}:outbox-claim`,
    );
    return rows.map(asRow).sort((a, b) => a.id - b.id);
  }

  async usage(): Promise<{ count: number; bytes: number }> {
    const [r] = await this.store.database.query<{ n: string; b: string }>(
      'read the outbox',
      `SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM ${this.s}.outbox WHERE node = $1`,
      [this.node],
    );
    return { count: Number(r.n), bytes: Number(r.b) };
  }

  private async insertOnce(rows: readonly NewRow[], sending: boolean): Promise<Kept[]> {
    if (rows.length === 0) return [];
    const s = this.s;
    const kept = await this.store.database.query<{ id: string; uid: string; epoch: string }>(
      'keep messages in the outbox',
      `INSERT INTO ${s}.outbox (uid, node, accepted_at, bytes, msg, sending, holder, epoch)
       SELECT r.u, $1, r.a, r.b, r.m, $6, $7, (SELECT nextval('${s}.epoch_seq'))
       FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[]) WITH ORDINALITY AS r(u, a, b, m, n)
       ORDER BY r.n
       ON CONFLICT (uid) DO NOTHING
       RETURNING id, uid, epoch`,
      [
        this.node,
        rows.map((r) => r.uid),
        rows.map((r) => r.acceptedAt),
        rows.map((r) => r.bytes),
        rows.map((r) => r.msg),
        sending,
        this.store.copy,
      ],
      `${s}:outbox-insert`,
    );
    const byUid = new Map(kept.map((k) => [k.uid, { id: Number(k.id), epoch: Number(k.epoch) }]));
    return rows.map((r) => byUid.get(r.uid) ?? { id: 0, epoch: 0, taken: true });
  }

  /**
   * Whether any other copy uses the store (a copy's row stays a day after its lease ended): with none, no
   * other copy can have taken this copy's rows over while its lease had run out.
   */
  private async othersExist(): Promise<boolean> {
    const others = await this.store.database.query(
      'look for other copies',
      `SELECT 1 FROM ${this.s}.copy WHERE id <> $1 LIMIT 1`,
      [this.store.copy],
    );
    return others.length > 0;
  }

  /** After a lost answer: the rows found by uid are kept (another copy's, if it holds them now); the rest kept now. */
  private async lookUp(rows: readonly NewRow[], sending: boolean, lapses: number): Promise<Kept[]> {
    const found = await this.store.database.query<{ id: string; uid: string; epoch: string; holder: string | null }>(
      'look up messages kept in the outbox',
      `SELECT id, uid, epoch, holder FROM ${this.s}.outbox WHERE uid = ANY($1::text[])`,
      [rows.map((r) => r.uid)],
    );
    const byUid = new Map<string, Kept>(
      found.map((f) => [
        f.uid,
        { id: Number(f.id), epoch: Number(f.epoch), ...(f.holder === this.store.copy ? {} : { taken: true }) },
      ]),
    );
    const rest = rows.filter((r) => !byUid.has(r.uid));
    if (rest.length > 0) {
      // Not found: never kept, unless another copy took it over and sent it while this copy's lease had run out.
      if (this.store.lapses !== lapses && (await this.othersExist()))
        throw inDoubt(this.store, 'keep messages in the outbox');
      const now = await this.insertOnce(rest, sending);
      for (const [i, r] of rest.entries()) byUid.set(r.uid, now[i]);
    }
    return rows.map((r) => byUid.get(r.uid) as Kept);
  }
}

/** The ids of `rows` a statement did not return (another copy holds them now). */
function missing(rows: readonly Held[], returned: ReadonlyArray<{ id: string }>): Set<number> {
  const done = new Set(returned.map((r) => Number(r.id)));
  return new Set(rows.filter((r) => !done.has(r.id)).map((r) => r.id));
}
