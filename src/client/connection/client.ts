import { Exchanger, repeatOf, type HttpAuthType, type Exchange } from '../exchange';
import { jsonText, RawBody, Redactor, isPlainObject, MAX_TIMER_MS } from '../shared';
import type { SqlResultStream } from '../answers';
import { VersionCache } from './caches';
import { DEFAULT_HEALTH, readinessProbe, ServerHealth } from './health';
import { settingsOf, positive, type ClientOptions, type ServerRoutes } from './options';
import type { OpenedAnswer, RequestOptions, ServerStatus, SqlStreamOptions } from './requests';
import { SqlCalls, type SqlDone } from './sql-calls';
import {
  checkSqlAnswer,
  invalid,
  nativeQueryRefusal,
  supportsJsonLines,
  type SqlAnswer,
  type SqlRequest,
} from './sql-answer';

export type { ClientOptions, ServerRoutes };
export type { OpenedAnswer, RequestOptions, ServerStatus, SqlStreamOptions };

export { checkSqlAnswer, nativeQueryRefusal, supportsJsonLines };
export type { SqlAnswer, SqlRequest, SqlDone };

/** Until an attempt fills them in. */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The connection to one MindsDB server: what a client can do against it (requests, SQL, streams,
 * status and version, its health), each call in one form. How each request travels (its deadline,
 * size limit, retries, login, connection slot and proxy) is the exchange policy's
 * (client/exchange/); which routes it talks to is MindsDB's (`routes`, from client/resources/routes.ts,
 * whose MindsDBClient is the one to use). It knows nothing of Node-RED.
 */
export class ServerConnection {
  readonly baseUrl: string;
  readonly redactor = new Redactor();
  /** The largest answer (for a stream: line, row or event) accepted, bytes. */
  readonly maxResponseBytes: number;
  /**
   * The server's health as this client sees it (health.ts): learnt from every answer, probed only
   * when answers cannot tell. While it says unreachable, requests fail at once.
   */
  readonly health: ServerHealth;
  /** The API's path on the server ("/api"), before every route. */
  protected readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly exchanger: Exchanger;
  private readonly version: VersionCache;
  private readonly sqlCalls: SqlCalls;
  /** The paths of the status and SQL routes on the server (prefix included). */
  private readonly statusPath: string;
  private readonly sqlPath: string;

  constructor(opts: ClientOptions, routes: ServerRoutes) {
    const s = settingsOf(opts, routes);
    this.baseUrl = s.baseUrl;
    this.prefix = s.prefix;
    this.statusPath = s.prefix + routes.status;
    this.sqlPath = s.prefix + routes.sql;
    this.timeoutMs = s.exchange.timeoutMs;
    this.maxResponseBytes = s.exchange.maxResponseBytes;
    this.redactor.setSecrets(s.secrets);
    this.exchanger = new Exchanger(s.exchange, this.redactor);
    this.version = new VersionCache((timeoutMs) => this.status({ timeoutMs }), this.statusPath);
    this.health = new ServerHealth(readinessProbe(this.exchanger, s.prefix + routes.readiness), {
      ...DEFAULT_HEALTH,
      ...opts.health,
    });
    this.exchanger.observer = {
      answered: (status) => this.health.answered(status),
      failed: (err) => {
        // After a network failure the server that answers next may be another one.
        if (err.kind === 'network') this.version.forget();
        this.health.failed(err);
      },
    };
    this.sqlCalls = new SqlCalls(
      this.exchanger,
      this.sqlPath,
      this.statusPath,
      this.redactor,
      this.maxResponseBytes,
      (method, path, text, o) => this.exchangeOf(method, path, text, undefined, o),
      (deadlineAt) => this.serverVersion({ deadlineAt }),
    );
  }

  /** The default time limit of one request, ms (also the longest a streamed answer may sit idle). */
  get requestTimeoutMs(): number {
    return this.timeoutMs;
  }

  /**
   * The server's `http_auth_type` (session, token or session_or_token), as its login answer
   * showed it; undefined until a login (login mode only; /status does not tell).
   */
  get httpAuthType(): HttpAuthType | undefined {
    return this.exchanger.httpAuthType;
  }

  /** The proxy's origin (no credentials) when every request goes through one, else undefined. */
  get proxy(): string | undefined {
    return this.exchanger.proxy;
  }

  /** Requests in flight and waiting, for status displays. */
  get load(): { inFlight: number; queued: number } {
    return this.exchanger.load;
  }

  /**
   * Sends one API request. `path` is relative to the API prefix and its segments must already be
   * encoded (use `segment()`). Resolves with the parsed JSON body (null for an empty one).
   */
  request<T = unknown>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    let exchange: Exchange;
    // A body that breaks the value rule is this request's error, as a rejection like any other.
    try {
      exchange = this.exchange(method, this.prefix + path, body, opts);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.promised<T>(exchange);
  }

  /**
   * Opens a streaming request (server-sent events), under the request's deadline as a whole. The
   * caller reads `body` and must call `release()`, which drops what is left unread; the
   * connection slot is held until then.
   */
  async stream(method: string, path: string, body: unknown, opts?: RequestOptions): Promise<OpenedAnswer> {
    const refusal = this.health.refusal(method, this.prefix + path);
    if (refusal) throw refusal;
    const res = await this.exchanger.open(this.exchange(method, this.prefix + path, body, opts), {
      paced: false,
      parkable: false,
    });
    return { status: res.status, body: res.body, release: () => res.hold.release() };
  }

  /** GET …/status: version and auth state; public on every MindsDB version. */
  async status(opts?: RequestOptions): Promise<ServerStatus> {
    const timeoutMs = this.budget(opts);
    const body = await this.promised(
      this.exchanger.statusExchange(opts?.deadlineAt ?? Date.now() + timeoutMs, timeoutMs),
    );
    if (!isPlainObject(body)) throw invalid('GET', this.statusPath, 'a status object');
    return body as ServerStatus;
  }

  /** The server's MindsDB version ("26.1.0"), asked once and kept (see VersionCache). */
  serverVersion(opts?: RequestOptions): Promise<string> {
    return this.version.get(
      opts?.deadlineAt === undefined ? opts?.timeoutMs : Math.max(1, opts.deadlineAt - Date.now()),
    );
  }

  /**
   * Runs one SQL statement; `done` is called once, with the answer or the error (a `type: "error"`
   * answer becomes a MindsDBError of kind 'sql'), and must not throw. A callback rather than a
   * promise because this is every sql node's per-message path, which makes no promise from the
   * message to its answer (bench/README.md); `sqlAnswer` in the resources awaits it.
   */
  sql(req: SqlRequest, opts: RequestOptions | undefined, done: SqlDone): void {
    const refusal = this.health.refusal('POST', this.sqlPath);
    if (refusal) {
      done(refusal);
      return;
    }
    this.sqlCalls.run(req, opts, done);
  }

  /**
   * Runs one SQL statement and reads its answer as it arrives (see SqlResultStream and
   * SqlCalls.stream). With `flowControl`, the stream holds no connection slot while its reader
   * waits on the flow (SqlResultStream.waitOnFlow).
   */
  sqlStream(req: SqlRequest, opts?: SqlStreamOptions): Promise<SqlResultStream> {
    const refusal = this.health.refusal('POST', this.sqlPath);
    return refusal ? Promise.reject(refusal) : this.sqlCalls.stream(req, opts);
  }

  /** Closes the pool: waiting requests fail, in-flight ones finish (or are cut after `graceMs`). */
  close(graceMs?: number): Promise<void> {
    this.health.close();
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

  /** One request, as a promise; refused at once while the server is known to be down (health.ts). */
  private promised<T>(exchange: Exchange): Promise<T> {
    const refusal = this.health.refusal(exchange.method, exchange.path);
    if (refusal) return Promise.reject(refusal);
    return new Promise((resolve, reject) => {
      this.exchanger.send(exchange, (err, value) => (err ? reject(err) : resolve(value as T)));
    });
  }

  /** One message's request: its deadline starts now (or is the message's), and covers everything done for it. */
  private exchange(method: string, path: string, body: unknown, opts: RequestOptions | undefined): Exchange {
    const raw = body instanceof RawBody ? body : undefined;
    // Every JSON body by the one rule for values that are not plain JSON (../shared/json-value.ts).
    return this.exchangeOf(
      method,
      path,
      raw ? undefined : body === undefined ? undefined : jsonText(body, 'the request body'),
      raw,
      opts,
    );
  }

  private exchangeOf(
    method: string,
    path: string,
    text: string | undefined,
    raw: RawBody | undefined,
    opts: RequestOptions | undefined,
  ): Exchange {
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
