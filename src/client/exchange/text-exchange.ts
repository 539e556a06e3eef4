import type { Dispatcher } from 'undici';
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

/**
 * One request whose answer is read whole as text, on undici's dispatch API: the handler collects
 * the body's chunks and settles one promise. This is the per-message path of every node, so it
 * skips what `Pool.request` adds for a caller that wants a stream (a Readable per answer, an
 * AsyncResource, abort-signal listeners, a promise for the headers and another for the body): in
 * the benchmark's profiles, a fifth of the CPU time of a small SQL request (bench/README.md).
 *
 * It keeps the transport's promises: the message's deadline for the whole exchange (redirects included), a
 * maximum body size, and 307/308 redirects followed on the same origin only, so credentials are
 * never sent to another host.
 */
export class TextExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was cut (deadline, size), for an abort that comes before undici started it. */
  private reason: MindsDBError | undefined;
  private settled = false;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
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
    private readonly resolve: (res: TextResponse) => void,
    private readonly reject: (err: MindsDBError) => void,
  ) {
    this.path = req.path;
    const left = req.deadlineAt - Date.now();
    this.timer = setTimeout(() => this.cut(timeoutError(req)), left);
    this.dispatch(left);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: informational, the answer follows
    this.status = statusCode;
    this.headers = headers;
    this.redirectTo = this.hops < MAX_REDIRECTS ? redirectLocation(statusCode, headers) : undefined;
    if (Number(headers['content-length']) > this.maxBytes) this.cut(tooLarge(this.req, this.maxBytes));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.redirectTo !== undefined || this.settled) return;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.cut(tooLarge(this.req, this.maxBytes));
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.redirectTo !== undefined) {
      this.follow(this.redirectTo);
      return;
    }
    const { chunks } = this;
    let text = chunks.length === 1 ? chunks[0].toString('utf8') : chunks.length === 0 ? '' : Buffer.concat(chunks, this.size).toString('utf8');
    if (text.charCodeAt(0) === BOM) text = text.slice(1);
    this.settle();
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.settle();
    this.reject(networkError(err, this.req));
  }

  /** Sends the request; undici's own timeouts (`left`, ms) only back up the deadline's timer. */
  private dispatch(left: number): void {
    const { req } = this;
    this.controller = undefined;
    if (left < 1) left = 1;
    this.pool.dispatch({
      method: req.method as Dispatcher.HttpMethod,
      path: this.path,
      headers: req.headers,
      body: req.body,
      headersTimeout: left,
      bodyTimeout: left,
    }, this);
  }

  /** A 307/308 on the same origin is sent again there, with the same method, body and credentials. */
  private follow(location: string): void {
    try {
      this.path = sameOriginPath(this.origin, this.path, location, this.req, this.status);
    } catch (err) {
      this.settle();
      this.reject(err as MindsDBError);
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
    this.controller?.abort(reason);
    this.reject(reason);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }
}

/** Sends `req` through `pool` and resolves with its whole answer as text (see TextExchange). */
export function exchangeText(pool: Dispatcher, origin: string, req: ExchangeRequest, maxBytes: number): Promise<TextResponse> {
  return new Promise((resolve, reject) => { new TextExchange(pool, origin, req, maxBytes, resolve, reject); });
}
