import { MindsDBError, NO_OBSERVER, type ExchangeObserver, type Redactor } from '../shared';
import { Authenticator, type AuthOptions, type HttpAuthType } from './auth';
import { Call, type CallDone, type Exchange } from './call';
import { deadlineAfter, type DeadlineAt } from './deadline';
import { HeldStream, type StreamHold } from './held-stream';
import type { StreamedResponse, TextResponse } from './http-exchange';
import { RequestLimiter, type ReleaseSlot } from './limiter';
import { networkError } from './network-errors';
import { RetryPolicy } from './policy';
import { httpError } from './response';
import { HttpTransport, type ProxyOptions, type TlsOptions } from './transport';

export interface ExchangeSettings {
  /** scheme://host:port of the server. */
  origin: string;
  /** The login route's path on the server ("/api/login"; the routes are client/resources/routes.ts's). */
  loginPath: string;
  /** The public status route's path on the server ("/api/status"). */
  statusPath: string;
  auth: AuthOptions;
  /**
   * Headers sent on every request to this server (status and login included): the tenant
   * headers `company-id` / `user-id` of a multi-tenant MindsDB. Lower-case names.
   */
  headers?: Readonly<Record<string, string>>;
  /** The default time budget of one message, ms. */
  timeoutMs: number;
  retries: number;
  retryPost: boolean;
  retryBaseDelayMs: number;
  maxInFlight: number;
  maxQueue: number;
  maxResponseBytes: number;
  tls?: TlsOptions;
  proxy?: ProxyOptions;
}

/** A 2xx answer whose body is read as it arrives, with the slot it holds. */
export interface OpenedStream extends StreamedResponse {
  hold: StreamHold;
}

/** What a streamed request asks of its slot. */
export interface StreamMode {
  /** A streamed SQL answer: the deadline ends once it started; the reader bounds each wait itself. */
  paced: boolean;
  /** It may wait on the flow (msg.tick) and then gives its slot back (see HeldStream). */
  parkable: boolean;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json',
});

/**
 * The exchange policy of one server, used by every path (whole answers, streamed SQL answers,
 * server-sent events, logins, the status probe): each request is one Call (call.ts: the one retry
 * loop, the re-login after a 401) over one HttpExchange per attempt (the message's one deadline,
 * the size limit of every body, same-origin redirects), within a connection slot (limiter.ts): a
 * slot is held while an exchange is under way, and never while a stream waits on the flow.
 */
export class Exchanger {
  /** @internal (Call) */
  readonly transport: HttpTransport;
  private readonly slots: RequestLimiter;
  /** Streams that may wait on the flow, each holding its socket but no slot while it waits. */
  private readonly parking: RequestLimiter;
  /** @internal (Call) */
  readonly auth: Authenticator;
  /** @internal (Call) */
  readonly policy: RetryPolicy;
  /** @internal (Call) */
  readonly maxBytes: number;
  /**
   * The headers of the public routes (status, login): JSON and the tenant headers, no credentials.
   * @internal (Call)
   */
  readonly plain: Readonly<Record<string, string>>;
  private isClosed = false;
  /**
   * Told of every attempt's end (call.ts): each answer's status as it arrives, each failure
   * without an answer (network, timeout). The client's health watcher and version cache listen here.
   */
  observer: ExchangeObserver = NO_OBSERVER;

  constructor(
    private readonly s: ExchangeSettings,
    private readonly redactor: Redactor,
  ) {
    this.maxBytes = s.maxResponseBytes;
    this.plain = Object.freeze({ ...JSON_HEADERS, ...s.headers });
    this.slots = new RequestLimiter(s.maxInFlight, s.maxQueue);
    this.parking = new RequestLimiter(s.maxInFlight, s.maxQueue, 'streamed answers under flow control');
    // Sockets: whole answers up to maxInFlight; streams up to maxInFlight under way plus up to
    // maxInFlight paused ones that keep their socket (unread) but gave their slot back, in a pool of
    // their own, so an exchange always finds a socket.
    this.transport = new HttpTransport({
      origin: s.origin,
      connections: s.maxInFlight,
      streamConnections: 2 * s.maxInFlight,
      tls: s.tls,
      proxy: s.proxy,
    });
    this.policy = new RetryPolicy({ retries: s.retries, baseDelayMs: s.retryBaseDelayMs, retryPost: s.retryPost });
    this.auth = new Authenticator(s.auth, this.plain, {
      // The login is shared by every request waiting for it, so it has the client's own time
      // budget; each request still waits for it no longer than its own deadline (Call.loginFirst).
      // A login may be sent again (it only makes another session), so the retry rule treats it as
      // idempotent; its answer, whatever the status, goes back to the authenticator.
      postLogin: (body) =>
        this.promised<TextResponse>(
          {
            method: 'POST',
            path: s.loginPath,
            headers: this.plain as Record<string, string>,
            body,
            timeoutMs: s.timeoutMs,
            deadlineAt: deadlineAfter(s.timeoutMs),
            repeat: 'idempotent',
            anonymous: true,
          },
          'answer',
        ),
      // Called while a request holds a slot, so it must not wait for another one.
      authEnabled: async () => {
        const status = await this.promised<{ auth?: { http_auth_enabled?: unknown } } | null>(
          this.statusExchange(deadlineAfter(s.timeoutMs), s.timeoutMs),
          'json',
        );
        return status?.auth?.http_auth_enabled !== false;
      },
    });
    this.auth.onSecret = (secret) => redactor.add(secret);
  }

  /** The server's http_auth_type, as the last login showed it (login mode only). */
  get httpAuthType(): HttpAuthType | undefined {
    return this.auth.httpAuthType;
  }

  /** The proxy's origin (no credentials) when requests go through one. */
  get proxy(): string | undefined {
    return this.transport.proxy;
  }

  /** Closed (redeploy): no attempt starts again. @internal (Call) */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Requests in flight and waiting, for status displays. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.slots.inFlight, queued: this.slots.queued };
  }

  /** The public status route (GET …/status) as an exchange. */
  statusExchange(deadlineAt: DeadlineAt, timeoutMs: number): Exchange {
    return {
      method: 'GET',
      path: this.s.statusPath,
      headers: this.plain as Record<string, string>,
      body: undefined,
      timeoutMs,
      deadlineAt,
      repeat: 'idempotent',
      anonymous: true,
    };
  }

  /**
   * One request whose whole answer is read: `done` is called once, with its parsed JSON (null for
   * an empty body) or the error. The per-message path of every node: in the usual case (a slot,
   * credentials ready, a 2xx answer) no promise is made from the message's arrival to its answer.
   */
  send(req: Exchange, done: CallDone): void {
    this.slots.submit(new Call(this, req, 'json', done, true), req.deadlineAt, req);
  }

  /**
   * Opens a request whose body the caller reads as it arrives. Resolves once a 2xx answer
   * started; the slot (and, for a parkable stream, its parking place) is held until
   * `hold.release()`. Everything before that is under the message's deadline and the retry rule,
   * error bodies included; nothing is repeated once an answer started.
   */
  async open(req: Exchange, mode: StreamMode): Promise<OpenedStream> {
    let place: ReleaseSlot | undefined;
    let slot: ReleaseSlot | undefined;
    try {
      if (mode.parkable) place = await this.parking.acquire(req.deadlineAt, req);
      slot = await this.slots.acquire(req.deadlineAt, req);
      const res = await this.promised<StreamedResponse>(req, mode.paced ? 'paced' : 'stream');
      return { ...res, hold: new HeldStream(this.slots, slot, place, res, req) };
    } catch (err) {
      slot?.();
      place?.();
      // Already worded: by the call (redacted), or by the limiter (queue full, closed, deadline).
      throw err;
    }
  }

  /** Closes the pool: waiting requests fail, in-flight ones finish (or are cut after `graceMs`). */
  async close(graceMs?: number): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.slots.close();
    this.parking.close();
    await this.transport.close(graceMs);
  }

  /** @internal (Call) */
  releaseSlot(): void {
    this.slots.release();
  }

  /**
   * A non-2xx answer as an error with no secret in its text; a 401 says why the credentials of
   * this auth mode may have been refused (see REFUSED in auth.ts).
   * @internal (Call)
   */
  httpError(res: TextResponse, req: Exchange): MindsDBError {
    const e = httpError(res, req.method, req.path, this.redactor);
    if (e.status !== 401 || req.anonymous) return e;
    return new MindsDBError(`${e.message} (${this.auth.refusedHint()})`, {
      kind: e.kind,
      status: e.status,
      code: e.code,
      serverMessage: e.serverMessage,
      method: e.method,
      path: e.path,
    });
  }

  /**
   * A failure as a MindsDBError with no secret in its text; one without an answer (network, timeout) is told to the
   * observer.
   * @internal (Call)
   */
  failed(err: unknown, req: Exchange): MindsDBError {
    let e: MindsDBError;
    if (err instanceof MindsDBError) {
      const message = this.redactor.text(err.message);
      e = message === err.message ? err : new MindsDBError(message, err);
    } else {
      const raw = networkError(err, req, this.transport.proxy);
      e = new MindsDBError(this.redactor.text(raw.message), raw);
    }
    if (e.kind === 'network' || e.kind === 'timeout') this.observer.failed(e);
    return e;
  }

  /** A call outside the slots (the login, the status probe, a stream whose slot is held) as a promise. */
  private promised<T>(req: Exchange, mode: 'json' | 'answer' | 'stream' | 'paced'): Promise<T> {
    return new Promise((resolve, reject) => {
      new Call(this, req, mode, (err, value) => (err ? reject(err) : resolve(value as T)), false).start();
    });
  }
}
