import { util, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { MindsDBError } from '../shared';
import { networkError, timeoutError, tooLarge } from './network-errors';
import { MAX_REDIRECTS, redirectLocation, sameOriginPath } from './redirects';

/** A whole answer, its body decoded as UTF-8 text. */
export interface TextResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** What one exchange sends: `path` is absolute on the server, query string included. */
export interface ExchangeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON text, or the bytes of a multipart upload. */
  body?: string | Buffer;
  /** The message's whole time budget, for the texts of errors. */
  timeoutMs: number;
  /** When the message's time is up (see deadline.ts): every attempt of it shares this one. */
  deadlineAt: number;
}

const BOM = 0xfeff;

/** Where a TextExchange delivers its one outcome (a whole answer, or the error that ended it). */
export interface TextSink {
  answered(res: TextResponse): void;
  failed(err: MindsDBError): void;
}

type RawHeaders = Array<Buffer | string>;

/**
 * A whole answer whose headers are parsed only when someone reads them: a 2xx SQL answer needs
 * none of them, and parsing every header into an object was 0.7 µs of each message (bench/README.md).
 */
class WholeResponse implements TextResponse {
  private parsed: IncomingHttpHeaders | undefined;
  constructor(readonly status: number, private readonly raw: RawHeaders, readonly text: string) {}
  get headers(): IncomingHttpHeaders {
    this.parsed ??= parseRawHeaders(this.raw);
    return this.parsed;
  }
}

function parseRawHeaders(raw: RawHeaders): IncomingHttpHeaders {
  return util.parseHeaders(raw) as IncomingHttpHeaders;
}

/** The declared content-length of raw headers, or -1 (scanned without parsing the others). */
function contentLength(raw: RawHeaders): number {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 14 && util.headerNameToString(name) === 'content-length') {
      const n = Number(String(raw[i + 1]));
      return Number.isFinite(n) ? n : -1;
    }
  }
  return -1;
}

/**
 * One request whose answer is read whole as text, on undici's dispatch API: the handler collects
 * the body's chunks and hands the text to its sink. This is the per-message path of every node, so it
 * skips what `Pool.request` adds for a caller that wants a stream (a Readable per answer, an
 * AsyncResource, abort-signal listeners, a promise for the headers and another for the body): in
 * the benchmark's profiles, a fifth of the CPU time of a small SQL request (bench/README.md).
 *
 * The handler implements undici's callback interface (onConnect, onHeaders, onData, onComplete,
 * onError), which undici's own `Pool.request` uses; the newer controller interface
 * (onRequestStart …) is wrapped by undici 7 into this one, with two objects and two header
 * parses more per request (1.1 µs of CPU per message in the benchmark's profiles).
 *
 * It keeps the transport's promises: the message's deadline for the whole exchange (redirects included), a
 * maximum body size, and 307/308 redirects followed on the same origin only, so credentials are
 * never sent to another host.
 */
export class TextExchange {
  private abort: ((err?: Error) => void) | undefined;
  /** Why the exchange was cut (deadline, size), for an abort that comes before undici started it. */
  private reason: MindsDBError | undefined;
  private settled = false;
  private status = 0;
  private raw: RawHeaders = [];
  private chunks: Buffer[] = [];
  private size = 0;
  private redirectTo: string | undefined;
  private path: string;
  private hops = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: Dispatcher,
    private readonly origin: string,
    private readonly req: ExchangeRequest,
    private readonly maxBytes: number,
    private readonly sink: TextSink,
  ) {
    this.path = req.path;
    const left = req.deadlineAt - Date.now();
    this.timer = setTimeout(() => this.cut(timeoutError(req)), left);
    this.dispatch(left);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    if (this.reason) abort(this.reason);
  }

  onHeaders(statusCode: number, rawHeaders: RawHeaders): boolean {
    if (statusCode < 200) return true; // 1xx: informational, the answer follows
    this.status = statusCode;
    this.raw = rawHeaders;
    this.redirectTo = this.hops < MAX_REDIRECTS && (statusCode === 307 || statusCode === 308)
      ? redirectLocation(statusCode, parseRawHeaders(rawHeaders)) : undefined;
    if (contentLength(rawHeaders) > this.maxBytes) this.cut(tooLarge(this.req, this.maxBytes));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.redirectTo !== undefined || this.settled) return true;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.cut(tooLarge(this.req, this.maxBytes));
      return true;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    if (this.redirectTo !== undefined) {
      this.follow(this.redirectTo);
      return;
    }
    const { chunks } = this;
    let text = chunks.length === 1 ? chunks[0].toString('utf8') : chunks.length === 0 ? '' : Buffer.concat(chunks, this.size).toString('utf8');
    if (text.charCodeAt(0) === BOM) text = text.slice(1);
    this.settle();
    this.sink.answered(new WholeResponse(this.status, this.raw, text));
  }

  onError(err: Error): void {
    if (this.settled) return;
    this.settle();
    this.sink.failed(networkError(err, this.req));
  }

  /** Sends the request; undici's own timeouts (`left`, ms) only back up the deadline's timer. */
  private dispatch(left: number): void {
    const { req } = this;
    this.abort = undefined;
    if (left < 1) left = 1;
    this.pool.dispatch({
      method: req.method as Dispatcher.HttpMethod,
      path: this.path,
      headers: req.headers,
      body: req.body,
      headersTimeout: left,
      bodyTimeout: left,
    }, this as Dispatcher.DispatchHandler);
  }

  /** A 307/308 on the same origin is sent again there, with the same method, body and credentials. */
  private follow(location: string): void {
    try {
      this.path = sameOriginPath(this.origin, this.path, location, this.req, this.status);
    } catch (err) {
      this.settle();
      this.sink.failed(err as MindsDBError);
      return;
    }
    this.hops++;
    this.redirectTo = undefined;
    this.chunks = [];
    this.size = 0;
    this.dispatch(this.req.deadlineAt - Date.now());
  }

  /** Fails the exchange now and aborts it in undici (at once, or as soon as undici starts it). */
  private cut(reason: MindsDBError): void {
    if (this.settled) return;
    this.reason = reason;
    this.settle();
    this.abort?.(reason);
    this.sink.failed(reason);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }
}

/** A sink that settles a promise. */
class PromiseSink implements TextSink {
  constructor(readonly answered: (res: TextResponse) => void, readonly failed: (err: MindsDBError) => void) {}
}

/** Sends `req` through `pool` and resolves with its whole answer as text (see TextExchange). */
export function exchangeText(pool: Dispatcher, origin: string, req: ExchangeRequest, maxBytes: number): Promise<TextResponse> {
  return new Promise((resolve, reject) => { new TextExchange(pool, origin, req, maxBytes, new PromiseSink(resolve, reject)); });
}
