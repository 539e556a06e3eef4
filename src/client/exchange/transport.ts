import { Pool, ProxyAgent, type Dispatcher } from 'undici';
import { HttpExchange, type ExchangeRequest, type ExchangeSink, type ReadMode, type Route } from './http-exchange';

export interface TlsOptions {
  ca?: string | Buffer | Array<string | Buffer>;
  cert?: string | Buffer;
  key?: string | Buffer;
  passphrase?: string;
  servername?: string;
  /** false accepts self-signed or unknown certificates; default true (verify). */
  rejectUnauthorized?: boolean;
}

/**
 * An HTTP proxy that every request to the server goes through: plain requests forwarded to it,
 * https ones through a CONNECT tunnel (the TLS session is then between the client and the server).
 */
export interface ProxyOptions {
  /** http://host:port or https://host:port, without credentials. */
  url: string;
  /** Basic proxy authentication (Proxy-Authorization), sent to the proxy only. */
  username?: string;
  password?: string;
}

export interface TransportOptions {
  /** scheme://host:port of the server. */
  origin: string;
  /** Sockets kept open to the server for whole answers (the pool size). */
  connections: number;
  /** Sockets for streamed answers, in a pool of their own (default: `connections`). */
  streamConnections?: number;
  tls?: TlsOptions;
  proxy?: ProxyOptions;
}

/**
 * The connections to one server: keep-alive sockets, directly or through a proxy. It knows HTTP
 * only (no auth, no retries, no MindsDB); each request is one HttpExchange (deadline, size limit,
 * same-origin redirects).
 */
export class HttpTransport {
  private readonly whole: Route;
  /**
   * Streamed answers have a pool of their own, made on first use: a paused stream keeps its socket
   * (unread) without a connection slot, so streams may hold more sockets than there are slots, and
   * sharing one pool would mean a pool larger than the in-flight limit for whole answers too, which
   * costs the per-message path about 1.5 µs of CPU (more sockets, fewer requests on each; measured
   * A/B against the one-pool client, 20,000 small SQL answers, 32 outstanding, 8 slots).
   */
  private streams: Route | undefined;
  /** The proxy's origin (no credentials), when requests go through one. */
  readonly proxy: string | undefined;

  constructor(private readonly opts: TransportOptions) {
    this.proxy = opts.proxy ? new URL(opts.proxy.url).origin : undefined;
    this.whole = this.route(opts.connections);
  }

  /** Sends `req`; its one outcome goes to `sink` (see HttpExchange). */
  exchange(req: ExchangeRequest, maxBytes: number, mode: ReadMode, sink: ExchangeSink): void {
    const route =
      mode === 'whole'
        ? this.whole
        : (this.streams ??= this.route(this.opts.streamConnections ?? this.opts.connections));
    new HttpExchange(route, req, maxBytes, mode, sink);
  }

  /** Closes gracefully (in-flight requests finish); destroys the sockets after `graceMs`. */
  async close(graceMs = 10_000): Promise<void> {
    await Promise.all([this.whole, this.streams].map((route) => route && closeDispatcher(route.dispatcher, graceMs)));
  }

  private route(connections: number): Route {
    const { origin, tls, proxy } = this.opts;
    const options = { connections, pipelining: 1 };
    const dispatcher: Dispatcher = proxy
      ? new ProxyAgent({
          ...options,
          uri: proxy.url,
          token: basicAuth(proxy),
          requestTls: tls ? { ...tls } : undefined,
        })
      : new Pool(origin, { ...options, connect: tls ? { ...tls } : undefined });
    // A pool-level error must never become an uncaught exception in Node-RED.
    dispatcher.on('connectionError', () => {
      /* surfaced per request */
    });
    return { dispatcher, origin, proxy: this.proxy };
  }
}

function basicAuth(proxy: ProxyOptions): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64')}`;
}

/** Closes gracefully (in-flight requests finish); destroys the sockets after `graceMs`. */
async function closeDispatcher(dispatcher: Dispatcher, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = dispatcher.close().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
    timer.unref?.();
  });
  const closed = await Promise.race([graceful, timedOut]);
  if (timer) clearTimeout(timer);
  if (!closed) await dispatcher.destroy().catch(() => undefined);
}
