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

/** A write the store cannot account for (it restarted mid-commit, and this copy's lease ran out meanwhile). */
export function inDoubt(store: PgContext, doing: string): StoreError {
  return new StoreError(
    `${store.where} restarted while it was asked to ${doing}, and this copy's lease ran out before it answered ` +
      'again: another copy may have taken the rows over, so what became of them is not known here',
    'in-doubt',
    store.where,
  );
}
