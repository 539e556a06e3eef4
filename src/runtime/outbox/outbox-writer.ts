import type { Msg } from '../node/red';
import type { KeptRow } from '../../store';

/**
 * What a node gives its outbox (outbox.ts): the writer that sends one kept message the node's way
 * (the table node through its micro-batcher), and where a kept message's late outcome goes.
 */

/** A message in a node's outbox, as the node's writer gets it. */
export interface OutboxItem<Target> {
  /** Its row in the outbox (0 until it is kept). */
  id: number;
  /** The epoch of the claim under which this copy holds the row (every write on it names it). */
  epoch: number;
  msg: Msg;
  /** What the node resolved for the message when it took it (a table, a knowledge base). */
  target: Target;
  /** An earlier request may have stored it: the writer finds out first, or it is not sent. */
  inDoubt: boolean;
  acceptedAt: number;
  /** Its size in the outbox (the bound counts it). */
  bytes: number;
  /** Read back from the outbox (its input has ended: a replay), not the input's own message. */
  restored: boolean;
}

/** What a node does with the messages of its outbox. */
export interface OutboxWriter<Target> {
  /**
   * Sends one message (it may wait for a micro-batch). Before the request that may store it, the
   * writer marks its row (`Outbox.sending`). Resolves once stored (the writer has put the result
   * on the msg); rejects with why not.
   */
  write(item: OutboxItem<Target>): Promise<void>;
  /** Sends what is collected now (the end of a chunk of the replay). */
  flush(): void;
  /** Whether the writer can find out if a message in doubt was stored (a key column). */
  canCheck(item: OutboxItem<Target>): boolean;
  /** Puts on the msg what the failure means for it (msg.mindsdb.stored), before it goes to Catch. */
  failed(item: OutboxItem<Target>, err: Error): Error;
}

/**
 * Where a message that was kept (and whose own done() has been called) ends: after a replay, perhaps after a restart.
 */
export interface LateOutcome {
  sent(msg: Msg): void;
  failed(msg: Msg, err: Error): void;
  /** A kept row that could not be read back (it is dropped). */
  warn(text: string): void;
}

export interface OutboxLimits {
  maxBytes: number;
  maxAgeMs: number;
  /** Messages sent at once from the backlog (batches in flight × batch size). */
  window: number;
  /**
   * A write in doubt is looked up only this long after it was lost (or after a restart found it):
   * the request it was in may still be running on the server until then (the server's timeout).
   */
  doubtSettleMs: number;
}

/**
 * A kept row as the writer gets it again (a replay): its message and target from their JSON. Throws on a row that does
 * not parse.
 */
export function itemOf<Target>(row: KeptRow): OutboxItem<Target> {
  const { msg, target } = JSON.parse(row.msg) as { msg: Msg; target: Target };
  return {
    id: row.id,
    epoch: row.epoch,
    msg,
    target,
    inDoubt: row.inDoubt,
    acceptedAt: row.acceptedAt,
    bytes: row.bytes,
    restored: true,
  };
}
