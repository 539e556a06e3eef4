import { Exchanger, repeatOf, type AuthOptions, type HttpAuthType, type Exchange, type OpenedResponse, type Repeat, type TlsOptions } from '../exchange';
import { MindsDBError, inputError, jsonText, normalisePrefix, RawBody, type Row, segment, Redactor, isPlainObject, MAX_TIMER_MS } from '../shared';
import { JsonAnswerParser, JsonLinesParser, SqlResultStream } from '../answers';
import { ModelTargets, VersionCache } from './caches';
import { checkSqlAnswer, invalid, nativeQueryRefusal, sqlBody, supportsJsonLines, type SqlAnswer, type SqlRequest } from './sql-answer';

export interface ClientOptions {
  /** e.g. http://127.0.0.1:47334 (a path after the host is kept in front of the API prefix). */
  baseUrl: string;
  /** API path prefix, default "/api". */
  apiPrefix?: string;
  auth?: AuthOptions;
  /**
   * The tenant on a multi-tenant MindsDB: sent as the `company-id` / `user-id` headers on every
   * request to this server (MindsDB's before_request sets the tenant from them; a blank one is
   * not sent, and the server then uses its default tenant).
   */
  tenant?: { companyId?: string; userId?: string };
  /** Default time budget of one request, ms (default 60 000): retries and back-off included. */
  timeoutMs?: number;
  /** Extra attempts where repeating cannot change the outcome (default 2). */
  retries?: number;
  /** Also repeat POSTs that may have reached the server (default false). */
  retryPost?: boolean;
  /** First backoff delay, ms; doubles each attempt, with full jitter (default 200). */
  retryBaseDelayMs?: number;
  /** Requests in flight at once (default 8). */
  maxInFlight?: number;
  /** Requests waiting for a slot before "queue full" errors (default 1000). */
  maxQueue?: number;
  /** Largest response body accepted (default 64 MiB); for streams, the largest line, row or event. */
  maxResponseBytes?: number;
  tls?: TlsOptions;
}

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

export { checkSqlAnswer, nativeQueryRefusal, supportsJsonLines };
export type { SqlAnswer, SqlRequest };

const DEFAULTS = {
  timeoutMs: 60_000,
  retries: 2,
  retryBaseDelayMs: 200,
  maxInFlight: 8,
  maxQueue: 1000,
  maxResponseBytes: 64 * 1024 * 1024,
};

/** Until an attempt fills them in. */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * A client for one MindsDB server's REST API: what it can do against that server. One instance
 * per server; how each request travels (its deadline, size limit, retries, login and connection
 * slot) is the exchange policy's (client/exchange/exchanger.ts). It knows nothing of Node-RED.
 */
export class MindsDBClient {
  readonly baseUrl: string;
  readonly redactor = new Redactor();
  /** The largest answer (for a stream: line, row or event) accepted, bytes. */
  readonly maxResponseBytes: number;
  private readonly prefix: string;
  private readonly sqlPath: string;
  private readonly timeoutMs: number;
  private readonly exchanger: Exchanger;
  private readonly version: VersionCache;
  private readonly targets: ModelTargets;
  /** The last SQL body sent (see sqlText). */
  private lastSql: { query: string; db: string | undefined; text: string } | undefined;

  constructor(opts: ClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw inputError(`the MindsDB server URL "${String(opts.baseUrl)}" is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw inputError(`the MindsDB server URL must start with http:// or https:// (got "${url.protocol}")`);
    }
    if (url.username || url.password) {
      throw inputError('put MindsDB credentials in the server node\'s credentials, not in the URL');
    }
    this.baseUrl = url.origin + url.pathname.replace(/\/+$/, '');
    this.prefix = url.pathname.replace(/\/+$/, '') + normalisePrefix(opts.apiPrefix);
    this.sqlPath = `${this.prefix}/sql/query`;
    this.timeoutMs = Math.min(MAX_TIMER_MS, positive(opts.timeoutMs, DEFAULTS.timeoutMs));
    this.maxResponseBytes = positive(opts.maxResponseBytes, DEFAULTS.maxResponseBytes);
    const auth = opts.auth ?? { mode: 'none' };
    this.redactor.setSecrets(secretsOf(auth));
    this.exchanger = new Exchanger({
      origin: url.origin,
      prefix: this.prefix,
      auth,
      headers: tenantHeaders(opts.tenant),
      timeoutMs: this.timeoutMs,
      retries: Math.max(0, Math.floor(opts.retries ?? DEFAULTS.retries)),
      retryPost: opts.retryPost ?? false,
      retryBaseDelayMs: Math.max(0, opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs),
      maxInFlight: Math.floor(positive(opts.maxInFlight, DEFAULTS.maxInFlight)),
      maxQueue: Math.max(0, Math.floor(opts.maxQueue ?? DEFAULTS.maxQueue)),
      maxResponseBytes: this.maxResponseBytes,
      tls: opts.tls,
    }, this.redactor);
    this.version = new VersionCache((timeoutMs) => this.status({ timeoutMs }), `${this.prefix}/status`);
    this.targets = new ModelTargets((project, model) => this.request('GET', `/projects/${segment(project, 'project')}/models/${segment(model, 'model')}`));
    this.exchanger.onNetworkFailure = () => this.version.forget();
  }

  /** The default time limit of one request, ms (also the longest a streamed answer may sit idle). */
  get requestTimeoutMs(): number { return this.timeoutMs; }

  /**
   * The server's `http_auth_type` (session, token or session_or_token), as its login answer
   * showed it; undefined until a login (login mode only; /status does not tell).
   */
  get httpAuthType(): HttpAuthType | undefined { return this.exchanger.httpAuthType; }

  /** Requests in flight and waiting, for status displays. */
  get load(): { inFlight: number; queued: number } { return this.exchanger.load; }

  /**
   * Sends one API request. `path` is relative to the API prefix and its segments must already be
   * encoded (use `segment()`). Resolves with the parsed JSON body (null for an empty one).
   */
  request<T = unknown>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    let exchange: Exchange;
    // A body that breaks the value rule is this request's error, as a rejection like any other.
    try { exchange = this.exchange(method, this.prefix + path, body, opts); } catch (err) { return Promise.reject(err); }
    return this.exchanger.whole(exchange) as Promise<T>;
  }

  /**
   * Opens a streaming request (server-sent events), under the request's deadline as a whole. The
   * caller reads `body` and must call `release()`, which drops what is left unread; the
   * connection slot is held until then.
   */
  async stream(method: string, path: string, body: unknown, opts?: RequestOptions): Promise<OpenedResponse & { release(): void }> {
    const res = await this.exchanger.openStream(this.exchange(method, this.prefix + path, body, opts), { paced: false, parkable: false });
    return { status: res.status, headers: res.headers, body: res.body, release: () => res.hold.release() };
  }

  /** GET {prefix}/status: version and auth state; public on every MindsDB version. */
  async status(opts?: RequestOptions): Promise<ServerStatus> {
    const timeoutMs = this.budget(opts);
    const body = await this.exchanger.whole(this.exchanger.statusExchange(opts?.deadlineAt ?? Date.now() + timeoutMs, timeoutMs));
    if (!isPlainObject(body)) throw invalid('GET', `${this.prefix}/status`, 'a status object');
    return body as ServerStatus;
  }

  /** The server's MindsDB version ("26.1.0"), asked once and kept (see VersionCache). */
  serverVersion(opts?: RequestOptions): Promise<string> {
    return this.version.get(opts?.deadlineAt === undefined ? opts?.timeoutMs : Math.max(1, opts.deadlineAt - Date.now()));
  }

  /** Runs one SQL statement. A `type: "error"` answer becomes a MindsDBError of kind 'sql'. */
  sql(req: SqlRequest, opts?: RequestOptions): Promise<SqlAnswer> {
    return new Promise((resolve, reject) => { this.sqlTo(req, opts, (err, answer) => (err ? reject(err) : resolve(answer as SqlAnswer))); });
  }

  /**
   * `sql` without a promise, for a node's per-message path: `done` is called once, with the
   * answer or the error (see Exchanger.wholeTo). `done` must not throw. Only a native query waits
   * for the server's version first (checkNative); the plain one goes straight out.
   */
  sqlTo(req: SqlRequest, opts: RequestOptions | undefined, done: (err: MindsDBError | null, answer?: SqlAnswer) => void): void {
    let text: string;
    try { text = this.sqlText(req); } catch (err) { done(err as MindsDBError); return; }
    const exchange = this.exchangeOf('POST', this.sqlPath, text, undefined, opts);
    const send = (): void => this.exchanger.wholeTo(exchange, (err, value) => {
      if (err) { done(err); return; }
      let answer: SqlAnswer;
      try { answer = checkSqlAnswer(value, this.redactor, this.sqlPath); } catch (e) { done(e as MindsDBError); return; }
      done(null, answer);
    });
    if (req.native) this.checkNative(exchange.deadlineAt).then(send, (err: unknown) => done(err as MindsDBError));
    else send();
  }

  /**
   * Refuses a native query before it is sent to a server that cannot run it (nativeQueryRefusal):
   * a server before 26.0.1 would silently parse it as MindsDB SQL instead. A server whose
   * version cannot be learnt is not guessed at: the query fails with the reason.
   */
  private async checkNative(deadlineAt: number): Promise<void> {
    let version: string;
    try {
      version = await this.serverVersion({ deadlineAt });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new MindsDBError(`a native query needs to know the MindsDB version first, and ${this.prefix}/status did not say: ${why}`,
        { kind: err instanceof MindsDBError ? err.kind : 'invalid-response', method: 'GET', path: `${this.prefix}/status` });
    }
    const refusal = nativeQueryRefusal(version);
    if (refusal) throw new MindsDBError(refusal, { kind: 'unsupported', method: 'POST', path: this.sqlPath });
  }

  /**
   * Runs one SQL statement and reads its answer as it arrives (see SqlResultStream). MindsDB ≥
   * 26.1 is asked for `response_format: "jsonlines"`; older servers send their usual JSON body,
   * which is parsed incrementally. The request's deadline covers everything until the answer
   * started (an error answer's body included); after that, each wait for data has the same limit.
   * `maxResponseBytes` bounds one line (jsonlines) or one row (JSON body) instead of the whole
   * answer. With `flowControl`, the stream holds no connection slot while its reader waits on the
   * flow (SqlResultStream.waitOnFlow).
   */
  async sqlStream(req: SqlRequest, opts?: SqlStreamOptions): Promise<SqlResultStream> {
    const body = sqlBody(req);
    const exchange = this.exchange('POST', this.sqlPath, body, opts);
    if (req.native) await this.checkNative(exchange.deadlineAt);
    // A server whose version cannot be learnt gets the request every version understands.
    const version = await this.serverVersion({ deadlineAt: exchange.deadlineAt }).catch(() => undefined);
    if (supportsJsonLines(version)) {
      body.response_format = 'jsonlines';
      exchange.body = JSON.stringify(body);
    }
    const res = await this.exchanger.openStream(exchange, { paced: true, parkable: opts?.flowControl === true });
    const jsonLines = String(res.headers['content-type'] ?? '').includes('jsonlines');
    const parser = jsonLines ? new JsonLinesParser(this.sqlPath, this.maxResponseBytes, this.redactor) : new JsonAnswerParser(this.sqlPath, this.maxResponseBytes);
    const chunks = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const source = { next: () => chunks.next(), destroy: (err?: Error) => { res.body.destroy(err); } };
    const stream = new SqlResultStream(source, parser, exchange.timeoutMs, this.sqlPath, this.redactor, res.hold);
    try {
      await stream.open();
    } catch (err) {
      stream.close();
      throw err;
    }
    return stream;
  }

  /** POST …/models/{model}/predict with `{data, params}`; resolves with the prediction rows. */
  async predict(project: string, model: string, rows: Row[], params?: Record<string, unknown>, opts?: RequestOptions): Promise<Row[]> {
    const path = `/projects/${segment(project, 'project')}/models/${segment(model, 'model')}/predict`;
    const body = params === undefined ? { data: rows } : { data: rows, params };
    const answer = await this.request<unknown>('POST', path, body, opts);
    if (!Array.isArray(answer) || !answer.every(isPlainObject)) {
      throw invalid('POST', this.prefix + path, 'an array of prediction rows', answer);
    }
    return answer as Row[];
  }

  /** The target column of a model (kept per client); undefined when it cannot be learnt. */
  modelTarget(project: string, model: string): Promise<string | undefined> {
    return this.targets.get(project, model);
  }

  /** Closes the pool: waiting requests fail, in-flight ones finish (or are cut after `graceMs`). */
  close(graceMs?: number): Promise<void> {
    return this.exchanger.close(graceMs);
  }

  /**
   * `opts` with the message's deadline fixed now, for an operation of several requests (a file
   * replace, a lookup before a write): each step then gets what is left of one budget.
   */
  withDeadline<T extends RequestOptions>(opts: T | undefined): T & { deadlineAt: number } {
    if (opts?.deadlineAt !== undefined) return opts as T & { deadlineAt: number };
    return { ...(opts as T), deadlineAt: Date.now() + this.budget(opts) };
  }

  /**
   * The JSON text of an SQL request's body. A node with a fixed query sends the same text with
   * every message (no parameters, the same database): it is made once and kept, one entry.
   */
  private sqlText(req: SqlRequest): string {
    const db = req.context && Object.keys(req.context).length === 1 ? req.context.db : undefined;
    // A native query's body differs in a flag the key does not hold: never kept.
    const cacheable = !req.native && req.params === undefined && (req.context === undefined || typeof db === 'string');
    const last = this.lastSql;
    if (cacheable && last && last.query === req.query && last.db === db) return last.text;
    const text = JSON.stringify(sqlBody(req));
    if (cacheable) this.lastSql = { query: req.query, db: db as string | undefined, text };
    return text;
  }

  /** One message's request: its deadline starts now (or is the message's), and covers everything done for it. */
  private exchange(method: string, path: string, body: unknown, opts: RequestOptions | undefined): Exchange {
    const raw = body instanceof RawBody ? body : undefined;
    // Every JSON body by the one rule for values that are not plain JSON (../shared/json-value.ts).
    return this.exchangeOf(method, path, raw ? undefined : body === undefined ? undefined : jsonText(body, 'the request body'), raw, opts);
  }

  private exchangeOf(method: string, path: string, text: string | undefined, raw: RawBody | undefined, opts: RequestOptions | undefined): Exchange {
    const timeoutMs = this.budget(opts);
    return {
      method,
      path,
      headers: NO_HEADERS,
      body: raw ? raw.data : text,
      timeoutMs,
      deadlineAt: opts?.deadlineAt ?? Date.now() + timeoutMs,
      // An upload may have been stored before the connection broke: never repeated once sent.
      repeat: raw ? 'never' : repeatOf(method, opts?.repeat, opts?.gone !== undefined),
      gone: opts?.gone,
      contentType: raw?.contentType,
      anonymous: false,
    };
  }

  private budget(opts: RequestOptions | undefined): number {
    const t = opts?.timeoutMs;
    return t === undefined ? this.timeoutMs : Math.min(MAX_TIMER_MS, positive(t, this.timeoutMs));
  }
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

/**
 * The tenant headers, checked here so that a bad value is a clear input error and not undici's
 * "invalid header" on the first request: visible ASCII only (no spaces, no line breaks).
 */
function tenantHeaders(tenant: ClientOptions['tenant']): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [header, value] of [['company-id', tenant?.companyId], ['user-id', tenant?.userId]] as const) {
    const v = (value ?? '').trim();
    if (v === '') continue;
    if (!/^[\x21-\x7e]+$/.test(v)) throw inputError(`the tenant header ${header} must be visible ASCII characters without spaces (got ${JSON.stringify(v.slice(0, 40))})`);
    out[header] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function secretsOf(auth: AuthOptions): string[] {
  switch (auth.mode) {
    case 'session': return [auth.session];
    case 'token': return [auth.token];
    case 'login': return [auth.password];
    default: return [];
  }
}
