import type { HealthView, MindsDBClient } from '../../client';
import type { NodeStatus } from '../node/red';
import type { ThrottledStatus } from './status';

/** The texts of the server's health in a node type's language (StatusTexts). */
export interface HealthTexts {
  health(view: HealthView, kept?: number): NodeStatus | undefined;
  storeHealth(view: StoreView, kept?: number): NodeStatus | undefined;
}

/** A shared state store's health, as the ring shows it (src/store: StoreHealthView). */
export interface StoreView {
  state: 'reachable' | 'unreachable';
  since?: number;
}

/** What the ring watches of a shared state store. */
export interface WatchedStore {
  readonly health: StoreView;
  watchHealth(listener: (view: StoreView) => void): () => void;
}

/**
 * The server's health on one node's status ring: every node on a server shows when MindsDB went
 * away (red ring, since when), is busy (yellow ring) and is back (green ring), with the backlog of
 * the node's outbox where it has one. It writes only on a change, so between changes the ring
 * shows the node's own work as before; a Status node can route on the ring's colour.
 */
export class HealthRing {
  private view: HealthView = { state: 'unknown' };
  private kept = 0;
  private stopWatching: (() => void) | undefined;
  private store: StoreView = { state: 'reachable' };
  private stopWatchingStore: (() => void) | undefined;
  /** Told of every change of the server's health (the outbox starts sending when it comes back). */
  onChange: (view: HealthView) => void = () => undefined;
  /** Told when the state store answers again (the outbox goes on by itself). */
  onStoreBack: () => void = () => undefined;

  constructor(
    private readonly status: ThrottledStatus,
    private readonly texts: HealthTexts,
  ) {}

  /** Watches `client`'s health (its watcher probes while at least one node watches). */
  watch(client: MindsDBClient | undefined): void {
    if (!client || this.stopWatching) return;
    let first = true;
    this.stopWatching = client.health.watch((view) => {
      const was = this.view;
      this.view = view;
      // A node that starts while the server is fine says nothing: its ring is its own.
      if (!(first && view.state !== 'unreachable' && view.state !== 'busy')) this.show();
      first = false;
      if (was.state !== view.state) this.onChange(view);
    });
  }

  /**
   * Watches a shared state store's health: while it is unreachable the ring says so (red, since
   * when), before the server's health: a message that needs the store ends at Catch meanwhile.
   */
  watchStore(store: WatchedStore): void {
    if (this.stopWatchingStore) return;
    this.store = store.health;
    if (this.store.state === 'unreachable') this.show();
    this.stopWatchingStore = store.watchHealth((view) => {
      const was = this.store.state;
      this.store = view;
      if (was === view.state) return;
      if (view.state === 'reachable') {
        const s = this.texts.health(this.view, this.kept) ?? this.texts.health({ state: 'reachable' }, this.kept);
        if (s) this.status.now(s);
        this.onStoreBack();
      } else this.show();
    });
  }

  get health(): HealthView {
    return this.view;
  }

  /** The outbox's backlog changed: shown with the health (throttled; a change of health shows at once). */
  setKept(kept: number): void {
    if (kept === this.kept) return;
    const appeared = kept > 0 !== this.kept > 0;
    this.kept = kept;
    const s = this.text();
    if (!s) return;
    if (appeared) this.status.now(s);
    else this.status.set(s);
  }

  stop(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.stopWatchingStore?.();
    this.stopWatchingStore = undefined;
  }

  private text(): NodeStatus | undefined {
    return this.store.state === 'unreachable'
      ? this.texts.storeHealth(this.store, this.kept)
      : this.texts.health(this.view, this.kept);
  }

  private show(): void {
    const s = this.text();
    if (s) this.status.now(s);
  }
}
