import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { StoreError, type StoreHealthView } from '../api';
import type { Connection } from './options';
import { failureOf, pgStoreError } from './pg-errors';

type Pg = typeof import('pg');
let loaded: Pg | undefined;
/** pg, loaded on first use only: a flow without a shared store never loads it. */
function pg(): Pg {
  loaded ??= require('pg') as Pg;
  return loaded;
}

/** How often a store that stopped answering is tried again (one that refused this copy's login: less often). */
const PROBE_MS = 1000;
const REFUSED_PROBE_MS = 10_000;

/**
 * One PostgreSQL database behind a shared store: a small pool of connections, the store's health
 * (reachable, or unreachable since when and why), learnt from every call and probed while it is
 * down, and calls that say what a failure means for what they asked (`Failure`). Texts never hold
 * the password (`Connection.redact`).
 */
export class Database {
  private readonly pool: Pool;
  private view: StoreHealthView = { state: 'reachable' };
  private readonly listeners = new Set<(view: StoreHealthView) => void>();
  private probeTimer: NodeJS.Timeout | undefined;
  private refused = false;
  private closed = false;
  /** Run on each successful probe before the store counts as reachable again (the copy's lease). */
  onBack: () => Promise<void> = async () => undefined;

  constructor(
    readonly connection: Connection,
    readonly where: string,
  ) {
    this.pool = new (pg().Pool)(connection.pool);
    // A connection the server closes while idle (a restart) is an event, not a crash of Node-RED.
    this.pool.on('error', (err) => this.down(this.error(err, 'keep a connection', 'maybe')));
    // A connection that breaks while a call uses it fails that call; its 'error' event must not end the process.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  get health(): StoreHealthView {
    return this.view;
  }

  watch(listener: (view: StoreHealthView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once the store is reachable again (at once if it is); rejects once it closed, or with
   * `failure` when it is still away after `timeoutMs`.
   */
  whenReachable(timeoutMs?: number, failure?: StoreError): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError(`${this.where} is closed`, 'unavailable', this.where));
    if (this.view.state === 'reachable') return Promise.resolve();
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const stop = this.watch((v) => {
        if (v.state === 'reachable') {
          end();
          resolve();
        } else if (this.closed) {
          end();
          reject(new StoreError(`${this.where} is closed`, 'unavailable', this.where));
        }
      });
      const end = (): void => {
        stop();
        clearTimeout(timer);
      };
      if (timeoutMs !== undefined)
        timer = setTimeout(() => {
          end();
          reject(failure ?? new StoreError(`${this.where} does not answer`, 'unreachable', this.where));
        }, timeoutMs);
    });
  }

  /** One statement on a connection of its own. */
  query<R extends QueryResultRow>(doing: string, text: string, values: unknown[] = [], name?: string): Promise<R[]> {
    return this.session(doing, (c) => c.query<R>({ text, values, ...(name ? { name } : {}) }).then((r) => r.rows));
  }

  /** `fn` in one transaction: committed whole when this resolves, or not at all (a `maybe` failure may have). */
  transaction<T>(doing: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.session(doing, async (c) => {
      await c.query('BEGIN');
      try {
        const out = await fn(c);
        await c.query('COMMIT');
        return out;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** A connection for `fn`; any failure comes out as a StoreError whose `failure` says what it means. */
  async session<T>(doing: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError(`${this.where} is closed`, 'unavailable', this.where);
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.down(this.error(err, doing, 'not-sent'));
    }
    try {
      const out = await fn(client);
      client.release();
      this.up();
      return out;
    } catch (err) {
      const failure = failureOf(err, false);
      // A connection that broke is not given back to the pool.
      client.release(failure === 'failed' ? undefined : (err as Error));
      const e = this.error(err, doing, failure);
      throw failure === 'failed' ? e : this.down(e);
    }
  }

  /** Ends every connection; calls still waiting for the store fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.probeTimer);
    for (const l of [...this.listeners]) l(this.view);
    await this.pool.end().catch(() => undefined);
  }

  private error(err: unknown, doing: string, failure: ReturnType<typeof failureOf>): FailedCall {
    const e = pgStoreError(err, this.where, doing, failure, this.connection.redact) as FailedCall;
    e.failure ??= failure;
    return e;
  }

  /** The store stopped answering: said once (the health view), probed until it answers again. */
  private down(err: FailedCall): FailedCall {
    if (err.kind !== 'unreachable' && err.kind !== 'refused') return err;
    this.refused = err.kind === 'refused';
    if (this.view.state !== 'unreachable') {
      this.view = { state: 'unreachable', since: Date.now(), reason: err.message };
      this.tell();
    }
    this.probeSoon();
    return err;
  }

  private up(): void {
    if (this.view.state === 'reachable') return;
    this.view = { state: 'reachable' };
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.tell();
  }

  private probeSoon(): void {
    if (this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(
      () => {
        this.probeTimer = undefined;
        this.pool
          .connect()
          .then(async (c) => {
            try {
              await c.query('SELECT 1');
              c.release();
            } catch (err) {
              c.release(err as Error);
              throw err;
            }
            await this.onBack();
            this.up();
          })
          .catch((err: unknown) => {
            this.refused = (err as { code?: unknown }).code === '28P01' || (err as { code?: unknown }).code === '28000';
            this.probeSoon();
          });
      },
      this.refused ? REFUSED_PROBE_MS : PROBE_MS,
    );
    this.probeTimer.unref?.();
  }

  private tell(): void {
    for (const l of [...this.listeners]) l(this.view);
  }
}

/** A StoreError from a call to PostgreSQL, with what its failure means for what it asked. */
export interface FailedCall extends StoreError {
  failure: ReturnType<typeof failureOf>;
}

/** Whether a call's failure left its write undone for sure (nothing reached the store, or the store refused it). */
export function surelyUndone(err: unknown): boolean {
  const f = (err as Partial<FailedCall>).failure;
  return f === 'not-sent' || f === 'failed';
}

/** Whether a call failed because the store could not be reached (as opposed to refusing the statement). */
export function unreachable(err: unknown): boolean {
  const f = (err as Partial<FailedCall>).failure;
  return f === 'not-sent' || f === 'maybe';
}
