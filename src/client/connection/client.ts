import { Authenticator, type AuthOptions, discard, RequestLimiter, httpError, parseSuccessBody, isNotSent, HttpTransport, readText, type OpenedResponse, type TextResponse, type TlsOptions } from '../exchange';
import { MindsDBError, inputError, normalisePrefix, RawBody, type Row, segment, Redactor, describeType, isPlainObject as isObject, MAX_TIMER_MS } from '../shared';
import { JsonAnswerParser, JsonLinesParser, SqlResultStream } from '../answers';

export interface ClientOptions {
  /** e.g. http://127.0.0.1:47334 (a path after the host is kept in front of the API prefix). */
  baseUrl: string;
  /** API path prefix, default "/api". */
  apiPrefix?: string;
  auth?: AuthOptions;
  /** Default timeout for one request, ms (default 60 000). */
  timeoutMs?: number;
  /** Extra attempts for requests that are safe to repeat (default 2). */
  retries?: number;
  /** Also retry POSTs that may have reached the server (default false). */
  retryPost?: boolean;
  /** First backoff delay, ms; doubles each attempt, with full jitter (default 200). */
  retryBaseDelayMs?: number;
  /** Requests in flight at once (default 8); also the pool's socket count. */
  maxInFlight?: number;
  /** Requests waiting for a slot before "queue full" errors (default 1000). */
  maxQueue?: number;
  /** Largest response body accepted (default 64 MiB). */
  maxResponseBytes?: number;
  tls?: TlsOptions;
}

export interface RequestOptions {
  timeoutMs?: number;
}

export interface ServerStatus {
  mindsdb_version?: string;
  environment?: string;
  auth?: { confirmed?: boolean; http_auth_enabled?: boolean; provider?: string };
  [key: string]: unknown;
}

export interface SqlRequest {
  query: string;
  /** Values for `:name` placeholders, bound by the server (MindsDB ≥ 25.12). */
  params?: Record<string, unknown>;
  /** Session context, e.g. { db: 'mindsdb' }. */
  context?: Record<string, unknown>;
}

export interface SqlAnswer {
  type: 'table' | 'ok';
  column_names: string[];
  data: unknown[][];
  context?: Record<string, unknown>;
  affected_rows?: number | null;
}

/** A request as `execute` prepared it: full path, body text, deadline, whether it may be repeated. */
interface PreparedRequest {
  method: string;
  path: string;
  /** JSON text, or the bytes of a RawBody. */
  body: string | Buffer | undefined;
  /** A RawBody's content type, sent instead of JSON's. */
  contentType?: string;
  timeoutMs: number;
  mayRepeat: boolean;
}

/** The auth headers, with a RawBody's content type when the request has one. */
function headersFor(req: PreparedRequest, headers: Readonly<Record<string, string>>): Record<string, string> {
  return (req.contentType ? { ...headers, 'content-type': req.contentType } : headers) as Record<string, string>;
}

const DEFAULTS = {
  timeoutMs: 60_000,
  retries: 2,
  retryBaseDelayMs: 200,
  maxInFlight: 8,
  maxQueue: 1000,
  maxResponseBytes: 64 * 1024 * 1024,
};
const MAX_BACKOFF_MS = 5_000;

/**
 * A client for one MindsDB server's REST API. One instance per server: it owns the keep-alive
 * pool, the in-flight limit and the login state. It knows nothing of Node-RED.
 */
export class MindsDBClient {
  readonly baseUrl: string;
  readonly redactor = new Redactor();
  private readonly prefix: string;
  private readonly transport: HttpTransport;
  private readonly limiter: RequestLimiter;
  private readonly auth: Authenticator;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryPost: boolean;
  private readonly retryBaseDelayMs: number;
  private readonly maxResponseBytes: number;
  private readonly modelTargets = new Map<string, Promise<string | undefined>>();
  private version?: Promise<string>;
  private closed = false;

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
    this.timeoutMs = Math.min(MAX_TIMER_MS, positive(opts.timeoutMs, DEFAULTS.timeoutMs));
    this.retries = Math.max(0, Math.floor(opts.retries ?? DEFAULTS.retries));
    this.retryPost = opts.retryPost ?? false;
    this.retryBaseDelayMs = Math.max(0, opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs);
    this.maxResponseBytes = positive(opts.maxResponseBytes, DEFAULTS.maxResponseBytes);
    const maxInFlight = Math.floor(positive(opts.maxInFlight, DEFAULTS.maxInFlight));
    this.limiter = new RequestLimiter(maxInFlight, Math.max(0, Math.floor(opts.maxQueue ?? DEFAULTS.maxQueue)));
    this.transport = new HttpTransport({ origin: url.origin, connections: maxInFlight, tls: opts.tls });

    const auth = opts.auth ?? { mode: 'none' };
    this.redactor.setSecrets(secretsOf(auth));
    this.auth = new Authenticator(auth, {
      postLogin: (body) => this.transport.send({
        method: 'POST', path: `${this.prefix}/login`, body, timeoutMs: this.timeoutMs,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      }, this.maxResponseBytes),
      // Called while a request holds a limiter slot, so it must not wait for another one.
      authEnabled: async () => (await this.fetchStatus(this.timeoutMs)).auth?.http_auth_enabled !== false,
    });
    this.auth.onSecret = (s) => this.redactor.add(s);
  }

  /** The default time limit of one request, ms (also the longest a streamed answer may sit idle). */
  get requestTimeoutMs(): number { return this.timeoutMs; }

  /** Requests in flight and waiting, for status displays. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.limiter.inFlight, queued: this.limiter.queued };
  }

  /**
   * Sends one API request. `path` is relative to the API prefix and its segments must already be
   * encoded (use `segment()`). Resolves with the parsed JSON body (null for an empty one).
   */
  request<T = unknown>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    return this.limiter.run(() => this.execute(method, path, body, opts)) as Promise<T>;
  }

  /**
   * Opens a streaming request (server-sent events). The caller reads `body` and must call
   * `release()`, which drops what is left unread; the limiter slot is held until then.
   */
  stream(method: string, path: string, body: unknown, opts?: RequestOptions): Promise<OpenedResponse & { release(): void }> {
    const full = this.prefix + path;
    const bodyText = JSON.stringify(body);
    const timeoutMs = Math.min(MAX_TIMER_MS, opts?.timeoutMs ?? this.timeoutMs);
    return this.holdingSlot(async (releaseSlot) => {
      const res = await this.openStreamed(method, full,
        (headers) => this.transport.open({ method, path: full, headers, body: bodyText, timeoutMs }),
        (failed) => failed.release());
      return { ...res, release: () => { discard(res.body); res.release(); releaseSlot(); } };
    });
  }

  /**
   * Runs `open` in a limiter slot and keeps that slot until the opened stream calls the release
   * it was given (or `open` fails): a streamed answer counts against the in-flight limit for as
   * long as it is being read.
   */
  private holdingSlot<T>(open: (releaseSlot: () => void) => Promise<T>): Promise<T> {
    let releaseSlot!: () => void;
    const slotHeld = new Promise<void>((resolve) => { releaseSlot = resolve; });
    return new Promise<T>((resolve, reject) => {
      this.limiter.run(async () => {
        try {
          resolve(await open(releaseSlot));
        } catch (err) {
          releaseSlot();
          reject(this.scrub(err));
        }
        await slotHeld;
      }).catch(reject);
    });
  }

  /** GET {prefix}/status: version and auth state; public on every MindsDB version. */
  status(opts?: RequestOptions): Promise<ServerStatus> {
    return this.limiter.run(() => this.fetchStatus(opts?.timeoutMs ?? this.timeoutMs));
  }

  /**
   * The server's MindsDB version ("26.1.0"), from the public /status, asked once and cached: the
   * agent node sends a different body to 25.x and 26.x. A failed lookup is not cached, and a
   * connection failure forgets the version, because the server that comes back may be another one.
   */
  serverVersion(opts?: RequestOptions): Promise<string> {
    if (!this.version) {
      const p = this.status(opts).then((s) => {
        if (typeof s.mindsdb_version !== 'string' || !/^\d+\./.test(s.mindsdb_version)) {
          throw invalid('GET', `${this.prefix}/status`, 'a mindsdb_version such as "26.1.0"', s.mindsdb_version);
        }
        return s.mindsdb_version;
      });
      p.catch(() => { if (this.version === p) this.version = undefined; });
      this.version = p;
    }
    return this.version;
  }

  private async fetchStatus(timeoutMs: number): Promise<ServerStatus> {
    const path = `${this.prefix}/status`;
    const res = await this.transport.send({
      method: 'GET', path, timeoutMs, headers: { 'content-type': 'application/json', accept: 'application/json' },
    }, this.maxResponseBytes).catch((err: unknown) => { throw this.scrub(err); });
    if (res.status < 200 || res.status >= 300) throw httpError(res, 'GET', path, this.redactor);
    const body = parseSuccessBody(res, 'GET', path);
    if (!isObject(body)) throw invalid('GET', path, 'a status object');
    return body as ServerStatus;
  }

  /** Runs one SQL statement. A `type: "error"` answer becomes a MindsDBError of kind 'sql'. */
  sql(req: SqlRequest, opts?: RequestOptions): Promise<SqlAnswer> {
    let body: Record<string, unknown>;
    try { body = sqlBody(req); } catch (err) { return Promise.reject(err); }
    return this.limiter.run(() => this.execute('POST', '/sql/query', body, opts))
      .then((answer) => checkSqlAnswer(answer, this.redactor, `${this.prefix}/sql/query`));
  }

  /**
   * Runs one SQL statement and reads its answer as it arrives (see SqlResultStream). MindsDB ≥
   * 26.1 is asked for `response_format: "jsonlines"`; older servers send their usual JSON body,
   * which is parsed incrementally. The limiter slot is held until the stream is closed. Failures
   * before the answer starts are retried as for `sql()`; nothing is retried once it started.
   * `maxResponseBytes` bounds one line (jsonlines) or one row (JSON body) instead of the whole answer.
   */
  async sqlStream(req: SqlRequest, opts?: RequestOptions): Promise<SqlResultStream> {
    const body = sqlBody(req);
    // A server whose version cannot be learnt gets the request every version understands.
    if (supportsJsonLines(await this.serverVersion(opts).catch(() => undefined))) body.response_format = 'jsonlines';
    const path = `${this.prefix}/sql/query`;
    const timeoutMs = Math.min(MAX_TIMER_MS, opts?.timeoutMs ?? this.timeoutMs);
    const bodyText = JSON.stringify(body);
    return this.holdingSlot(async (releaseSlot) => {
      const res = await this.openStreamed('POST', path,
        (headers) => this.transport.openPaced({ method: 'POST', path, headers, body: bodyText, timeoutMs }),
        () => undefined);
      const jsonLines = String(res.headers['content-type'] ?? '').includes('jsonlines');
      const parser = jsonLines ? new JsonLinesParser(path, this.maxResponseBytes, this.redactor) : new JsonAnswerParser(path, this.maxResponseBytes);
      const chunks = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      const source = { next: () => chunks.next(), destroy: (err?: Error) => { res.body.destroy(err); } };
      const stream = new SqlResultStream(source, parser, timeoutMs, path, this.redactor, releaseSlot);
      try {
        await stream.open();
      } catch (err) {
        stream.close();
        throw err;
      }
      return stream;
    });
  }

  /** POST …/models/{model}/predict with `{data, params}`; resolves with the prediction rows. */
  async predict(project: string, model: string, rows: Row[], params?: Record<string, unknown>, opts?: RequestOptions): Promise<Row[]> {
    const path = `/projects/${segment(project, 'project')}/models/${segment(model, 'model')}/predict`;
    const body = params === undefined ? { data: rows } : { data: rows, params };
    const answer = await this.request<unknown>('POST', path, body, opts);
    if (!Array.isArray(answer) || !answer.every(isObject)) {
      throw invalid('POST', this.prefix + path, 'an array of prediction rows', answer);
    }
    return answer as Row[];
  }

  /** The target column of a model (cached per client); undefined when it cannot be learnt. */
  modelTarget(project: string, model: string): Promise<string | undefined> {
    const key = `${project}\u0000${model}`;
    let p = this.modelTargets.get(key);
    if (!p) {
      p = this.request<unknown>('GET', `/projects/${segment(project, 'project')}/models/${segment(model, 'model')}`)
        .then((m) => {
          const t = isObject(m) ? (m as { predict?: unknown }).predict : undefined;
          return typeof t === 'string' && t ? t : undefined;
        })
        .catch(() => { this.modelTargets.delete(key); return undefined; });
      this.modelTargets.set(key, p);
    }
    return p;
  }

  /** Closes the pool: waiting requests fail, in-flight ones finish (or are cut after `graceMs`). */
  async close(graceMs?: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.limiter.close();
    await this.transport.close(graceMs);
  }

  /**
   * One API request. The usual case (headers ready, a 2xx answer) is a single promise chain from
   * the limiter to the parsed body; anything else (a login to make, a failure, a retry, a 401)
   * continues in `recover`, which has the full retry loop.
   */
  private execute(method: string, path: string, body: unknown, opts?: RequestOptions): Promise<unknown> {
    const raw = body instanceof RawBody ? body : undefined;
    const req: PreparedRequest = {
      method,
      path: this.prefix + path,
      body: raw ? raw.data : body === undefined ? undefined : JSON.stringify(body),
      contentType: raw?.contentType,
      timeoutMs: Math.min(MAX_TIMER_MS, opts?.timeoutMs ?? this.timeoutMs),
      // An upload may have been stored before the connection broke: never repeated, like a POST.
      mayRepeat: (method !== 'POST' && !raw) || this.retryPost,
    };
    // Headers are a plain object except while a login is under way.
    const headers = this.auth.current();
    if (headers instanceof Promise) return this.recover(req, undefined);
    return this.transport.send({ method, path: req.path, headers: headersFor(req, headers), body: req.body, timeoutMs: req.timeoutMs }, this.maxResponseBytes)
      .then(
        (res) => (res.status >= 200 && res.status < 300 ? parseSuccessBody(res, method, req.path) : this.recover(req, { res, headers })),
        (err: unknown) => this.recover(req, { err }),
      );
  }

  /** Retries, re-login and errors, from the outcome of a first attempt (or from scratch). */
  private async recover(req: PreparedRequest, first: { res: TextResponse; headers: Readonly<Record<string, string>> } | { err: unknown } | undefined): Promise<unknown> {
    const { method, path } = req;
    let renewed = false;
    let outcome = first;
    for (let attempt = 0; ; attempt++) {
      let res: TextResponse;
      let headers: Readonly<Record<string, string>> | undefined;
      try {
        if (outcome && 'err' in outcome) throw outcome.err;
        if (outcome) {
          res = outcome.res;
          headers = outcome.headers;
        } else {
          const current = this.auth.current();
          headers = current instanceof Promise ? await current : current;
          res = await this.transport.send({ method, path, headers: headersFor(req, headers), body: req.body, timeoutMs: req.timeoutMs }, this.maxResponseBytes);
        }
      } catch (err) {
        outcome = undefined;
        const e = this.scrub(err);
        if (e instanceof MindsDBError && e.kind === 'network') this.version = undefined;
        // Connection refused and friends: the request never left, so any method may be repeated.
        const retriable = e instanceof MindsDBError && (isNotSent(e) || (req.mayRepeat && e.kind === 'network'));
        if (retriable && attempt < this.retries && !this.closed) { await this.backoff(attempt); continue; }
        throw e;
      }
      outcome = undefined;
      if (res.status >= 200 && res.status < 300) return parseSuccessBody(res, method, path);
      if (res.status === 401 && !renewed && this.auth.mode === 'login') {
        renewed = true;
        try { await this.auth.renewAfter401(headers as Readonly<Record<string, string>>); } catch (err) { throw this.scrub(err); }
        attempt--; // a re-login is not one of the configured retries
        continue;
      }
      if ((res.status === 502 || res.status === 503) && req.mayRepeat && attempt < this.retries && !this.closed) {
        await this.backoff(attempt);
        continue;
      }
      throw httpError(res, method, path, this.redactor);
    }
  }

  /**
   * Opens a streamed answer, with the retries and the re-login of `execute`, until a 2xx answer
   * starts: a request that never left is repeated, any other network failure and a 502/503 only
   * with retryPost (these are POSTs), and a 401 under login mode logs in again once. Nothing is
   * repeated once an answer started. `dispose` frees a failed answer after its text was read.
   */
  private async openStreamed<R extends OpenedResponse>(method: string, path: string,
    open: (headers: Record<string, string>) => Promise<R>, dispose: (failed: R) => void): Promise<R> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      let res: R;
      let headers: Readonly<Record<string, string>>;
      try {
        const current = this.auth.current();
        headers = current instanceof Promise ? await current : current;
        res = await open(headers as Record<string, string>);
      } catch (err) {
        const e = this.scrub(err);
        if (e instanceof MindsDBError && e.kind === 'network') this.version = undefined;
        const retriable = e instanceof MindsDBError && (isNotSent(e) || (this.retryPost && e.kind === 'network'));
        if (retriable && attempt < this.retries && !this.closed) { await this.backoff(attempt); continue; }
        throw e;
      }
      if (res.status >= 200 && res.status < 300) return res;
      const text = await readText(res, this.maxResponseBytes, { method, path, timeoutMs: this.timeoutMs }).catch(() => '');
      dispose(res);
      if (res.status === 401 && !renewed && this.auth.mode === 'login') {
        renewed = true;
        try { await this.auth.renewAfter401(headers); } catch (err) { throw this.scrub(err); }
        attempt--; // a re-login is not one of the configured retries
        continue;
      }
      if ((res.status === 502 || res.status === 503) && this.retryPost && attempt < this.retries && !this.closed) {
        await this.backoff(attempt);
        continue;
      }
      throw httpError({ status: res.status, headers: res.headers, text }, method, path, this.redactor);
    }
  }

  private backoff(attempt: number): Promise<void> {
    const ceiling = Math.min(MAX_BACKOFF_MS, this.retryBaseDelayMs * 2 ** attempt);
    const ms = Math.random() * ceiling; // full jitter: spreads the retries of many flows apart
    return new Promise((resolve) => { const t = setTimeout(resolve, ms); t.unref?.(); });
  }

  /** Makes sure no secret survives in an error's message. */
  private scrub(err: unknown): unknown {
    if (err instanceof MindsDBError) {
      const message = this.redactor.text(err.message);
      if (message === err.message) return err;
      return new MindsDBError(message, err);
    }
    if (err instanceof Error) return new MindsDBError(this.redactor.text(err.message), { kind: 'network' });
    return err;
  }
}

/** Validates a /sql/query answer and turns `type: "error"` into an exception. */
export function checkSqlAnswer(answer: unknown, redactor: Redactor, path: string): SqlAnswer {
  if (!isObject(answer)) throw invalid('POST', path, 'an SQL answer object', answer);
  const a = answer as Record<string, unknown>;
  if (a.type === 'error') {
    const serverMessage = redactor.text(typeof a.error_message === 'string' ? a.error_message : 'unknown SQL error');
    throw new MindsDBError(`MindsDB SQL error: ${serverMessage}`,
      { kind: 'sql', status: 200, code: a.error_code as number | undefined, serverMessage, method: 'POST', path });
  }
  if (a.type === 'ok') {
    return { type: 'ok', column_names: [], data: [], context: a.context as Record<string, unknown> | undefined, affected_rows: (a.affected_rows as number | null | undefined) ?? null };
  }
  if (a.type === 'table' || (a.type === undefined && Array.isArray(a.column_names))) {
    if (!Array.isArray(a.column_names) || (a.data !== undefined && !Array.isArray(a.data))) {
      throw invalid('POST', path, 'column_names and data arrays', answer);
    }
    return { type: 'table', column_names: a.column_names.map(String), data: (a.data ?? []) as unknown[][], context: a.context as Record<string, unknown> | undefined };
  }
  throw invalid('POST', path, 'an answer of type table, ok or error', answer);
}

function sqlBody(req: SqlRequest): Record<string, unknown> {
  if (typeof req.query !== 'string' || req.query.trim() === '') throw inputError('the SQL query must be a non-empty string');
  const body: Record<string, unknown> = { query: req.query };
  if (req.context) body.context = req.context;
  if (req.params !== undefined) body.params = req.params;
  return body;
}

/** `response_format: "jsonlines"` came with MindsDB 26.1; older servers ignore or refuse it. */
export function supportsJsonLines(version: string | undefined): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const major = Number(m[1]);
  return major > 26 || (major === 26 && Number(m[2]) >= 1);
}

function invalid(method: string, path: string, expected: string, got?: unknown): MindsDBError {
  const what = got === undefined ? '' : ` (got ${describeType(got)})`;
  return new MindsDBError(`unexpected answer from MindsDB to ${method} ${path}: expected ${expected}${what}`,
    { kind: 'invalid-response', method, path });
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

function secretsOf(auth: AuthOptions): string[] {
  switch (auth.mode) {
    case 'session': return [auth.session];
    case 'token': return [auth.token];
    case 'login': return [auth.password];
    default: return [];
  }
}
