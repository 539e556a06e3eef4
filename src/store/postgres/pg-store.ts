import { randomUUID } from 'node:crypto';
import os from 'node:os';
import {
  StoreError,
  type OutboxRows,
  type PositionRows,
  type Store,
  type StoreHealthView,
  type TurnRows,
} from '../api';
import { Database } from './database';
import { connectionOf, type SharedStoreOptions } from './options';
import { PgOutboxRows } from './outbox-rows';
import { PgPositionRows } from './positions';
import { migrate } from './schema';
import type { PgContext } from './context';
import { clean, markSeen } from './janitor';
import { PgTurnRows } from './turns';

const HOUR_MS = 3_600_000;
/** How long the first janitor run waits after the store opened: every node has started and said it is seen. */
const JANITOR_DELAY_MS = 10 * 60_000;

/**
 * The shared store (docs/state-store.md): the package's tables in a PostgreSQL schema, shared by
 * every Node-RED copy that runs the same flows. This process is one *copy*, with a random id and a
 * lease in the `copy` table renewed every third of the lease period on the store's clock; a copy
 * whose lease ran out counts as dead, and the others take its rows over. Opened at deploy by the
 * state store config node (tables created or migrated first); a store that cannot be opened is
 * tried again by itself, and every call meanwhile fails with why.
 */
export class PgStore implements Store, PgContext {
  readonly shared = true;
  readonly copy = randomUUID();
  readonly where: string;
  readonly description: string;
  readonly leaseMs: number;
  private readonly db: Database;
  private opening: Promise<void> | undefined;
  private openError: StoreError | undefined;
  private openFailedAt = 0;
  private opened = false;
  private closed = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private janitorTimer: NodeJS.Timeout | undefined;
  private readonly using = new Map<string, number>();
  /** Times this copy's lease was found run out (or not renewed within it): another copy may have taken its rows. */
  lapses = 0;
  private renewedAt = 0;
  /** Told once when the store opened, or why it could not (the config node logs it). */
  onOpen: (err?: StoreError) => void = () => undefined;

  constructor(readonly options: SharedStoreOptions) {
    const connection = connectionOf(options);
    this.where = `the PostgreSQL store "${options.name || 'unnamed'}" (${connection.place})`;
    this.description = `the PostgreSQL store "${options.name || 'unnamed'}" (${connection.place})`;
    this.leaseMs = options.leaseSeconds * 1000;
    this.db = new Database(connection, this.where);
    this.db.onBack = () => this.renew();
    void this.ready().catch(() => undefined);
  }

  get health(): StoreHealthView {
    if (this.openError && !this.opened)
      return this.db.health.state === 'unreachable'
        ? this.db.health
        : { state: 'unreachable', reason: this.openError.message, since: this.openFailedAt };
    return this.db.health;
  }

  get database(): Database {
    return this.db;
  }

  watchHealth(listener: (view: StoreHealthView) => void): () => void {
    return this.db.watch(listener);
  }

  /**
   * Resolves once the store is open (schema migrated, this copy registered). While it cannot be
   * opened, rejects with why (at once: a message does not wait for a store that is away) and tries
   * again in the background.
   */
  ready(): Promise<void> {
    if (this.opened) return Promise.resolve();
    if (this.closed) return Promise.reject(new StoreError(`${this.where} is closed`, 'unavailable', this.where));
    if (this.opening) return this.opening;
    if (this.openError && this.db.health.state === 'unreachable') return Promise.reject(this.openError);
    this.opening = (async () => {
      await migrate(this.db, this.options.schema);
      await this.renew();
    })().then(
      () => {
        this.opening = undefined;
        this.opened = true;
        this.openError = undefined;
        this.startTimers();
        this.onOpen();
      },
      (err: unknown) => {
        this.opening = undefined;
        const e = err instanceof StoreError ? err : new StoreError(String(err), 'other', this.where);
        const told = this.openError !== undefined;
        if (!told) this.openFailedAt = Date.now();
        this.openError = e;
        if (!told) this.onOpen(e);
        // Tried again once the store answers (the health probe), or at the next call.
        const stop = this.db.watch((v) => {
          if (v.state === 'reachable') {
            stop();
            void this.ready().catch(() => undefined);
          }
        });
        if (this.db.health.state === 'reachable') {
          // A refusal that is not about reaching it (a newer schema): tried again in a while.
          stop();
          const t = setTimeout(() => void this.ready().catch(() => undefined), this.leaseMs);
          t.unref?.();
        }
        throw e;
      },
    );
    return this.opening;
  }

  async outbox(node: string): Promise<OutboxRows> {
    await this.readyWithin();
    return new PgOutboxRows(this, node);
  }

  async positions(node: string): Promise<PositionRows> {
    await this.readyWithin();
    return new PgPositionRows(this, node);
  }

  async turns(node: string): Promise<TurnRows> {
    await this.readyWithin();
    return new PgTurnRows(this, node);
  }

  /** Open, waiting up to two lease periods for a store that is away (a restart); then why it is not. */
  private async readyWithin(): Promise<void> {
    try {
      await this.ready();
    } catch (err) {
      if (!(err instanceof StoreError) || err.kind !== 'unreachable') throw err;
      await this.db.whenReachable(this.leaseMs * 2, err);
      await this.ready();
    }
  }

  /** Records `node` as run by this copy (now, then hourly) until the returned function is called. */
  use(node: string): () => void {
    this.using.set(node, (this.using.get(node) ?? 0) + 1);
    void this.ready()
      .then(() => markSeen(this.db, [node]))
      .catch(() => undefined);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.using.get(node) ?? 1) - 1;
      if (n > 0) this.using.set(node, n);
      else this.using.delete(node);
    };
  }

  /** Runs the janitor now (one copy at a time): the number of rows it deleted, or undefined if another copy ran it. */
  clean(): Promise<number | undefined> {
    return clean(this.db, this.options.schema, this.options.forgetDays);
  }

  /**
   * Lets go: this copy's rows are given back (those that were in a request become in doubt) and its
   * copy row goes, so another copy (or this Node-RED after a redeploy) takes them at once rather
   * than after the lease runs out; then the connections end.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.renewTimer);
    clearTimeout(this.janitorTimer);
    if (this.opened && this.db.health.state === 'reachable') {
      const s = this.db.connection.schema;
      await this.db
        .transaction('give back its rows', async (c) => {
          await c.query(
            `UPDATE ${s}.outbox SET holder = NULL, in_doubt = in_doubt OR sending, sending = false WHERE holder = $1`,
            [this.copy],
          );
          await c.query(`UPDATE ${s}.incremental_position SET holder = NULL, lease_until = NULL WHERE holder = $1`, [
            this.copy,
          ]);
          await c.query(`DELETE FROM ${s}.copy WHERE id = $1`, [this.copy]);
        })
        .catch(() => undefined);
    }
    await this.db.close();
  }

  /**
   * Renews this copy's lease on the store's clock (registering the copy the first time). Notes a
   * lapse when the lease had run out (or no renewal reached the store within a lease period).
   */
  async renew(): Promise<void> {
    const s = this.db.connection.schema;
    const startedAt = Date.now();
    const rows = await this.db.query<{ lapsed: boolean | null }>(
      'renew its lease',
      `WITH old AS (SELECT lease_until < now() AS lapsed FROM ${s}.copy WHERE id = $1)
       INSERT INTO ${s}.copy (id, host, lease_until) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until
       RETURNING (SELECT lapsed FROM old) AS lapsed`,
      [this.copy, os.hostname(), this.options.leaseSeconds],
    );
    const lapsed = rows[0]?.lapsed;
    const late = this.renewedAt > 0 && startedAt - this.renewedAt >= this.leaseMs;
    if (lapsed === true || (lapsed === null && this.renewedAt > 0) || late) this.lapses++;
    this.renewedAt = startedAt;
  }

  private startTimers(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => void this.renew().catch(() => undefined), this.leaseMs / 3);
    this.renewTimer.unref?.();
    const janitor = (): void => {
      void this.clean().catch(() => undefined);
      void markSeen(this.db, [...this.using.keys()]).catch(() => undefined);
      this.janitorTimer = setTimeout(janitor, HOUR_MS);
      this.janitorTimer.unref?.();
    };
    this.janitorTimer = setTimeout(janitor, JANITOR_DELAY_MS);
    this.janitorTimer.unref?.();
  }
}
