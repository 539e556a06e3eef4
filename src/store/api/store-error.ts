/**
 * Why a store could not do what was asked, in the words a user can act on. The kinds a caller
 * branches on: `full` and `read-only` are the user's to fix; `busy` is another connection holding
 * the embedded file (a second Node-RED on the same user directory); `corrupt` needs the file moved
 * away; `unreachable` is a shared store that does not answer (it is tried again by itself);
 * `refused` is a shared store that answered no (a wrong password, no permission, a wrong database);
 * `in-doubt`: a shared store restarted mid-write and cannot say whether the write was kept.
 */
export type StoreErrorKind =
  | 'full'
  | 'read-only'
  | 'busy'
  | 'corrupt'
  | 'unavailable'
  | 'unreachable'
  | 'refused'
  | 'in-doubt'
  | 'other';

export class StoreError extends Error {
  /**
   * `where` names the store as a user knows it (the embedded file's path, or the shared store's
   * name, host, database and schema: never a password).
   */
  constructor(
    message: string,
    readonly kind: StoreErrorKind,
    readonly where: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Any error as a StoreError (one already is one; anything else keeps its text, kind `other`). */
export function asStoreError(err: unknown, where: string): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(err instanceof Error ? err.message : String(err), 'other', where);
}
