import { MindsDBError } from '../../client';
import type { Msg } from '../node/red';

/**
 * Control messages, as Node-RED's core nodes take them (delay, trigger, join): a message with
 * `msg.reset` or `msg.flush` set acts on what the node holds (a micro-batch, a sequence under way,
 * a position, a conversation) and is not itself a request: it runs no query, sends nothing and
 * ends with done(). What each one does per node is written in the node's help (Inputs).
 */
export interface Control {
  /** `msg.reset` was set: its value (true, or what a node may read from it, such as a position). */
  reset?: { value: unknown };
  /** `msg.flush` was set (and `msg.reset` was not: a reset wins). */
  flush: boolean;
}

/** The control a message carries, or undefined for an ordinary message. */
export function controlOf(msg: Msg): Control | undefined {
  const reset = has(msg, 'reset');
  const flush = has(msg, 'flush');
  if (!reset && !flush) return undefined;
  return reset ? { reset: { value: msg.reset }, flush: false } : { flush: true };
}

/** Set as the core nodes read it (hasOwnProperty), but an explicit undefined is no control. */
function has(msg: Msg, name: 'reset' | 'flush'): boolean {
  return Object.hasOwn(msg, name) && msg[name] !== undefined;
}

/**
 * The error a message ends with when msg.reset stopped or dropped its work: kind "reset" (its own
 * status text), so a Catch node can tell it from a failure.
 */
export function resetError(message: string): MindsDBError {
  return new MindsDBError(message, { kind: 'reset', code: 'RESET' });
}

/** What msg.flush and msg.reset do to a micro-batching node (predict, table): send its open batch now, or drop it. */
export function controlBatch(
  batcher: { flushNow(): void; dropOpen(reason: Error): number } | undefined,
  control: Control,
): void {
  if (!batcher) return;
  if (control.reset)
    batcher.dropOpen(resetError('msg.reset dropped the micro-batch this message waited in: nothing of it was sent'));
  else batcher.flushNow();
}
