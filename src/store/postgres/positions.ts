import { StoreError, type PositionLease, type PositionRows, type StoredPosition } from '../api';
import { persist, retryWithin } from './persist';
import type { PgContext } from './context';

interface Raw {
  epoch?: string;
  watermark_column: string | null;
  key_column: string | null;
  watermark: string | null;
  tie_key: string | null;
  rows_sent: string;
}

const positionOf = (r: Raw | undefined): StoredPosition | undefined =>
  r && r.watermark !== null && r.watermark_column !== null && r.key_column !== null
    ? {
        watermarkColumn: r.watermark_column,
        keyColumn: r.key_column,
        watermark: r.watermark,
        tieKey: r.tie_key,
        rowsSent: Number(r.rows_sent),
      }
    : undefined;

/**
 * One node's incremental position in the shared store: one row per node with a lease (`holder`,
 * `lease_until` on the store's clock, `epoch`). A run takes the lease first (waiting while another
 * copy's run holds it), reads the position the other left, renews the lease while it lasts, and
 * every write names the lease's epoch: a write that finds another epoch stops the run (another
 * copy took over this node's position after this lease ran out). Two copies on one schedule send
 * each new row once.
 */
export class PgPositionRows implements PositionRows {
  private readonly s: string;

  constructor(
    private readonly store: PgContext,
    readonly node: string,
  ) {
    this.s = store.database.connection.schema;
  }

  async read(): Promise<StoredPosition | undefined> {
    const [row] = await this.store.database.query<Raw>(
      'read an incremental position',
      `SELECT watermark_column, key_column, watermark, tie_key, rows_sent FROM ${this.s}.incremental_position
       WHERE node = $1`,
      [this.node],
    );
    return positionOf(row);
  }

  async acquire(waitMs: number): Promise<PositionLease> {
    const until = Date.now() + waitMs;
    const poll = Math.min(500, Math.max(50, this.store.leaseMs / 20));
    for (;;) {
      // taken again by the same copy if an earlier attempt's answer was lost: repeatable
      const [row] = await retryWithin(this.store, Math.max(0, until - Date.now()), () =>
        this.store.database.query<Raw>(
          'take the lease of an incremental position',
          `INSERT INTO ${this.s}.incremental_position AS p (node, holder, lease_until, epoch)
         VALUES ($1, $2, now() + make_interval(secs => $3), nextval('${this.s}.epoch_seq'))
         ON CONFLICT (node) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until,
           epoch = excluded.epoch
         WHERE p.holder IS NULL OR p.holder = $2 OR p.lease_until < now()
         RETURNING p.epoch, p.watermark_column, p.key_column, p.watermark, p.tie_key, p.rows_sent`,
          [this.node, this.store.copy, this.store.options.leaseSeconds],
        ),
      );
      if (row) return new Lease(this.store, this.node, Number(row.epoch), positionOf(row));
      if (Date.now() + poll > until)
        throw new StoreError(
          `another copy of this flow is running this node's query (it holds its position in ${this.store.where}), ` +
            `and did not finish within ${waitMs} ms: this run did not start; the next one goes on from where that ` +
            'one ends (or give the message more time with msg.timeout)',
          'busy',
          this.store.where,
        );
      await new Promise((r) => setTimeout(r, poll));
    }
  }
}

/** A run's lease on a node's position: renewed while it lasts; every write names its epoch. */
class Lease implements PositionLease {
  private readonly s: string;
  private readonly timer: NodeJS.Timeout;
  private lost = false;

  constructor(
    private readonly store: PgContext,
    private readonly node: string,
    private readonly epoch: number,
    readonly position: StoredPosition | undefined,
  ) {
    this.s = store.database.connection.schema;
    this.timer = setInterval(() => void this.renew(), store.leaseMs / 3);
    this.timer.unref?.();
  }

  write(p: StoredPosition): Promise<void> {
    return this.update(
      'keep an incremental position',
      `watermark_column = $3, key_column = $4, watermark = $5, tie_key = $6, rows_sent = $7, updated_at = now()`,
      [p.watermarkColumn, p.keyColumn, p.watermark, p.tieKey, p.rowsSent],
    );
  }

  clear(): Promise<void> {
    return this.update(
      'rewind an incremental position',
      'watermark_column = NULL, key_column = NULL, watermark = NULL, tie_key = NULL, rows_sent = 0, updated_at = now()',
      [],
    );
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    if (this.lost) return;
    await this.store.database
      .query(
        'give back an incremental position',
        `UPDATE ${this.s}.incremental_position SET holder = NULL, lease_until = NULL WHERE node = $1 AND epoch = $2`,
        [this.node, this.epoch],
      )
      .catch(() => undefined); // it runs out by itself
  }

  private async update(doing: string, set: string, values: unknown[]): Promise<void> {
    const changed = this.lost
      ? 0
      : await persist(this.store, async () => {
          const rows = await this.store.database.query(
            doing,
            `UPDATE ${this.s}.incremental_position SET ${set}, lease_until = now() + make_interval(secs => ${Number(
              this.store.options.leaseSeconds,
            )}) WHERE node = $1 AND epoch = $2 RETURNING 1`,
            [this.node, this.epoch, ...values],
          );
          return rows.length;
        });
    if (changed === 0) {
      this.lost = true;
      clearInterval(this.timer);
      throw new StoreError(
        `another copy took over this node's position in ${this.store.where} (this run's lease ran out: a pause ` +
          'longer than the lease period?): this run stops here, and that copy goes on from the position it keeps',
        'busy',
        this.store.where,
      );
    }
  }

  private async renew(): Promise<void> {
    try {
      const rows = await this.store.database.query(
        'renew the lease of an incremental position',
        `UPDATE ${this.s}.incremental_position SET lease_until = now() + make_interval(secs => $3)
         WHERE node = $1 AND epoch = $2 RETURNING 1`,
        [this.node, this.epoch, this.store.options.leaseSeconds],
      );
      if (rows.length === 0) {
        this.lost = true;
        clearInterval(this.timer);
      }
    } catch {
      /* the store is away: the next write says so, or finds the lease gone */
    }
  }
}
