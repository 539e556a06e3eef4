import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { MindsDBError } from './errors';

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
  /** Sockets kept open to the server (the pool size). */
  connections: number;
  tls?: TlsOptions;
}

export interface OpenedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable & { text(): Promise<string> };
}

export interface TextResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface SendOptions {
  method: string;
  /** Absolute path on the server, query string included. */
  path: string;
  headers: Record<string, string>;
  /** JSON text, or the bytes of a multipart upload. */
  body?: string | Buffer;
  timeoutMs: number;
}

const MAX_REDIRECTS = 3;

/**
 * One keep-alive connection pool to one server. It knows HTTP only: no auth, no retries, no
 * MindsDB. It follows 307/308 redirects on the same origin only, so credentials are never sent to
 * another host, and it enforces a deadline for the whole exchange and a maximum body size.
 */
export class HttpTransport {
  private readonly pool: Pool;
  private readonly origin: string;

  constructor(opts: TransportOptions) {
    this.origin = opts.origin;
    this.pool = new Pool(opts.origin, {
      connections: opts.connections,
      pipelining: 1,
      connect: opts.tls ? { ...opts.tls } : undefined,
    });
    // A pool-level error must never become an uncaught exception in Node-RED.
    this.pool.on('connectionError', () => { /* surfaced per request */ });
  }

  /**
   * Sends a request and reads the whole body as text, up to `maxBytes`. The common case (no
   * redirect, a body of known size) is one promise chain from the request to the text, with no
   * async frames in between: this is the per-message path of every node.
   */
  send(opts: SendOptions, maxBytes: number): Promise<TextResponse> {
    const deadline = new Deadline(opts);
    const fail = (err: unknown): never => {
      deadline.clear();
      throw deadline.expired ? timeoutError(opts) : networkError(err, opts);
    };
    const finish = (res: OpenedResponse): Promise<TextResponse> => readText(res, maxBytes, opts).then(
      (text) => { deadline.clear(); return { status: res.status, headers: res.headers, text }; },
      fail,
    );
    return this.pool.request(this.requestOptions(opts, opts.path, deadline, opts.timeoutMs)).then(
      (res) => (isRedirect(res) ? this.followRedirects(opts, deadline, res, opts.timeoutMs).then(finish, fail) : finish(opened(res))),
      fail,
    );
  }


  /**
   * Opens a request and hands back the streaming body (for server-sent events). The deadline
   * covers the whole stream; `release()` must be called when the caller is done with it.
   */
  async open(opts: SendOptions): Promise<OpenedResponse & { release(): void; expired(): boolean }> {
    const deadline = new Deadline(opts);
    try {
      const res = await this.openWith(opts, deadline);
      return { ...res, release: () => deadline.clear(), expired: () => deadline.expired };
    } catch (err) {
      deadline.clear();
      throw deadline.expired ? timeoutError(opts) : err;
    }
  }

  /**
   * Opens a request whose body the caller reads at its own pace (a streamed SQL answer). The
   * deadline covers the wait for the answer's headers only; undici's own body timeout is off,
   * because a body that the caller stops reading (flow control) must not time out: the caller
   * bounds each wait for data itself.
   */
  async openPaced(opts: SendOptions): Promise<OpenedResponse> {
    const deadline = new Deadline(opts);
    try {
      return await this.openWith(opts, deadline, 0);
    } catch (err) {
      throw deadline.expired ? timeoutError(opts) : err;
    } finally {
      deadline.clear();
    }
  }

  /** Closes gracefully (in-flight requests finish); destroys the sockets after `graceMs`. */
  async close(graceMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const graceful = this.pool.close().then(() => true, () => false);
    const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), graceMs); timer.unref?.(); });
    const closed = await Promise.race([graceful, timedOut]);
    if (timer) clearTimeout(timer);
    if (!closed) await this.pool.destroy().catch(() => undefined);
  }

  private openWith(opts: SendOptions, deadline: Deadline, bodyTimeout = opts.timeoutMs): Promise<OpenedResponse> {
    return this.dispatch(opts, opts.path, deadline, bodyTimeout)
      .then((res) => (isRedirect(res) ? this.followRedirects(opts, deadline, res, bodyTimeout) : opened(res)));
  }

  private dispatch(opts: SendOptions, path: string, deadline: Deadline, bodyTimeout: number): Promise<Dispatched> {
    return this.pool.request(this.requestOptions(opts, path, deadline, bodyTimeout)).catch((err: unknown) => { throw networkError(err, opts); });
  }

  private requestOptions(opts: SendOptions, path: string, deadline: Deadline, bodyTimeout: number): Dispatcher.RequestOptions {
    return {
      method: opts.method as Dispatcher.HttpMethod,
      path,
      headers: opts.headers,
      body: opts.body,
      signal: deadline,
      headersTimeout: opts.timeoutMs,
      bodyTimeout,
    };
  }

  /** Follows 307/308 on the same origin only (the request keeps its method, body and credentials). */
  private async followRedirects(opts: SendOptions, deadline: Deadline, first: Dispatched, bodyTimeout: number): Promise<OpenedResponse> {
    let res = first;
    let path = opts.path;
    for (let hop = 0; isRedirect(res) && hop < MAX_REDIRECTS; hop++) {
      res.body.resume();
      const target = new URL(String(res.headers.location), this.origin + path);
      if (target.origin !== this.origin) {
        throw new MindsDBError(
          `the server redirected ${opts.method} ${opts.path} to another host (${target.origin}); not followed, so no credentials are sent there`,
          { kind: 'http', status: res.statusCode, method: opts.method, path: opts.path });
      }
      path = target.pathname + target.search;
      res = await this.dispatch(opts, path, deadline, bodyTimeout);
    }
    return opened(res);
  }
}

type Dispatched = Dispatcher.ResponseData;

function isRedirect(res: Dispatched): boolean {
  return (res.statusCode === 307 || res.statusCode === 308) && typeof res.headers.location === 'string';
}

function opened(res: Dispatched): OpenedResponse {
  return { status: res.statusCode, headers: res.headers, body: res.body as unknown as OpenedResponse['body'] };
}

/** Reads a whole body as text, up to `maxBytes`; a body of declared size is handed to undici in one go. */
export function readText(res: OpenedResponse, maxBytes: number, opts: SendOptions): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (declared > maxBytes) {
    res.body.destroy();
    return Promise.reject(tooLarge(opts, maxBytes));
  }
  // The size is known and within the limit: undici collects it in one go (a network error while
  // reading is mapped by the caller, which knows whether the deadline cut it).
  if (declared >= 0 && Number.isFinite(declared)) return res.body.text();
  return readChunks(res, maxBytes, opts);
}

async function readChunks(res: OpenedResponse, maxBytes: number, opts: SendOptions): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.body.destroy();
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
 * A deadline for a whole exchange, and the abort signal undici listens to. undici accepts any
 * object with `once`/`removeListener` as a signal; an AbortController per request (an EventTarget
 * and an AbortSignal) cost about 5% of the CPU time of a small SQL request in the benchmark, and
 * an EventEmitter still more than this: one timer and the one or two listeners undici adds.
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
    }, opts.timeoutMs);
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

/** Network error codes that mean the request never reached the server (safe to retry). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function isNotSent(err: MindsDBError): boolean {
  return err.kind === 'network' && typeof err.code === 'string' && NOT_SENT_CODES.has(err.code);
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.cause?.code === 'string' && e.cause.code !== 'UND_ERR_SOCKET') return e.cause.code;
  return typeof e?.code === 'string' ? e.code : undefined;
}

function networkError(err: unknown, opts: SendOptions): MindsDBError {
  if (err instanceof MindsDBError) return err;
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) return timeoutError(opts);
  const detail = describeNetworkCode(code) ?? (err instanceof Error ? err.message : String(err));
  return new MindsDBError(`cannot reach the MindsDB server for ${opts.method} ${opts.path}: ${detail}`,
    { kind: 'network', code: code ?? 'ENETWORK', method: opts.method, path: opts.path });
}

function describeNetworkCode(code: string | undefined): string | undefined {
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused (is MindsDB running at this URL?)';
    case 'ECONNRESET': case 'UND_ERR_SOCKET': return 'the connection was reset';
    case 'ENOTFOUND': case 'EAI_AGAIN': return 'the host name could not be resolved';
    case 'UND_ERR_CONNECT_TIMEOUT': return 'connecting timed out';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'CERT_HAS_EXPIRED': case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the server's TLS certificate was not accepted (${code}); add its CA with a TLS configuration on the server node`;
    default: return undefined;
  }
}

function timeoutError(opts: SendOptions): MindsDBError {
  return new MindsDBError(`no complete answer from the MindsDB server within ${opts.timeoutMs} ms for ${opts.method} ${opts.path}`,
    { kind: 'timeout', code: 'ETIMEDOUT', method: opts.method, path: opts.path });
}

function tooLarge(opts: SendOptions, maxBytes: number): MindsDBError {
  return new MindsDBError(`the answer to ${opts.method} ${opts.path} is larger than the limit of ${Math.round(maxBytes / 1048576)} MB`,
    { kind: 'too-large', method: opts.method, path: opts.path });
}
