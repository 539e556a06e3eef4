import type { OutboxRows, PositionRows, Store, StoreHealthView, TurnRows } from '../api';
import { EmbeddedOutboxRows } from './outbox-rows';
import { EmbeddedPositionRows } from './positions';
import type { StateStore } from './state-store';
import { EmbeddedTurnRows } from './turns';

/** The nodes this Node-RED runs that keep state here, and when each was last seen running. */
const SEEN_FEATURE = 'seen';
const SEEN_SCHEMA = ['CREATE TABLE node_seen (node TEXT PRIMARY KEY, seen_at INTEGER NOT NULL) WITHOUT ROWID'];
/** Each feature's table, cleaned by the janitor once its feature has been created. */
const FEATURE_TABLES: ReadonlyArray<[feature: string, table: string]> = [
  ['outbox', 'outbox'],
  ['incremental', 'incremental_position'],
  ['conversations', 'agent_turn'],
];
const HOUR_MS = 3_600_000;
/**
 * The janitor's first run waits this long after the store opened: every node of the flows has
 * started (and said it is seen) by then, so no node's rows go for being seen last a week ago.
 */
export const JANITOR_DELAY_MS = 10 * 60_000;
const REACHABLE: StoreHealthView = { state: 'reachable' };

/**
 * The embedded store: the package's tables in one SQLite file (StateStore), one copy. It records
 * the nodes that use it (`node_seen`, refreshed hourly while they run) and cleans, hourly, the rows
 * of nodes no longer run for `forgetMs` (a node deleted from the flows): docs/state-store.md.
 */
export class EmbeddedStore implements Store {
  readonly shared = false;
  readonly health = REACHABLE;
  private readonly using = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    readonly state: StateStore,
    readonly description: string,
    private readonly forgetMs: number,
  ) {
    const janitor = setTimeout(() => {
      this.cleanQuietly();
      const hourly = setInterval(() => {
        this.refreshSeen();
        this.cleanQuietly();
      }, HOUR_MS);
      hourly.unref?.();
      this.timers.push(hourly);
    }, JANITOR_DELAY_MS);
    janitor.unref?.();
    this.timers.push(janitor);
  }

  get where(): string {
    return this.state.file;
  }

  async outbox(node: string): Promise<OutboxRows> {
    return new EmbeddedOutboxRows(this.state, node);
  }

  async positions(node: string): Promise<PositionRows> {
    return new EmbeddedPositionRows(this.state, node);
  }

  async turns(node: string): Promise<TurnRows> {
    return new EmbeddedTurnRows(this.state, node);
  }

  watchHealth(): () => void {
    return () => undefined; // always there: a failure is the failed write's own error
  }

  /** Records `node` as run by this Node-RED now and hourly until the returned function is called. */
  use(node: string): () => void {
    this.using.set(node, (this.using.get(node) ?? 0) + 1);
    try {
      this.markSeen([node], Date.now());
    } catch {
      /* a store that cannot be written: the node's own writes say so, worded for what they keep */
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.using.get(node) ?? 1) - 1;
      if (n > 0) this.using.set(node, n);
      else this.using.delete(node);
    };
  }

  /**
   * Deletes the rows of nodes not seen since `now - forgetMs`. Rows of a node never recorded (kept
   * before the janitor existed) are adopted as seen now: they get the whole period.
   */
  clean(now = Date.now()): number {
    const features = new Set(
      (this.state.statement('SELECT feature FROM store_schema').all() as Array<{ feature: string }>).map(
        (r) => r.feature,
      ),
    );
    return this.state.transaction(() => {
      this.state.migrate(SEEN_FEATURE, SEEN_SCHEMA);
      let deleted = 0;
      const stale = now - this.forgetMs;
      for (const [feature, table] of FEATURE_TABLES) {
        if (!features.has(feature)) continue;
        this.state
          .statement(`INSERT OR IGNORE INTO node_seen (node, seen_at) SELECT DISTINCT node, ? FROM ${table}`)
          .run(now);
        deleted += Number(
          this.state
            .statement(`DELETE FROM ${table} WHERE node IN (SELECT node FROM node_seen WHERE seen_at < ?)`)
            .run(stale).changes,
        );
      }
      this.state.statement('DELETE FROM node_seen WHERE seen_at < ?').run(stale);
      return deleted;
    }, 'forget the state of nodes no longer run');
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
  }

  private refreshSeen(): void {
    try {
      this.markSeen([...this.using.keys()], Date.now());
    } catch {
      /* the next hour tries again; a node's own writes say what is wrong */
    }
  }

  private markSeen(nodes: readonly string[], at: number): void {
    if (nodes.length === 0) return;
    this.state.transaction(() => {
      this.state.migrate(SEEN_FEATURE, SEEN_SCHEMA);
      const upsert = this.state.statement(
        'INSERT INTO node_seen (node, seen_at) VALUES (?, ?) ' +
          'ON CONFLICT (node) DO UPDATE SET seen_at = excluded.seen_at',
      );
      for (const node of nodes) upsert.run(node, at);
    }, 'record the nodes that keep state');
  }

  private cleanQuietly(): void {
    try {
      this.clean();
    } catch {
      /* tried again in an hour */
    }
  }
}
