import type { IncomingHttpHeaders } from 'node:http';
import type { MindsDBError } from '../shared';
import { msLeft, type DeadlineAt } from './deadline';
import { answerLost, verdictOf } from './verdict';

/**
 * How a request may be sent again after it may have reached the server. Whoever knows the
 * resource decides (the facade for SQL and predict, the resource modules for their PUTs and
 * DELETEs); the default is by method (see `repeatOf`):
 * - `idempotent`: sending it twice leaves the server as sending it once (GET; a PUT that sets a
 *   record to given values; a DELETE whose "not there" answer the caller recognises, see `gone`);
 * - `post`: repeated only when the user turned on *Retry POST* for an idempotent flow;
 * - `never`: never repeated once it may have landed (a knowledge-base insert appends rows, a file
 *   upload stores a file, an agent completion is a billed LLM call).
 * Whatever its class, a request that provably never reached the server, or that the server
 * refused without doing it (429, 503), may be sent again: that cannot change the outcome.
 */
export type Repeat = 'idempotent' | 'post' | 'never';

export function repeatOf(method: string, declared: Repeat | undefined, hasGone: boolean): Repeat {
  if (declared) return declared;
  if (method === 'GET' || method === 'HEAD' || hasGone) return 'idempotent';
  return method === 'POST' ? 'post' : 'never';
}

/**
 * Retry-After as milliseconds from now: delta-seconds ("120") or an HTTP date; undefined when
 * absent or unreadable. (undici parses it inside its RetryHandler only; it exports no parser.)
 */
export function retryAfterMs(headers: IncomingHttpHeaders | undefined, now = Date.now()): number | undefined {
  const raw = headers?.['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface RetrySettings {
  /** Extra attempts after the first. */
  retries: number;
  /** First back-off ceiling, ms; doubles each attempt, full jitter. */
  baseDelayMs: number;
  /** The user's *Retry POST*: `post` requests count as idempotent. */
  retryPost: boolean;
}

const MAX_BACKOFF_MS = 5_000;

/** Why a failure is not retried, when it could have been but time or attempts ran out. */
export type GiveUp = { retry: false; note?: string };
export type Decision = { retry: true; delayMs: number } | GiveUp;

/**
 * The retry rule of every exchange (whole answers, streams, server-sent events): retry only where
 * it cannot change the outcome, back off (honouring Retry-After) within the message's deadline,
 * and report everything else once. Hand-written rather than undici's RetryAgent/retry
 * interceptor: that one drops an error answer's body (the server's reason in MindsDB's
 * {title, detail}) once its retries are spent, caps Retry-After at a fixed maximum instead of the
 * message's deadline, retries 500s, and cannot re-login between attempts; and on the hot path it
 * costs 3.7 µs of CPU per request (13 %; 10 % fewer requests per second) where this rule costs one
 * status comparison (bench/interceptors.mjs, figures in bench/README.md).
 */
export class RetryPolicy {
  constructor(private readonly settings: RetrySettings) {}

  decide(
    attempt: number,
    repeat: Repeat,
    err: MindsDBError,
    retryAfter: number | undefined,
    deadlineAt: DeadlineAt,
  ): Decision {
    // From the verdict (verdict.ts): what was not sent or was refused goes again; what may have been
    // done only when it is idempotent and its answer was lost on the way (a 500 or an unreadable
    // answer would come again; a timeout has used the message's time).
    const verdict = verdictOf(err);
    if (verdict === 'final') return { retry: false };
    const repeatable = repeat === 'idempotent' || (repeat === 'post' && this.settings.retryPost);
    if (verdict === 'may-have-landed' && !(repeatable && answerLost(err))) return { retry: false };
    if (attempt >= this.settings.retries) return { retry: false };
    const left = msLeft(deadlineAt);
    if (verdict === 'refused' && retryAfter !== undefined) {
      if (retryAfter >= left) {
        return {
          retry: false,
          note:
            `the server asked to wait ${Math.ceil(retryAfter / 1000)} s (Retry-After), longer than this ` +
            `message's time limit allows`,
        };
      }
      return { retry: true, delayMs: retryAfter };
    }
    const ceiling = Math.min(MAX_BACKOFF_MS, this.settings.baseDelayMs * 2 ** attempt);
    const delayMs = Math.random() * ceiling; // full jitter: spreads the retries of many flows apart
    return delayMs < left ? { retry: true, delayMs } : { retry: false };
  }
}
