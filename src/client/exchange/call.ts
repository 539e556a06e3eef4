import { MindsDBError, type ExchangeObserver } from '../shared';
import type { Authenticator } from './auth';
import { within } from './deadline';
import type { ExchangeRequest, ExchangeSink, ReadMode, StreamedResponse, TextResponse } from './http-exchange';
import type { SlotJob } from './limiter';
import { timeoutError } from './network-errors';
import { retryAfterMs, type Decision, type Repeat, type RetryPolicy } from './policy';
import { verdictOf } from './verdict';
import { parseSuccessBody } from './response';
import type { HttpTransport } from './transport';

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
  /** The public routes (status, login): no credentials, no login first. */
  anonymous?: boolean;
}

/**
 * What a call hands back once no attempt is left to make:
 * - `json`: a 2xx answer's parsed JSON (null for an empty body), or the error of any other;
 * - `answer`: the last answer whatever its status (the login, whose failures the authenticator words);
 * - `stream`, `paced`: a 2xx answer whose body is read as it arrives (see ReadMode).
 */
export type CallMode = 'json' | 'answer' | 'stream' | 'paced';

/**
 * Where a call's one outcome goes: the value its mode hands back, or the error. It must not
 * throw: it runs inside undici's callback for the answer's last bytes.
 */
export type CallDone = (err: MindsDBError | null, value?: unknown) => void;

/** What a call needs of its exchanger: the server's transport, credentials, policy and wording. */
export interface CallContext {
  readonly transport: HttpTransport;
  readonly auth: Authenticator;
  readonly policy: RetryPolicy;
  readonly maxBytes: number;
  /** The headers of the public routes: JSON and the tenant headers, no credentials. */
  readonly plain: Readonly<Record<string, string>>;
  /** Closed (redeploy): no attempt is started again. */
  readonly closed: boolean;
  /** A failure as a MindsDBError with no secret in its text. */
  failed(err: unknown, req: Exchange): MindsDBError;
  /** The error of a non-2xx answer, with no secret in its text. */
  httpError(res: TextResponse, req: Exchange): MindsDBError;
  /** Gives back the connection slot of a call started by the slot limiter. */
  releaseSlot(): void;
  /** Told of each answer's status (the server's health watcher). */
  readonly observer: ExchangeObserver;
}

const READ: Readonly<Record<CallMode, ReadMode>> = { json: 'whole', answer: 'whole', stream: 'stream', paced: 'paced' };

/**
 * The one retry loop that every request goes through (whole answers, streams, the login, the
 * status probe), as plain calls: the usual case (credentials ready, a 2xx answer) runs from the
 * message's arrival to its answer without a promise (a promise per layer was 1.5 µs of CPU per
 * message, bench/README.md). Each attempt's outcome is judged by the retry rule (policy.ts);
 * a 401 in login mode logs in again once (not one of the configured retries); the message's
 * deadline bounds everything, the login and the back-off included.
 */
export class Call implements SlotJob, ExchangeSink {
  private attempt = 0;
  private renewed = false;
  /** An earlier attempt may have been carried out (so a DELETE's "not there" means done). */
  private landed = false;
  /** The credentials the last attempt was sent with (a 401 renews them only if still current). */
  private sentWith: Readonly<Record<string, string>> | undefined;

  /** `slotted`: started by the slot limiter; the slot goes back when the call ends (a stream's, when released). */
  constructor(
    private readonly x: CallContext,
    private readonly req: Exchange,
    private readonly mode: CallMode,
    private readonly done: CallDone,
    private readonly slotted: boolean,
  ) {}

  /** The first attempt (the limiter calls this once a slot is the call's own). */
  start(): void {
    const { req } = this;
    // A login to make is awaited (asking current() here would make a promise that nobody handles
    // when the login fails: an unhandled rejection ends Node-RED).
    const headers = req.anonymous ? this.x.plain : this.x.auth.ready();
    if (headers === undefined) {
      this.loginFirst();
      return;
    }
    this.send(headers);
  }

  /** No slot will come (queue full, deadline passed while waiting, closed). */
  refused(err: MindsDBError): void {
    this.done(err);
  }

  answered(res: TextResponse): void {
    const { req } = this;
    this.x.observer.answered(res.status);
    if (res.status >= 200 && res.status < 300) {
      if (this.mode === 'answer') this.finish(null, res);
      else this.succeed(res);
      return;
    }
    if (res.status === 401 && !this.renewed && this.x.auth.mode === 'login' && !req.anonymous) {
      this.renew();
      return;
    }
    const e = this.x.httpError(res, req);
    if (this.mode === 'answer') {
      const d = this.decide(e, retryAfterMs(res.headers));
      if (!d.retry) this.finish(null, res);
      return;
    }
    // The record is not there, after an attempt that may have deleted it: it is gone, as asked.
    if (this.landed && req.gone?.(e)) {
      this.finish(null, null);
      return;
    }
    const d = this.decide(e, retryAfterMs(res.headers));
    if (!d.retry) this.finish(noted(e, d));
  }

  opened(res: StreamedResponse): void {
    this.x.observer.answered(res.status);
    this.finish(null, res);
  }

  failed(err: MindsDBError): void {
    const e = this.x.failed(err, this.req);
    if (!this.decide(e, undefined).retry) this.finish(e);
  }

  private send(headers: Readonly<Record<string, string>>): void {
    const { req } = this;
    this.sentWith = headers;
    req.headers = (req.contentType ? { ...headers, 'content-type': req.contentType } : headers) as Record<
      string,
      string
    >;
    this.x.transport.exchange(req, this.x.maxBytes, READ[this.mode], this);
  }

  private succeed(res: TextResponse): void {
    let value: unknown;
    try {
      value = parseSuccessBody(res, this.req.method, this.req.path);
    } catch (err) {
      this.finish(err as MindsDBError);
      return;
    }
    this.finish(null, value);
  }

  /** Credentials first: a login (shared with other requests), within this message's deadline. */
  private loginFirst(): void {
    const { req } = this;
    within(Promise.resolve(this.x.auth.current()), req.deadlineAt, () => timeoutError(req)).then(
      (headers) => this.send(headers),
      (err: unknown) => this.failed(err as MindsDBError),
    );
  }

  /** A 401 to credentials of a login: log in again once (unless another request already did), then send again. */
  private renew(): void {
    const { req } = this;
    this.renewed = true;
    within(this.x.auth.renewAfter401(this.sentWith ?? this.x.plain), req.deadlineAt, () => timeoutError(req)).then(
      () => this.start(),
      (err: unknown) => this.finish(this.x.failed(err, req)),
    );
  }

  /** The retry rule's verdict on a failed attempt; a retry is scheduled here, after its back-off. */
  private decide(e: MindsDBError, retryAfter: number | undefined): Decision {
    const d = this.x.policy.decide(this.attempt, this.req.repeat, e, retryAfter, this.req.deadlineAt);
    if (!d.retry || this.x.closed) return d.retry ? { retry: false } : d;
    this.landed ||= verdictOf(e) === 'may-have-landed';
    this.attempt++;
    setTimeout(() => {
      if (this.x.closed) this.finish(e);
      else this.start();
    }, d.delayMs);
    return d;
  }

  private finish(err: MindsDBError | null, value?: unknown): void {
    // A stream keeps its slot until it is released (see HeldStream).
    if (this.slotted && (err || (this.mode !== 'stream' && this.mode !== 'paced'))) this.x.releaseSlot();
    this.done(err, value);
  }
}

/** The error, with why it was not retried when that is not obvious (a Retry-After past the deadline). */
function noted(err: MindsDBError, d: Decision): MindsDBError {
  return !d.retry && d.note ? new MindsDBError(`${err.message} (${d.note})`, err) : err;
}
