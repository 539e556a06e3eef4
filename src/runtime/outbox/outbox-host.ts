import type { OutboxRows } from '../../store';
import type { LateOutcome, OutboxItem, OutboxLimits, OutboxWriter } from './outbox-writer';

/**
 * What the parts of one node's outbox share (outbox.ts holds it): the keeping of what arrives
 * (outbox-keep.ts) and the backlog's claims (outbox-backlog.ts) read and move the same state.
 */
export interface OutboxHost<Target> {
  readonly writer: OutboxWriter<Target>;
  readonly late: LateOutcome;
  readonly limits: OutboxLimits;
  /** Kept messages in a request of this process, by row id. */
  readonly inFlight: Set<number>;
  /** `live`: what arrives is sent at once; `backlog`: kept messages wait, and what arrives waits behind them. */
  mode: 'live' | 'backlog';
  readonly closing: boolean;
  /** The node's kept messages (across copies, as last counted) and their size. */
  kept: number;
  bytes: number;
  /** A message in doubt is looked up no sooner than this (its lost request may still be running). */
  settleUntil: number;
  /** The server is known to be down (nothing is sent). */
  serverDown(): boolean;
  /** The node's rows once the store opened them, or why it cannot (tried again at the next call). */
  rows(): Promise<OutboxRows>;
  /** The node's rows if the store opened them already. */
  readonly opened: OutboxRows | undefined;
  /**
   * Sends one kept message (`live`: its input's promise, while this process still holds it; its row was
   * written as in a request already).
   */
  dispatch(item: OutboxItem<Target>, live?: Resolvers): void;
  /** A kept message that ends without being sent (expired, or in doubt with no way to find out). */
  endKept(item: OutboxItem<Target>, err: Error): void;
  /** Deletes a row (then delivers what `then` says, knowing whether it went). */
  remove(held: { id: number; epoch: number }, bytes: number, then?: (removed: boolean) => void): void;
  /** The backlog count changed (the node's ring). */
  counted(): void;
  /** The backlog, a window at a time (outbox-backlog.ts). */
  pump(): void;
}

/** How a message handed to the outbox ends for its input handler. */
export type Accepted = 'sent' | 'kept';

/** The input's promise of a message the outbox took. */
export interface Resolvers {
  resolve: (a: Accepted) => void;
  reject: (e: Error) => void;
}
