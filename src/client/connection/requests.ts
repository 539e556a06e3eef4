import type { Repeat, ResponseBody } from '../exchange';
import type { MindsDBError } from '../shared';

/** What a call of the client takes and gives, besides SQL (./sql-answer.ts). */

export interface RequestOptions {
  /** This request's time budget, ms, instead of the client's. */
  timeoutMs?: number;
  /**
   * When the budget runs out (Date.now() clock), for a request that is one step of a message's
   * operation: every step then shares the message's one deadline (see `withDeadline`).
   */
  deadlineAt?: number;
  /**
   * How the request may be repeated once it may have reached the server (see
   * client/exchange/policy.ts); by default by method: GET yes, POST only with retryPost, PUT and
   * DELETE no. The resource modules declare what MindsDB's routes really are.
   */
  repeat?: Repeat;
  /** For a DELETE: the server's "not there" answer, which after a retry means the delete succeeded. */
  gone?: (err: MindsDBError) => boolean;
}

export interface SqlStreamOptions extends RequestOptions {
  /** The reader waits on the flow (msg.tick) between reads: the stream gives its slot back meanwhile. */
  flowControl?: boolean;
}

export interface ServerStatus {
  mindsdb_version?: string;
  environment?: string;
  auth?: { confirmed?: boolean; http_auth_enabled?: boolean; provider?: string };
  [key: string]: unknown;
}

/** A streamed answer (server-sent events): read `body`, then `release()` in every case. */
export interface OpenedAnswer {
  status: number;
  body: ResponseBody;
  release(): void;
}
