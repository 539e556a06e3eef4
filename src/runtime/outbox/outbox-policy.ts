import { answerLost, MindsDBError, sizeText, verdictOf } from '../../client';
import { StoreError } from '../../store';

/** The longest wait of the backlog between tries after a failed request. */
export const MAX_PAUSE_MS = 30_000;
/** Outcomes that come within this long share one commit of their rows' removal (removals.ts). */
export const GATHER_MS = 5;
/**
 * Messages written in one commit at most; a burst goes a slice per turn, so its first requests
 * leave while the rest are written, not after one long commit that holds the event loop.
 */
export const KEEP_PER_TURN = 500;
/**
 * Messages written in one commit at most to a shared store (its commits run one after another, off the event
 * loop). 500, not more: a burst's first requests leave once its first slice is kept, while the rest are written
 * (bench, outbox.cost_shared: 0.75 with 2,000, 0.9 with 500; 250 no better).
 */
export const KEEP_PER_SHARED_COMMIT = 500;

/**
 * What the outbox does with a message whose request failed, as the request's verdict says
 * (client/exchange/verdict.ts; the table in docs/outbox.md):
 * - `retry` (not sent, or refused without being done): it was not stored and the server did not
 *   take it. It stays in the outbox and is sent again when the server is back;
 * - `in-doubt` (may have been done, its answer lost on the way: a broken connection, a gateway's 502
 *   or 504, no answer in time): it stays only if the node can find out (a key column): the replay
 *   asks first; otherwise it ends as `stored: "unknown"`, as without the outbox;
 * - `final`: reported at Catch, never sent again: the verdict is final (an SQL error for its row, a
 *   400, a 401 after a fresh login: `stored: false`), or the server itself answered that it failed
 *   or with what cannot be read (a 500, a body too large: `stored: "unknown"`), which another
 *   attempt would only meet again.
 */
export type Keep = 'retry' | 'in-doubt' | 'final';

export function keepOf(err: unknown): Keep {
  switch (verdictOf(err)) {
    case 'not-sent':
    case 'refused':
      return 'retry';
    case 'may-have-landed':
      return answerLost(err) ? 'in-doubt' : 'final';
    default:
      return 'final';
  }
}

/** A message that does not fit in the node's outbox (the bound in MB), or whose message is larger than that alone. */
export function outboxFull(bytes: number, used: number, maxBytes: number, kept: number): MindsDBError {
  const why =
    bytes > maxBytes
      ? `this message alone (${sizeText(bytes)}) is larger than the node's outbox (${sizeText(maxBytes)})`
      : `the node's outbox is full (${kept} message(s), ${sizeText(used)} of its ${sizeText(maxBytes)})`;
  return new MindsDBError(
    `${why}: the message was not kept and not sent; raise the outbox size in the node, or let MindsDB catch up`,
    { kind: 'queue-full', code: 'EOUTBOXFULL', stored: false },
  );
}

/** A kept message whose earlier request may have stored it, and that no check can tell: it ends here, unsent. */
export function lostEarlier(): MindsDBError {
  return new MindsDBError(
    'the answer to an earlier attempt was lost (Node-RED stopped or the connection broke while it was sent): the ' +
      'message may or may not be stored, and was not sent again',
    { kind: 'network', code: 'EINDOUBT', stored: 'unknown' },
  );
}

/** A kept message older than the node's maximum age: it ends here, unsent. */
export function outboxExpired(acceptedAt: number, maxAgeMs: number): MindsDBError {
  const hours = maxAgeMs / 3_600_000;
  const age = hours >= 1 ? `${Number(hours.toFixed(2))} h` : `${Math.round(maxAgeMs / 1000)} s`;
  return new MindsDBError(
    `kept in the outbox since ${new Date(acceptedAt).toISOString()}, longer than its maximum age of ${age}, while ` +
      `MindsDB could not take it: not sent`,
    { kind: 'timeout', code: 'EOUTBOXEXPIRED', stored: false },
  );
}

/**
 * A message the outbox could not keep (its store is unreachable, full or read-only, or refused the
 * write): it is not sent either, never sent unkept (docs/outbox.md), and ends at Catch with why;
 * `stored: false`. Only a shared store that restarted mid-write, when it cannot say whether it
 * kept the message, makes it "unknown".
 */
export function notKept(err: unknown): MindsDBError {
  const why = err instanceof Error ? err.message : String(err);
  const unknown = err instanceof StoreError && err.kind === 'in-doubt';
  return new MindsDBError(
    `the outbox could not keep this message, so it was not sent: ${why}`,
    unknown
      ? { kind: 'network', code: 'EINDOUBT', stored: 'unknown' }
      : { kind: 'queue-full', code: 'EOUTBOXSTORE', stored: false },
  );
}

/**
 * Another copy of the flows took a row over (this copy's lease ran out: a long pause, a frozen
 * container): this copy does nothing more with it, no request, no output, no Catch; the copy that
 * holds it now owns its outcome.
 */
export class TakenOver extends Error {
  constructor() {
    super('another copy of the flows took this message over');
    this.name = 'TakenOver';
  }
}

/** A message that cannot be written down as JSON (a circular structure, a BigInt in an odd place). */
export function notKeepable(why: string): MindsDBError {
  return new MindsDBError(`the message cannot be kept in the outbox: it cannot be written as JSON (${why})`, {
    kind: 'input',
  });
}

/**
 * A message and its target as JSON for the outbox: everything but what only lives in this process
 * (an HTTP node's `req` and `res`, functions); a BigInt as its digits.
 */
export function messageJson(msg: object, target: unknown): string {
  // The usual message has neither, and JSON leaves functions out by itself: no replacer (half the cost).
  if (!('req' in msg || 'res' in msg)) {
    try {
      return JSON.stringify({ msg, target });
    } catch {
      /* a BigInt or a circle: the careful way below says which */
    }
  }
  try {
    return JSON.stringify({ msg, target }, function (this: unknown, key: string, value: unknown) {
      if (this === msg && (key === 'req' || key === 'res')) return undefined;
      if (typeof value === 'bigint') return value.toString();
      return typeof value === 'function' ? undefined : value;
    });
  } catch (err) {
    throw notKeepable(err instanceof Error ? err.message : String(err));
  }
}
