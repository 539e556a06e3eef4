/**
 * One error class for everything that can go wrong between a node and MindsDB, so a node (and a
 * Catch node downstream) can tell a bad request from a dead server without parsing text.
 * It never carries credentials: messages are built from the method, the path and the server's
 * own error text, and the server's text is passed through the redactor first.
 */
export type MindsDBErrorKind =
  | 'http' // the server answered with a non-2xx status
  | 'redirect' // a redirect the client does not follow (another host, a bad Location, too many hops, 301/302/303)
  | 'sql' // /sql/query answered 200 with type "error"
  | 'auth' // login failed, or 401 after a fresh login
  | 'unsupported' // the route does not exist on this server (e.g. skills on MindsDB 26)
  | 'network' // connection refused, reset, DNS, TLS
  | 'timeout' // no complete answer within the timeout
  | 'invalid-response' // the body is not the JSON we expected
  | 'too-large' // the body exceeds the configured maximum
  | 'queue-full' // too many requests waiting for this server
  | 'closed' // the client was closed (redeploy) before the request ran
  | 'reset' // msg.reset stopped or dropped the message's work (a batch, a sequence, an answer)
  | 'input'; // the message asked for something that cannot be sent

export interface MindsDBErrorInit {
  kind: MindsDBErrorKind;
  status?: number;
  /** The server's error code (SQL error_code) or the network error code (ECONNREFUSED …). */
  code?: string | number;
  /** The server's own error text (title/detail, error_message), already redacted. */
  serverMessage?: string;
  method?: string;
  path?: string;
  /**
   * What a failed operation left on the server that it could not remove, each said with how to
   * remove it (a create whose later step failed); absent when it left the server as it was.
   */
  leftover?: readonly string[];
  /**
   * What a failed write left stored, where its operation knows better than the verdict of its last
   * request (client/exchange/verdict.ts, storedAfter): a training MindsDB took whose wait failed
   * (true), a message the outbox never sent (false).
   */
  stored?: boolean | 'unknown';
}

export class MindsDBError extends Error {
  readonly kind: MindsDBErrorKind;
  readonly status?: number;
  readonly code?: string | number;
  readonly serverMessage?: string;
  readonly method?: string;
  readonly path?: string;
  readonly leftover?: readonly string[];
  readonly stored?: boolean | 'unknown';

  constructor(message: string, init: MindsDBErrorInit) {
    // No stack trace: these are operational errors (the server, the network, the msg), whose text
    // and fields say everything; a trace of our client's frames tells a flow builder nothing, and
    // capturing and formatting one (Node-RED puts err.stack on the msg for Catch) was more than
    // half the CPU time of refusing a message in the benchmark's overload burst.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'MindsDBError';
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.serverMessage = init.serverMessage;
    this.method = init.method;
    this.path = init.path;
    if (init.leftover?.length) this.leftover = init.leftover;
    if (init.stored !== undefined) this.stored = init.stored;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      status: this.status,
      code: this.code,
      serverMessage: this.serverMessage,
      method: this.method,
      path: this.path,
      ...(this.leftover ? { leftover: this.leftover } : {}),
    };
  }
}

/** Errors about the message itself (no request was made). */
export function inputError(message: string): MindsDBError {
  return new MindsDBError(message, { kind: 'input' });
}
