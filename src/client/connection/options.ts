import type { AuthOptions, ExchangeSettings, ProxyOptions, TlsOptions } from '../exchange';
import { inputError, MAX_TIMER_MS, normalisePrefix } from '../shared';
import type { HealthSettings } from './health';

export interface ClientOptions {
  /** e.g. http://127.0.0.1:47334 (a path after the host is kept in front of the API prefix). */
  baseUrl: string;
  /** API path prefix, default "/api". */
  apiPrefix?: string;
  auth?: AuthOptions;
  /**
   * The tenant on a multi-tenant MindsDB: sent as the `company-id` / `user-id` headers on every
   * request to this server (MindsDB's before_request sets the tenant from them; a blank one is
   * not sent, and the server then uses its default tenant).
   */
  tenant?: { companyId?: string; userId?: string };
  /** Default time budget of one request, ms (default 60 000): retries and back-off included. */
  timeoutMs?: number;
  /** Extra attempts where repeating cannot change the outcome (default 2). */
  retries?: number;
  /** Also repeat POSTs that may have reached the server (default false). */
  retryPost?: boolean;
  /** First backoff delay, ms; doubles each attempt, with full jitter (default 200). */
  retryBaseDelayMs?: number;
  /** Requests in flight at once (default 8). */
  maxInFlight?: number;
  /** Requests waiting for a slot before "queue full" errors (default 1000). */
  maxQueue?: number;
  /** Largest response body accepted (default 64 MiB); for streams, the largest line, row or event. */
  maxResponseBytes?: number;
  tls?: TlsOptions;
  /** An HTTP proxy every request goes through (https ones through a CONNECT tunnel); none by default. */
  proxy?: ProxyOptions;
  /** The health watcher's timings (health.ts); the defaults suit a server node. */
  health?: Partial<HealthSettings>;
}

const DEFAULTS = {
  timeoutMs: 60_000,
  retries: 2,
  retryBaseDelayMs: 200,
  maxInFlight: 8,
  maxQueue: 1000,
  maxResponseBytes: 64 * 1024 * 1024,
};

/** A client's options checked and completed: the exchange's settings, and what the facade keeps. */
export interface Settings {
  baseUrl: string;
  prefix: string;
  exchange: ExchangeSettings;
  /** Every secret the options hold, for the client's redactor. */
  secrets: string[];
}

/**
 * The routes the connection itself needs, below the API prefix: MindsDB's, given by
 * client/resources/routes.ts (the one place that writes a REST path).
 */
export interface ServerRoutes {
  status: string;
  login: string;
  readiness: string;
  sql: string;
}

/** Checks a client's options (a bad URL or tenant is a clear input error) and fills in the defaults. */
export function settingsOf(opts: ClientOptions, routes: ServerRoutes): Settings {
  const url = serverUrl(opts.baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '') + normalisePrefix(opts.apiPrefix);
  const auth = opts.auth ?? { mode: 'none' };
  const proxy = opts.proxy && proxyOf(opts.proxy);
  return {
    baseUrl: url.origin + url.pathname.replace(/\/+$/, ''),
    prefix,
    exchange: {
      origin: url.origin,
      loginPath: prefix + routes.login,
      statusPath: prefix + routes.status,
      auth,
      headers: tenantHeaders(opts.tenant),
      timeoutMs: Math.min(MAX_TIMER_MS, positive(opts.timeoutMs, DEFAULTS.timeoutMs)),
      retries: Math.max(0, Math.floor(opts.retries ?? DEFAULTS.retries)),
      retryPost: opts.retryPost ?? false,
      retryBaseDelayMs: Math.max(0, opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs),
      maxInFlight: Math.floor(positive(opts.maxInFlight, DEFAULTS.maxInFlight)),
      maxQueue: Math.max(0, Math.floor(opts.maxQueue ?? DEFAULTS.maxQueue)),
      maxResponseBytes: positive(opts.maxResponseBytes, DEFAULTS.maxResponseBytes),
      tls: opts.tls,
      proxy,
    },
    secrets: [...secretsOf(auth), ...(proxy?.password ? [proxy.password] : [])],
  };
}

export function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

function serverUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw inputError(`the MindsDB server URL "${String(baseUrl)}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw inputError(`the MindsDB server URL must start with http:// or https:// (got "${url.protocol}")`);
  }
  if (url.username || url.password) {
    throw inputError("put MindsDB credentials in the server node's credentials, not in the URL");
  }
  return url;
}

/**
 * The proxy as the transport takes it: its URL without credentials (credentials written into the
 * URL, as HTTP_PROXY often has them, become the username and password), never quoted in an error.
 */
function proxyOf(proxy: ProxyOptions): ProxyOptions {
  let url: URL;
  try {
    url = new URL(proxy.url);
  } catch {
    throw inputError('the proxy URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw inputError(`the proxy URL must start with http:// or https:// (got "${url.protocol}")`);
  }
  const username = proxy.username || decodeURIComponent(url.username) || undefined;
  const password = proxy.password || decodeURIComponent(url.password) || undefined;
  return { url: url.origin, username, password };
}

/**
 * The tenant headers, checked here so that a bad value is a clear input error and not undici's
 * "invalid header" on the first request: visible ASCII only (no spaces, no line breaks).
 */
function tenantHeaders(tenant: ClientOptions['tenant']): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [header, value] of [
    ['company-id', tenant?.companyId],
    ['user-id', tenant?.userId],
  ] as const) {
    const v = (value ?? '').trim();
    if (v === '') continue;
    if (!/^[\x21-\x7e]+$/.test(v))
      throw inputError(
        `the tenant header ${header} must be visible ASCII characters without spaces (got ` +
          `${JSON.stringify(v.slice(0, 40))})`,
      );
    out[header] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function secretsOf(auth: AuthOptions): string[] {
  switch (auth.mode) {
    case 'session':
      return [auth.session];
    case 'token':
      return [auth.token];
    case 'login':
      return [auth.password];
    default:
      return [];
  }
}
