import { StoreError, type StoreErrorKind } from '../api';

/**
 * What a failed call to PostgreSQL means for what it asked:
 * - `not-sent`: nothing reached the store (no connection: refused, unknown host, a timeout while
 *   connecting, the server starting or stopping); the write did not happen;
 * - `maybe`: the connection broke while the statement was under way (a restart mid-commit): it may
 *   have been committed, so a write is looked up (or repeated, where it is idempotent), never guessed;
 * - `failed`: the store answered no for the statement itself (a full disk, no permission): nothing
 *   was committed.
 */
export type Failure = 'not-sent' | 'maybe' | 'failed';

interface PgLikeError {
  code?: unknown;
  message?: unknown;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
]);

/** The SQLSTATE or socket code of an error, if it has one. */
const codeOf = (err: unknown): string => {
  const code = (err as PgLikeError | undefined)?.code;
  return typeof code === 'string' ? code : '';
};

/** What a failed call means (`connecting`: the error came while a connection was being made). */
export function failureOf(err: unknown, connecting: boolean): Failure {
  const code = codeOf(err);
  if (connecting) return 'not-sent';
  if (/^(08|57)/.test(code) || UNREACHABLE_CODES.has(code) || code === 'ECONNRESET' || code === 'EPIPE') return 'maybe';
  if (/^[0-9A-Z]{5}$/.test(code)) return 'failed'; // the store's own answer: the statement was refused whole
  const text = String((err as PgLikeError | undefined)?.message ?? err);
  if (/not queryable|Client was closed/i.test(text)) return 'not-sent';
  return 'maybe'; // "Connection terminated unexpectedly", a query timeout, anything else on the wire
}

/** The kind of a store error, for the caller and the text's advice. */
export function kindOf(err: unknown, failure: Failure): StoreErrorKind {
  const code = codeOf(err);
  if (/^28/.test(code) || code === '3D000' || code === '42501' || code === '3F000') return 'refused';
  if (/^53/.test(code)) return 'full';
  if (code === '25006') return 'read-only';
  return failure === 'failed' ? 'other' : 'unreachable';
}

const ADVICE: Record<StoreErrorKind, string> = {
  refused:
    "check the state store node's user and password, its database, and that the user may create the schema and " +
    'its tables',
  full: "the store's disk is full: free space on the PostgreSQL server",
  'read-only': 'the PostgreSQL server takes no writes (a standby?): point the state store node at the primary',
  unreachable: 'is PostgreSQL running, and are the host and port in the URL right? It is tried again by itself',
  busy: 'see the message',
  corrupt: 'see the message',
  unavailable: 'see the message',
  'in-doubt': 'see the message',
  other: 'see the message',
};

/** A pg error as a StoreError that names the store and what to do, with the password taken out. */
export function pgStoreError(
  err: unknown,
  where: string,
  doing: string,
  failure: Failure,
  redact: (text: string) => string,
): StoreError {
  if (err instanceof StoreError) return err;
  const kind = kindOf(err, failure);
  const raw = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  const why = redact(raw || code || 'no answer');
  return new StoreError(`${where} could not ${doing}: ${why} (${ADVICE[kind]})`, kind, where);
}
