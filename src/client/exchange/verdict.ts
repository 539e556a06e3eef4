import { MindsDBError } from '../shared';
import { isNotSent } from './network-errors';

/**
 * What a failed request means: the one answer the whole package takes it from (the table of every
 * failure is in docs/fault-matrix.md, "What a failure means", checked by test/unit/verdict.test.js):
 * - `not-sent`: nothing reached the server (a connection refused, a host unknown, a proxy's tunnel
 *   refused, the server known down, a full request queue, a connection closed by a redeploy);
 * - `refused`: the server said it did not do it and may later (429, 503, with or without Retry-After);
 * - `may-have-landed`: it may have been done, and nothing in the failure says whether: the connection
 *   broke after it was sent, a gateway answered 502/504, no answer in time, the server failed while
 *   doing it (a 500), or its 2xx answer cannot be read (too large, not JSON);
 * - `final`: the outcome is settled for this message, nothing was done and sending it again cannot
 *   change that: the server refused it for itself (a 400, an SQL error, a 401 after a fresh login),
 *   the node refused it before sending (its own checks, msg.reset), a redirect not followed, a TLS
 *   certificate not accepted.
 * From it follow the retry (policy.ts), the server's health (client/connection/health.ts), the
 * outbox's keep / in doubt / final (runtime/outbox/outbox-policy.ts) and what a failed write tells of
 * its data (`storedAfter`: msg.mindsdb.stored).
 */
export type Verdict = 'not-sent' | 'refused' | 'may-have-landed' | 'final';

/** A certificate (or TLS setting) the client does not accept: nothing was sent, nor will be until it changes. */
const TLS_REFUSED = /^(ERR_TLS_|ERR_SSL_|EPROTO$|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|CERT_|HOSTNAME_MISMATCH)/;

export function verdictOf(err: unknown): Verdict {
  if (!(err instanceof MindsDBError)) return 'may-have-landed';
  switch (err.kind) {
    case 'network':
      // Any other break (ECONNRESET, UND_ERR_SOCKET, EPIPE, a code we do not know) may have come after it was sent.
      if (isNotSent(err)) return 'not-sent';
      return typeof err.code === 'string' && TLS_REFUSED.test(err.code) ? 'final' : 'may-have-landed';
    case 'queue-full':
    case 'closed':
      return 'not-sent';
    case 'http':
      return verdictOfStatus(err.status ?? 500);
    case 'timeout':
    case 'too-large':
    case 'invalid-response':
      return 'may-have-landed';
    default:
      // sql, auth, input, unsupported, redirect, reset
      return 'final';
  }
}

/** What an HTTP status that is not a success says of the request (a status alone: before its body is read). */
export function verdictOfStatus(status: number): Verdict {
  if (status === 429 || status === 503) return 'refused';
  return status >= 500 ? 'may-have-landed' : 'final';
}

/**
 * Of a request that may have been done: whether its answer was lost on the way (the connection broke,
 * a gateway stood for the server, the time ran out), so that another attempt may get one, and the
 * server may be gone. Not when the server itself answered that it failed (a 500) or answered what
 * cannot be read: another attempt gets the same answer.
 */
export function answerLost(err: unknown): boolean {
  if (!(err instanceof MindsDBError)) return false;
  switch (err.kind) {
    case 'network':
      return verdictOf(err) === 'may-have-landed';
    case 'timeout':
      return true;
    case 'http':
      return isGateway(err.status ?? 0);
    default:
      return false;
  }
}

/** A gateway's answer in front of the server (502, 504): the server behind it may be gone, its answer lost. */
export function isGateway(status: number): boolean {
  return status === 502 || status === 504;
}

/**
 * What a failed write tells of its data (msg.mindsdb.stored): `false` when nothing was stored,
 * `"unknown"` when that cannot be known, from the failed request's verdict (a failed read stored
 * nothing); `true` where an operation of several steps says so (a training whose wait failed after
 * MindsDB took it: MindsDBError's `stored`). `earlierInDoubt`: an earlier attempt may have stored it
 * and nothing has looked since (an outbox's message in doubt), so a failure that stored nothing now
 * still cannot say.
 */
export type Stored = boolean | 'unknown';

export function storedAfter(err: unknown, earlierInDoubt = false): Stored {
  const e = err instanceof MindsDBError ? err : undefined;
  // A read that failed (a lookup before the write) stored nothing, whatever its verdict.
  const read = e?.method === 'GET' || e?.method === 'HEAD';
  const now: Stored = e?.stored ?? (!read && verdictOf(err) === 'may-have-landed' ? 'unknown' : false);
  return now === false && earlierInDoubt ? 'unknown' : now;
}
