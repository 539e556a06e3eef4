import { MindsDBError, NO_OBSERVER, type ExchangeObserver, type Redactor } from '../shared';
import { Authenticator, type AuthOptions, type HttpAuthType } from './auth';
import { deadlineAfter, pause, within, type DeadlineAt } from './deadline';
import { RequestLimiter, type ReleaseSlot, type SlotJob } from './limiter';
import { networkError, timeoutError, type ExchangeDescription } from './network-errors';
import { mayHaveLanded, retryAfterMs, RetryPolicy, type Decision, type Repeat } from './policy';
import { httpError, parseSuccessBody } from './response';
import type { ExchangeRequest, TextResponse, TextSink } from './text-exchange';
import { HttpTransport, readText, type OpenedResponse, type StreamedResponse, type TlsOptions } from './transport';

export interface ExchangeSettings {
  /** scheme://host:port of the server. */
  origin: string;
  /** The API's path on the server ("/api"), for the login and status routes. */
  prefix: string;
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
}

/**
 * One message's request, as the exchange needs it: one object per message (the hot path builds
 * nothing else), whose `headers` each attempt fills in.
 */
export interface Exchange extends ExchangeRequest {
  repeat: Repeat;
  /**
   * For a DELETE: recognises the server's "not there" answer. After an attempt that may have
   * deleted the record, that answer means the record is gone: the delete succeeded.
   */
  gone?: (err: MindsDBError) => boolean;
  /** A raw body's content type, sent instead of JSON's. */
  contentType?: string;
  /** The public status route: no credentials, no login first. */
  anonymous?: boolean;
}

/** A slot as a streamed answer's reader sees it (SqlResultStream's StreamHold). */
export interface StreamHold {
  park(): void;
  unpark(waitMs: number): Promise<void>;
  release(): void;
}

export interface OpenedStream extends OpenedResponse {
  hold: StreamHold;
}

/** What a streamed request asks of its slot. */
export interface StreamMode {
  /** A streamed SQL answer: the deadline ends once it started; the reader bounds each wait itself. */
  paced: boolean;
  /** It may wait on the flow (msg.tick) and then gives its slot back (see HeldStream). */
  parkable: boolean;
}

/**
 * Where a whole answer goes, once: its parsed JSON (null for an empty body), or the error. It must
 * not throw: it runs inside undici's callback for the answer's last bytes.
 */
export type WholeDone = (err: MindsDBError | null, value?: unknown) => void;

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', accept: 'application/json' });

/**
 * The exchange policy of one server, used by every path (whole answers, streamed SQL answers,
 * server-sent events, logins, the status probe): the message's one deadline over everything
 * done for it, the size limit of every body, the retry rule (policy.ts), the re-login after a
 * 401, and the connection slots (limiter.ts): a slot is held while an exchange is under way, and
 * never while a stream waits on the flow.
 */
export class Exchanger {
  /** @internal (WholeCall) */
  readonly transport: HttpTransport;
  /** @internal (WholeCall) */
  readonly slots: RequestLimiter;
  /** Streams that may wait on the flow, each holding its socket but no slot while it waits. */
  private readonly parking: RequestLimiter;
  /** @internal (WholeCall) */
  readonly auth: Authenticator;
  private readonly policy: RetryPolicy;
  /** @internal (WholeCall) */
  readonly maxBytes: number;
  /**
   * The headers of the public routes (status, login): JSON and the tenant headers, no credentials.
   * @internal (WholeCall)
   */
  readonly plain: Readonly<Record<string, string>>;
  private closed = false;
  /**
   * Told of every attempt's end: each answer's status as it arrives, each failure without an
   * answer (network, timeout). The client's health watcher and version cache listen here.
   */
  observer: ExchangeObserver = NO_OBSERVER;

  constructor(private readonly s: ExchangeSettings, private readonly redactor: Redactor) {
    this.maxBytes = s.maxResponseBytes;
    this.plain = Object.freeze({ ...JSON_HEADERS, ...s.headers });
    this.slots = new RequestLimiter(s.maxInFlight, s.maxQueue);
    this.parking = new RequestLimiter(s.maxInFlight, s.maxQueue, 'streamed answers under flow control');
    // Sockets: whole answers up to maxInFlight; streams up to maxInFlight under way plus up to
    // maxInFlight paused ones that keep their socket (unread) but gave their slot back, in a pool of
    // their own, so an exchange always finds a socket.
    this.transport = new HttpTransport({ origin: s.origin, connections: s.maxInFlight, streamConnections: 2 * s.maxInFlight, tls: s.tls });
    this.policy = new RetryPolicy({ retries: s.retries, baseDelayMs: s.retryBaseDelayMs, retryPost: s.retryPost });
    this.auth = new Authenticator(s.auth, this.plain, {
      // The login is shared by every request waiting for it, so it has the client's own time
      // budget; each request still waits for it no longer than its own deadline (credentialsOf).
      // A login may be sent again (it only makes another session), so the retry rule treats it as
      // idempotent; its answer, whatever the status, goes back to the authenticator.
      postLogin: (body) => this.sendRetrying({
        method: 'POST', path: `${s.prefix}/login`, headers: this.plain as Record<string, string>, body,
        timeoutMs: s.timeoutMs, deadlineAt: deadlineAfter(s.timeoutMs), repeat: 'idempotent', anonymous: true,
      }),
      // Called while a request holds a slot, so it must not wait for another one.
      authEnabled: async () => {
        const status = await this.recover(this.statusExchange(deadlineAfter(s.timeoutMs), s.timeoutMs), undefined) as { auth?: { http_auth_enabled?: unknown } } | null;
        return status?.auth?.http_auth_enabled !== false;
      },
    });
    this.auth.onSecret = (secret) => redactor.add(secret);
  }

  /** The server's http_auth_type, as the last login showed it (login mode only). */
  get httpAuthType(): HttpAuthType | undefined { return this.auth.httpAuthType; }

  /** A 401 says why the credentials of this auth mode may have been refused (see REFUSED in auth.ts). */
  private refused(e: MindsDBError, req: Exchange): MindsDBError {
    if (e.status !== 401 || req.anonymous) return e;
    return new MindsDBError(`${e.message} (${this.auth.refusedHint()})`,
      { kind: e.kind, status: e.status, code: e.code, serverMessage: e.serverMessage, method: e.method, path: e.path });
  }

  /** Requests in flight and waiting, for status displays. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.slots.inFlight, queued: this.slots.queued };
  }

  /** The public status route (GET {prefix}/status) as an exchange. */
  statusExchange(deadlineAt: DeadlineAt, timeoutMs: number): Exchange {
    return { method: 'GET', path: `${this.s.prefix}/status`, headers: this.plain as Record<string, string>, body: undefined, timeoutMs, deadlineAt, repeat: 'idempotent', anonymous: true };
  }

  /** One request whose whole answer is read: resolves with its JSON (null for an empty body). */
  whole(req: Exchange): Promise<unknown> {
    return new Promise((resolve, reject) => { this.wholeTo(req, (err, value) => (err ? reject(err) : resolve(value))); });
  }

  /**
   * `whole` without a promise, for the per-message path: `done` is called once with the parsed
   * JSON or the error. The same policy (slot, deadline, size limit, retries, re-login); the usual
   * case (a slot, credentials ready, a 2xx answer) runs without a promise from the message's
   * arrival to its answer (see WholeCall).
   */
  wholeTo(req: Exchange, done: WholeDone): void {
    this.slots.submit(new WholeCall(this, req, done), req.deadlineAt, req);
  }

  /**
   * Opens a request whose body the caller reads as it arrives. Resolves once a 2xx answer
   * started; the slot (and, for a parkable stream, its parking place) is held until
   * `hold.release()`. Everything before that is under the message's deadline and the retry rule,
   * error bodies included; nothing is repeated once an answer started.
   */
  async openStream(req: Exchange, mode: StreamMode): Promise<OpenedStream> {
    let place: ReleaseSlot | undefined;
    let slot: ReleaseSlot | undefined;
    try {
      if (mode.parkable) place = await this.parking.acquire(req.deadlineAt, req);
      slot = await this.slots.acquire(req.deadlineAt, req);
      const res = await this.openAttempts(req, mode.paced);
      return { status: res.status, headers: res.headers, body: res.body, hold: new HeldStream(this.slots, slot, place, res, req) };
    } catch (err) {
      slot?.();
      place?.();
      throw this.failed(err, req);
    }
  }

  /** Closes the pool: waiting requests fail, in-flight ones finish (or are cut after `graceMs`). */
  async close(graceMs?: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.slots.close();
    this.parking.close();
    await this.transport.close(graceMs);
  }

  /**
   * Retries, re-login and errors, from the outcome of a first attempt (or from scratch).
   * @internal (WholeCall)
   */
  async recover(req: Exchange, first: { res: TextResponse } | { err: unknown } | undefined): Promise<unknown> {
    const { method, path } = req;
    let renewed = false;
    let landed = false;
    let outcome = first;
    // The credentials the last attempt was sent with (a 401 renews them only if still current).
    let sentWith: Readonly<Record<string, string>> = req.headers;
    for (let attempt = 0; ; attempt++) {
      let res: TextResponse;
      try {
        if (outcome && 'err' in outcome) throw outcome.err;
        if (outcome) {
          res = outcome.res;
        } else {
          sentWith = await this.credentialsOf(req);
          req.headers = withContentType(req, sentWith);
          res = await this.transport.send(req, this.maxBytes);
          this.observer.answered(res.status);
        }
      } catch (err) {
        outcome = undefined;
        const e = this.failed(err, req);
        const d = this.policy.decide(attempt, req.repeat, e, undefined, req.deadlineAt);
        if (d.retry && !this.closed) { landed ||= mayHaveLanded(e); await pause(d.delayMs); continue; }
        throw e;
      }
      outcome = undefined;
      if (res.status >= 200 && res.status < 300) return parseSuccessBody(res, method, path);
      if (res.status === 401 && !renewed && this.auth.mode === 'login' && !req.anonymous) {
        renewed = true;
        await this.renew(req, sentWith);
        attempt--; // a re-login is not one of the configured retries
        continue;
      }
      const e = this.refused(httpError(res, method, path, this.redactor), req);
      // The record is not there, after an attempt that may have deleted it: it is gone, as asked.
      if (landed && req.gone?.(e)) return null;
      const d = this.policy.decide(attempt, req.repeat, e, retryAfterMs(res.headers), req.deadlineAt);
      if (d.retry && !this.closed) { landed ||= mayHaveLanded(e); await pause(d.delayMs); continue; }
      throw noted(e, d);
    }
  }

  /**
   * Sends `req` under the retry rule and resolves with its answer whatever its status, once no
   * retry is due (for the login, whose failures the authenticator words itself).
   */
  private async sendRetrying(req: Exchange): Promise<TextResponse> {
    for (let attempt = 0; ; attempt++) {
      let res: TextResponse;
      try {
        res = await this.transport.send(req, this.maxBytes);
        this.observer.answered(res.status);
      } catch (err) {
        const e = this.failed(err, req);
        const d = this.policy.decide(attempt, req.repeat, e, undefined, req.deadlineAt);
        if (d.retry && !this.closed) { await pause(d.delayMs); continue; }
        throw e;
      }
      if (res.status < 200 || res.status >= 300) {
        const d = this.policy.decide(attempt, req.repeat, httpError(res, req.method, req.path, this.redactor), retryAfterMs(res.headers), req.deadlineAt);
        if (d.retry && !this.closed) { await pause(d.delayMs); continue; }
      }
      return res;
    }
  }

  /** The attempts of a streamed request, until a 2xx answer starts. */
  private async openAttempts(req: Exchange, paced: boolean): Promise<StreamedResponse> {
    const { method, path } = req;
    let renewed = false;
    let sentWith: Readonly<Record<string, string>> = req.headers;
    for (let attempt = 0; ; attempt++) {
      let res: StreamedResponse;
      try {
        sentWith = await this.credentialsOf(req);
        req.headers = withContentType(req, sentWith);
        res = await this.transport.openStream(req, paced);
        this.observer.answered(res.status);
      } catch (err) {
        const e = this.failed(err, req);
        const d = this.policy.decide(attempt, req.repeat, e, undefined, req.deadlineAt);
        if (d.retry && !this.closed) { await pause(d.delayMs); continue; }
        throw e;
      }
      if (res.status >= 200 && res.status < 300) {
        if (paced) res.endDeadline();
        return res;
      }
      // The error answer's body is read under the same deadline and size limit as any other.
      let text = '';
      try {
        text = await readText(res, this.maxBytes, req);
      } catch (err) {
        const e = this.failed(err, req);
        if (e.kind === 'timeout') { res.release(); throw e; }
        // Too large or broken off: the status still says what happened.
      }
      res.release();
      if (res.status === 401 && !renewed && this.auth.mode === 'login') {
        renewed = true;
        await this.renew(req, sentWith);
        attempt--;
        continue;
      }
      const e = this.refused(httpError({ status: res.status, headers: res.headers, text }, method, path, this.redactor), req);
      const d = this.policy.decide(attempt, req.repeat, e, retryAfterMs(res.headers), req.deadlineAt);
      if (d.retry && !this.closed) { await pause(d.delayMs); continue; }
      throw noted(e, d);
    }
  }

  /** The credentials of the next attempt: a login first when one is needed, within the message's deadline. */
  private async credentialsOf(req: Exchange): Promise<Readonly<Record<string, string>>> {
    if (req.anonymous) return this.plain;
    const current = this.auth.current();
    return current instanceof Promise ? await within(current, req.deadlineAt, () => timeoutError(req)) : current;
  }

  private async renew(req: Exchange, rejected: Readonly<Record<string, string>>): Promise<void> {
    try {
      await within(this.auth.renewAfter401(rejected), req.deadlineAt, () => timeoutError(req));
    } catch (err) {
      throw this.failed(err, req);
    }
  }

  /** A failure as a MindsDBError with no secret in its text; a network failure forgets what the server was. */
  private failed(err: unknown, desc: ExchangeDescription): MindsDBError {
    let e: MindsDBError;
    if (err instanceof MindsDBError) {
      const message = this.redactor.text(err.message);
      e = message === err.message ? err : new MindsDBError(message, err);
    } else {
      const raw = networkError(err, desc);
      e = new MindsDBError(this.redactor.text(raw.message), raw);
    }
    if (e.kind === 'network' || e.kind === 'timeout') this.observer.failed(e);
    return e;
  }
}

/**
 * One whole-answer request, from its wait for a slot to its answer. The usual case (a slot free
 * or coming free, credentials ready, a 2xx answer) is plain calls: the limiter starts it, undici
 * hands it the answer's text, it gives the slot back and passes the parsed JSON on, with no
 * promise in between (a promise per layer was 1.5 µs of CPU per message, bench/README.md).
 * Anything else (a login to make, a failure, a retry, a 401) continues in the exchanger's
 * `recover`, which has the whole retry loop, still inside the slot.
 */
class WholeCall implements SlotJob, TextSink {
  constructor(private readonly x: Exchanger, private readonly req: Exchange, private readonly done: WholeDone) {}

  start(): void {
    const { req } = this;
    // A login to make continues in `recover`, which awaits it: asking current() here would make
    // a promise that nobody handles when the login fails (an unhandled rejection ends Node-RED).
    const headers = req.anonymous ? this.x.plain : this.x.auth.ready();
    if (headers === undefined || req.contentType) { this.slow(undefined); return; }
    req.headers = headers as Record<string, string>;
    this.x.transport.sendTo(req, this.x.maxBytes, this);
  }

  refused(err: MindsDBError): void {
    this.done(err);
  }

  answered(res: TextResponse): void {
    this.x.observer.answered(res.status);
    if (res.status < 200 || res.status >= 300) { this.slow({ res }); return; }
    this.x.slots.release();
    let value: unknown;
    try {
      value = parseSuccessBody(res, this.req.method, this.req.path);
    } catch (err) {
      this.done(err as MindsDBError);
      return;
    }
    this.done(null, value);
  }

  failed(err: MindsDBError): void {
    this.slow({ err });
  }

  private slow(first: { res: TextResponse } | { err: unknown } | undefined): void {
    this.x.recover(this.req, first).then(
      (value) => { this.x.slots.release(); this.done(null, value); },
      (err: unknown) => { this.x.slots.release(); this.done(err as MindsDBError); },
    );
  }
}

function withContentType(req: Exchange, headers: Readonly<Record<string, string>>): Record<string, string> {
  return (req.contentType ? { ...headers, 'content-type': req.contentType } : headers) as Record<string, string>;
}

/** The error, with why it was not retried when that is not obvious (a Retry-After past the deadline). */
function noted(err: MindsDBError, d: Decision): MindsDBError {
  return !d.retry && d.note ? new MindsDBError(`${err.message} (${d.note})`, err) : err;
}

/**
 * The slot of an opened stream. A parkable stream (one that may wait on the flow) gives its slot
 * back while it waits (`park`) and takes one again before it reads on (`unpark`, ahead of every
 * other waiter, within the reader's idle limit); its socket stays open and unread meanwhile,
 * counted by its parking place instead (at most maxInFlight such per server). Any other stream
 * keeps its slot until released. Chosen over reading the rest into a buffer and closing the socket:
 * a buffer bounded by Max response holds up to that much per waiting stream, and a larger result
 * would still have to pause its socket (bench/README.md, "The exchange policy on the hot path").
 */
class HeldStream implements StreamHold {
  private released = false;

  constructor(
    private readonly slots: RequestLimiter,
    private slot: ReleaseSlot | undefined,
    private readonly place: ReleaseSlot | undefined,
    private readonly res: StreamedResponse,
    private readonly desc: ExchangeDescription,
  ) {}

  park(): void {
    if (!this.place || !this.slot) return;
    this.slot();
    this.slot = undefined;
  }

  async unpark(waitMs: number): Promise<void> {
    if (this.slot || this.released) return;
    const { method, path } = this.desc;
    const slot = await this.slots.acquire(Date.now() + waitMs, {
      method, path, timeoutMs: waitMs,
      expired: () => new MindsDBError(`no connection slot came free within ${waitMs} ms to read on the answer to ${method} ${path}; the rest of the result was dropped`,
        { kind: 'timeout', code: 'ETIMEDOUT', method, path }),
    }, true);
    if (this.released) slot();
    else this.slot = slot;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.res.release();
    this.slot?.();
    this.slot = undefined;
    this.place?.();
  }
}
