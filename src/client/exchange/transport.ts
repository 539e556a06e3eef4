import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { MindsDBError } from '../shared';
import { networkError, timeoutError, tooLarge, type ExchangeDescription } from './network-errors';
import { MAX_REDIRECTS, redirectLocation, sameOriginPath } from './redirects';
import { exchangeText, TextExchange, type ExchangeRequest, type TextResponse, type TextSink } from './text-exchange';

export type { TextResponse } from './text-exchange';

export interface TlsOptions {
  ca?: string | Buffer | Array<string | Buffer>;
  cert?: string | Buffer;
  key?: string | Buffer;
  passphrase?: string;
  servername?: string;
  /** false accepts self-signed or unknown certificates; default true (verify). */
  rejectUnauthorized?: boolean;
}

export interface TransportOptions {
  /** scheme://host:port of the server. */
  origin: string;
  /** Sockets kept open to the server for whole answers (the pool size). */
  connections: number;
  /** Sockets for streamed answers, in a pool of their own (default: `connections`). */
  streamConnections?: number;
  tls?: TlsOptions;
}

export interface OpenedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable & { text(): Promise<string> };
}

/** An opened answer whose body is read as it arrives (see HttpTransport.openStream). */
export interface StreamedResponse extends OpenedResponse {
  /** Stops the deadline's watch over the body (a streamed SQL answer, once it started). */
  endDeadline(): void;
  /** Drops what is left of the body and stops the deadline. */
  release(): void;
}

export type SendOptions = ExchangeRequest;


/**
 * One keep-alive connection pool to one server. It knows HTTP only: no auth, no retries, no
 * MindsDB. It follows 307/308 redirects on the same origin only, so credentials are never sent to
 * another host, and it enforces a deadline for the whole exchange and a maximum body size.
 */
export class HttpTransport {
  private readonly pool: Pool;
  /**
   * Streamed answers have a pool of their own, made on first use: a paused stream keeps its socket
   * (unread) without a connection slot, so streams may hold more sockets than there are slots, and
   * sharing one pool would mean a pool larger than the in-flight limit for whole answers too, which
   * costs the per-message path about 1.5 µs of CPU (more sockets, fewer requests on each; measured
   * A/B against the one-pool client, 20,000 small SQL answers, 32 outstanding, 8 slots).
   */
  private streamPool: Pool | undefined;
  private readonly origin: string;

  constructor(private readonly opts: TransportOptions) {
    this.origin = opts.origin;
    this.pool = makePool(opts, opts.connections);
  }

  /**
   * Sends a request and reads the whole body as text, up to `maxBytes`, before `opts.deadlineAt`
   * (redirects included). This is the per-message path of every node (see TextExchange).
   */
  send(opts: SendOptions, maxBytes: number): Promise<TextResponse> {
    return exchangeText(this.pool, this.origin, opts, maxBytes);
  }

  /** `send` without a promise: the answer or the error goes to `sink`, once. */
  sendTo(opts: SendOptions, maxBytes: number, sink: TextSink): void {
    new TextExchange(this.pool, this.origin, opts, maxBytes, sink);
  }

  /**
   * Opens a request and hands back its body to be read as it arrives. The message's deadline
   * watches everything until the caller says otherwise: the wait for the answer, the redirects,
   * an error answer's body, and (for server-sent events) the whole stream. A streamed SQL answer
   * calls `endDeadline()` once its 2xx answer started, because a body that the caller stops
   * reading (flow control) must not time out: the reader bounds each wait for data itself
   * (`paced`: undici's own body timeout is off too). `release()` must be called in every case.
   */
  async openStream(opts: SendOptions, paced: boolean): Promise<StreamedResponse> {
    const deadline = new Deadline(opts);
    try {
      const res = await this.openWith(opts, deadline, paced ? 0 : Math.max(1, opts.deadlineAt - Date.now()));
      return { ...res, endDeadline: () => deadline.clear(), release: () => { discard(res.body); deadline.clear(); } };
    } catch (err) {
      deadline.clear();
      throw deadline.expired ? timeoutError(opts) : err;
    }
  }

  /** Closes gracefully (in-flight requests finish); destroys the sockets after `graceMs`. */
  async close(graceMs = 10_000): Promise<void> {
    await Promise.all([this.pool, this.streamPool].map((pool) => pool && closePool(pool, graceMs)));
  }

  private openWith(opts: SendOptions, deadline: Deadline, bodyTimeout: number): Promise<OpenedResponse> {
    return this.dispatch(opts, opts.path, deadline, bodyTimeout)
      .then((res) => (isRedirect(res) ? this.followRedirects(opts, deadline, res, bodyTimeout) : opened(res)));
  }

  private dispatch(opts: SendOptions, path: string, deadline: Deadline, bodyTimeout: number): Promise<Dispatched> {
    this.streamPool ??= makePool(this.opts, this.opts.streamConnections ?? this.opts.connections);
    return this.streamPool.request(this.requestOptions(opts, path, deadline, bodyTimeout)).catch((err: unknown) => { throw networkError(err, opts); });
  }

  private requestOptions(opts: SendOptions, path: string, deadline: Deadline, bodyTimeout: number): Dispatcher.RequestOptions {
    return {
      method: opts.method as Dispatcher.HttpMethod,
      path,
      headers: opts.headers,
      body: opts.body,
      signal: deadline,
      headersTimeout: Math.max(1, opts.deadlineAt - Date.now()),
      bodyTimeout,
    };
  }

  /** Follows 307/308 on the same origin only (the request keeps its method, body and credentials). */
  private async followRedirects(opts: SendOptions, deadline: Deadline, first: Dispatched, bodyTimeout: number): Promise<OpenedResponse> {
    let res = first;
    let path = opts.path;
    let location = redirectLocation(res.statusCode, res.headers);
    for (let hop = 0; location !== undefined && hop < MAX_REDIRECTS; hop++) {
      res.body.resume();
      path = sameOriginPath(this.origin, path, location, opts, res.statusCode);
      res = await this.dispatch(opts, path, deadline, bodyTimeout);
      location = redirectLocation(res.statusCode, res.headers);
    }
    return opened(res);
  }
}

type Dispatched = Dispatcher.ResponseData;

function makePool(opts: TransportOptions, connections: number): Pool {
  const pool = new Pool(opts.origin, { connections, pipelining: 1, connect: opts.tls ? { ...opts.tls } : undefined });
  // A pool-level error must never become an uncaught exception in Node-RED.
  pool.on('connectionError', () => { /* surfaced per request */ });
  return pool;
}

/** Closes gracefully (in-flight requests finish); destroys the sockets after `graceMs`. */
async function closePool(pool: Pool, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = pool.close().then(() => true, () => false);
  const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), graceMs); timer.unref?.(); });
  const closed = await Promise.race([graceful, timedOut]);
  if (timer) clearTimeout(timer);
  if (!closed) await pool.destroy().catch(() => undefined);
}

function isRedirect(res: Dispatched): boolean {
  return redirectLocation(res.statusCode, res.headers) !== undefined;
}

function opened(res: Dispatched): OpenedResponse {
  return { status: res.statusCode, headers: res.headers, body: res.body as unknown as OpenedResponse['body'] };
}

/**
 * Drops a body that will not be read. undici's body emits 'error' when destroyed before its end,
 * so it gets a listener first: an unread error body must never become an uncaught exception.
 */
export function discard(body: Readable): void {
  body.on('error', () => { /* the caller reports why it stopped reading */ });
  body.destroy();
}

/**
 * Reads a whole body as text, up to `maxBytes`; a body of declared size is handed to undici in one
 * go. It sets no timer of its own: the body it reads is one of `openStream`'s, still under the
 * message's deadline, which destroys it (with the timeout error) when the time is up.
 */
export function readText(res: OpenedResponse, maxBytes: number, opts: ExchangeDescription): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (declared > maxBytes) {
    discard(res.body);
    return Promise.reject(tooLarge(opts, maxBytes));
  }
  // The size is known and within the limit: undici collects it in one go (a network error while
  // reading is mapped by the caller, which knows whether the deadline cut it).
  if (declared >= 0 && Number.isFinite(declared)) return res.body.text();
  return readChunks(res, maxBytes, opts);
}

async function readChunks(res: OpenedResponse, maxBytes: number, opts: ExchangeDescription): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        discard(res.body);
        throw tooLarge(opts, maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof MindsDBError) throw err;
    throw networkError(err, opts);
  }
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The message's deadline over a streamed answer (`openStream`), as the abort signal undici listens to;
 * whole answers have TextExchange's own timer. undici accepts any object with `once`/`removeListener`
 * as a signal, so this is one timer and the one or two listeners undici adds, lighter than an
 * AbortController (an EventTarget and an AbortSignal) per request.
 */
class Deadline {
  aborted = false;
  reason: MindsDBError | undefined;
  private listeners: Array<() => void> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: SendOptions) {
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = timeoutError(this.opts);
      const listeners = this.listeners;
      this.listeners = [];
      for (const l of listeners) l();
    }, opts.deadlineAt - Date.now());
  }

  get expired(): boolean { return this.aborted; }

  // The part of the EventEmitter interface that undici uses for a signal ('abort' only).
  on(_event: 'abort', listener: () => void): this { this.listeners.push(listener); return this; }
  once(event: 'abort', listener: () => void): this { return this.on(event, listener); }
  removeListener(_event: 'abort', listener: () => void): this {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
    return this;
  }

  clear(): void { clearTimeout(this.timer); this.listeners = []; }
}
