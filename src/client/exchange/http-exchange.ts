import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { MindsDBError } from '../shared';
import { ResponseBody } from './response-body';
import { networkError, timeoutError, tooLarge, type ExchangeDescription } from './network-errors';
import { MAX_REDIRECTS, redirectLocation, sameOriginPath } from './redirects';

/** Where an exchange is sent: the dispatcher, the server's origin and, for error texts, the proxy. */
export interface Route {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  /** The proxy's origin (no credentials), when requests go through one. */
  readonly proxy: string | undefined;
}

/** A whole answer, its body decoded as UTF-8 text. */
export interface TextResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A 2xx answer whose body the caller reads as it arrives (see ResponseBody). */
export interface StreamedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: ResponseBody;
  /** Drops what is left of the body (the request ends) and stops the deadline; call it in every case. */
  release(): void;
}

/** What one exchange sends: `path` is absolute on the server, query string included. */
export interface ExchangeRequest extends ExchangeDescription {
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

/**
 * How an exchange reads its answer:
 * - `whole`: the body is read whole as text (every node's per-message path);
 * - `stream`: a 2xx body is handed over as it arrives, still under the deadline (server-sent events);
 * - `paced`: the same, but the deadline ends once the 2xx answer started, because a reader under
 *   flow control may stop reading; the reader bounds each wait itself (a streamed SQL answer).
 * Every other answer (an error status, a redirect) is read whole in every mode.
 */
export type ReadMode = 'whole' | 'stream' | 'paced';

/** Where an exchange delivers its one outcome. */
export interface ExchangeSink {
  /** A whole answer: any status in `whole` mode, a non-2xx one otherwise. */
  answered(res: TextResponse): void;
  /** A 2xx answer whose body arrives as it is read (`stream` and `paced` modes). */
  opened(res: StreamedResponse): void;
  failed(err: MindsDBError): void;
}

const BOM = 0xfeff;

/**
 * One request on undici's dispatch API with its controller interface (onRequestStart,
 * onResponseStart, onResponseData, onResponseEnd, onResponseError): the one transport of whole
 * and streamed answers. It skips what `Pool.request` adds for a caller that wants a stream (a
 * Readable per answer, an AsyncResource, abort-signal listeners, a promise for the headers and
 * another for the body), which in the benchmark's profiles was a fifth of the CPU time of a small
 * SQL request (bench/README.md); a streamed answer gets a Readable only once its 2xx answer started.
 *
 * What every exchange keeps, in every mode:
 * - one deadline over the whole exchange, redirects and error bodies included (one timer; a
 *   `paced` stream's ends once it started, a `stream` one's covers its whole body);
 * - one size limit: a declared content-length over it, or a body that grows past it, is cut
 *   (a stream's parser bounds each row or event instead);
 * - one redirect rule: 307/308 on the same origin only, at most MAX_REDIRECTS hops, so
 *   credentials and bodies never go to another host.
 */
export class HttpExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was cut (deadline, size), for an abort that comes before undici started it. */
  private reason: MindsDBError | undefined;
  private settled = false;
  private status = 0;
  private headers: IncomingHttpHeaders | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private redirectTo: string | undefined;
  private path: string;
  private hops = 0;
  private body: ResponseBody | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly route: Route,
    private readonly req: ExchangeRequest,
    private readonly maxBytes: number,
    private readonly mode: ReadMode,
    private readonly sink: ExchangeSink,
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

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200 || this.settled) return; // 1xx: informational, the answer follows
    this.status = statusCode;
    this.headers = headers;
    this.redirectTo = this.hops < MAX_REDIRECTS ? redirectLocation(statusCode, headers) : undefined;
    if (this.mode !== 'whole' && statusCode >= 200 && statusCode < 300) {
      this.open(controller);
      return;
    }
    const declared = headers['content-length'];
    if (declared !== undefined && this.redirectTo === undefined && Number(declared) > this.maxBytes) this.overLimit();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.body) {
      if (!this.body.push(chunk)) controller.pause();
      return;
    }
    if (this.redirectTo !== undefined || this.settled) return;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.chunks.push(chunk);
      this.overLimit();
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.body) {
      this.stopTimer();
      this.body.finish();
      return;
    }
    if (this.settled) return;
    if (this.redirectTo !== undefined) {
      this.follow(this.redirectTo);
      return;
    }
    this.settle();
    this.sink.answered({ status: this.status, headers: this.headers as IncomingHttpHeaders, text: this.text() });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.stopTimer();
    if (this.body) {
      this.body.destroy(this.reason ?? networkError(err, this.req, this.route.proxy));
      return;
    }
    if (this.settled) return;
    this.settle();
    this.sink.failed(networkError(err, this.req, this.route.proxy));
  }

  /** Sends the request; undici's own timeouts (`left`, ms) only back up the deadline's timer. */
  private dispatch(left: number): void {
    const { req } = this;
    this.controller = undefined;
    if (left < 1) left = 1;
    this.route.dispatcher.dispatch(
      {
        origin: this.route.origin,
        method: req.method as Dispatcher.HttpMethod,
        path: this.path,
        headers: req.headers,
        body: req.body,
        headersTimeout: left,
        // A paced stream's reader may stop reading for a while (flow control): it bounds each wait itself.
        bodyTimeout: this.mode === 'paced' ? 0 : left,
      },
      this,
    );
  }

  /** A 2xx answer in a streaming mode: its body goes to the caller as it arrives. */
  private open(controller: Dispatcher.DispatchController): void {
    this.settled = true;
    if (this.mode === 'paced') this.stopTimer();
    const body = new ResponseBody(controller);
    this.body = body;
    this.sink.opened({
      status: this.status,
      headers: this.headers as IncomingHttpHeaders,
      body,
      release: () => this.release(),
    });
  }

  /** The caller is done with a streamed body: what is left of it is dropped. */
  private release(): void {
    this.stopTimer();
    this.body?.discard();
  }

  /** A 307/308 on the same origin is sent again there, with the same method, body and credentials. */
  private follow(location: string): void {
    try {
      this.path = sameOriginPath(this.route.origin, this.path, location, this.req, this.status);
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

  /**
   * A body over the size limit: a 2xx answer fails (kind too-large); an error answer is reported by
   * its status, with its text cut at the limit, because the status still says what happened.
   */
  private overLimit(): void {
    if (this.status >= 200 && this.status < 300) {
      this.cut(tooLarge(this.req, this.maxBytes));
      return;
    }
    const text = this.text().slice(0, this.maxBytes);
    this.settle();
    this.controller?.abort(tooLarge(this.req, this.maxBytes));
    this.sink.answered({ status: this.status, headers: this.headers as IncomingHttpHeaders, text });
  }

  /** The body read so far, as UTF-8 text without a byte order mark. */
  private text(): string {
    const { chunks } = this;
    const text =
      chunks.length === 1
        ? chunks[0].toString('utf8')
        : chunks.length === 0
          ? ''
          : Buffer.concat(chunks, this.size).toString('utf8');
    return text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }

  /** Fails the exchange now and aborts it in undici (at once, or as soon as undici starts it). */
  private cut(reason: MindsDBError): void {
    this.reason = reason;
    if (this.body) {
      // The deadline of a `stream` body: whoever reads it gets the timeout.
      this.stopTimer();
      this.body.destroy(reason);
      return;
    }
    if (this.settled) return;
    this.settle();
    this.controller?.abort(reason);
    this.sink.failed(reason);
  }

  private settle(): void {
    this.settled = true;
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
