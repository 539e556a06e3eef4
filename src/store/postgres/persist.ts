import { StoreError } from '../api';
import { surelyUndone, unreachable } from './database';
import type { PgContext } from './context';

/**
 * Runs an idempotent write until the store has answered it: after a failure that left it undone
 * or in doubt (the store away, a restart mid-commit), it is sent again once the store answers,
 * for as long as the store is open. `attempt(repeated)`: `repeated` says an earlier attempt may
 * have been committed (so a row it finds gone may be one it removed itself).
 */
export async function persist<T>(store: PgContext, attempt: (repeated: boolean) => Promise<T>): Promise<T> {
  let repeated = false;
  for (;;) {
    try {
      return await attempt(repeated);
    } catch (err) {
      if (!unreachable(err)) throw err;
      repeated ||= !surelyUndone(err);
      await store.database.whenReachable();
    }
  }
}

/**
 * Runs a write that has not reached the store when it fails (no connection): while the store is
 * away it is tried again once it answers, for up to `waitMs` (a restart or a failover is ridden
 * out); then it fails with why. Only for a write whose failure leaves it undone for sure.
 */
export function whenBack<T>(store: PgContext, waitMs: number, attempt: () => Promise<T>): Promise<T> {
  return retryWithin(store, waitMs, attempt, (err) => surelyUndone(err));
}

/**
 * Runs a read, or a write this copy may repeat whatever became of the first attempt (taking a
 * lease it may already hold), again once the store answers, for up to `waitMs`.
 */
export async function retryWithin<T>(
  store: PgContext,
  waitMs: number,
  attempt: () => Promise<T>,
  repeatable: (err: unknown) => boolean = () => true,
): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      const left = until - Date.now();
      if (!unreachable(err) || !repeatable(err) || left <= 0) throw err;
      await store.database.whenReachable(left, err as StoreError);
    }
  }
}

/** A write the store cannot account for (it restarted mid-commit, and this copy's lease ran out meanwhile). */
export function inDoubt(store: PgContext, doing: string): StoreError {
  return new StoreError(
    `${store.where} restarted while it was asked to ${doing}, and this copy's lease ran out before it answered ` +
      'again: another copy may have taken the rows over, so what became of them is not known here',
    'in-doubt',
    store.where,
  );
}
