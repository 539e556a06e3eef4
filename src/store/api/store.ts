import type { OutboxRows, PositionRows, TurnRows } from './features';

/** Whether a store answers: a shared store may go away and come back; the embedded one is always there. */
export interface StoreHealthView {
  state: 'reachable' | 'unreachable';
  /** When it stopped answering (ms). */
  since?: number;
  /** Why, in words without a password. */
  reason?: string;
}

/**
 * One opened store, shared by every node of this Node-RED that keeps its state there. Each
 * feature's rows are opened per node (its tables created or migrated first; the node recorded as
 * seen, so the janitor keeps its rows).
 */
export interface Store {
  /** The store as texts name it: the embedded file's path, or the shared store's name, host and schema. */
  readonly where: string;
  /** What the start-up log line says of it. */
  readonly description: string;
  /** Shared by several copies (PostgreSQL), or this Node-RED's own (the embedded file). */
  readonly shared: boolean;
  outbox(node: string): Promise<OutboxRows>;
  positions(node: string): Promise<PositionRows>;
  turns(node: string): Promise<TurnRows>;
  readonly health: StoreHealthView;
  /** Calls `listener` on every change of health; returns what stops it. */
  watchHealth(listener: (view: StoreHealthView) => void): () => void;
}

/** One user of a store: `release()` once when done (a node's close, after its last write). */
export interface StoreLease {
  readonly store: Store;
  release(): void;
}
