import type { MindsDBError } from '../shared';

/**
 * A message's deadline: an absolute time on `Date.now()`'s clock, set once when the message
 * reaches the client and shared by everything done for it: the wait for a connection slot, a
 * login, every attempt, the back-off between attempts, each redirect hop, the error body. Retries
 * therefore never stretch a message past the time its node allows. A number rather than an
 * object, so the hot path allocates nothing for it.
 */
export type DeadlineAt = number;

export function deadlineAfter(ms: number): DeadlineAt {
  return Date.now() + ms;
}

export function msLeft(at: DeadlineAt): number {
  return at - Date.now();
}

/** Resolves after `ms` (the caller checked that `ms` ends before its deadline). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
}

/**
 * `p`, or a rejection with `expired()` when the deadline comes first: for a wait the message
 * shares with others (a login under way), which must not hold it past its own deadline.
 */
export function within<T>(p: Promise<T>, at: DeadlineAt, expired: () => MindsDBError): Promise<T> {
  const left = msLeft(at);
  if (left <= 0) {
    // `p` is given up on, but it still settles: its rejection must not become an unhandled one.
    p.catch(() => undefined);
    return Promise.reject(expired());
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(expired()), left);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
