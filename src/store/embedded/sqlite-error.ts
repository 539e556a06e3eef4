import { StoreError, type StoreErrorKind } from '../api';

/** SQLite's primary result codes (the low byte of an extended code) that we tell apart. */
const KIND_OF_CODE: Record<number, StoreErrorKind> = {
  5: 'busy', // SQLITE_BUSY
  6: 'busy', // SQLITE_LOCKED
  8: 'read-only', // SQLITE_READONLY
  10: 'unavailable', // SQLITE_IOERR
  11: 'corrupt', // SQLITE_CORRUPT
  13: 'full', // SQLITE_FULL
  14: 'unavailable', // SQLITE_CANTOPEN
  23: 'read-only', // SQLITE_AUTH
  26: 'corrupt', // SQLITE_NOTADB
};

const ADVICE: Record<StoreErrorKind, string> = {
  full: "the disk (or the store's size limit) is full: free space",
  'read-only': 'the file or its folder is read-only: give Node-RED write access',
  busy: 'another process holds the file: is a second Node-RED running on the same user directory?',
  corrupt: 'the file is damaged: stop Node-RED and move it away (its content is lost)',
  unavailable: 'the file cannot be opened or written: check the folder and its permissions',
  unreachable: 'the file cannot be reached: check the folder',
  refused: 'the file cannot be opened: check its permissions',
  'in-doubt': 'see the message',
  other: 'see the message',
};

/** Any error from node:sqlite or the file system, as a StoreError that names the file and what to do. */
export function storeError(err: unknown, file: string, doing: string): StoreError {
  if (err instanceof StoreError) return err;
  const e = err as { errcode?: unknown; code?: unknown; message?: unknown };
  const fsKind: StoreErrorKind | undefined =
    e.code === 'ENOSPC'
      ? 'full'
      : e.code === 'EROFS' || e.code === 'EACCES' || e.code === 'EPERM'
        ? 'read-only'
        : undefined;
  const kind = typeof e.errcode === 'number' ? (KIND_OF_CODE[e.errcode & 0xff] ?? 'other') : (fsKind ?? 'other');
  const why = typeof e.message === 'string' ? e.message : String(err);
  return new StoreError(`the MindsDB nodes' store (${file}) could not ${doing}: ${why} (${ADVICE[kind]})`, kind, file);
}
