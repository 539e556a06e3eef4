import { MindsDBError, sizeText } from '../shared';

/** What an HTTP exchange is, for the texts of its errors. */
export interface ExchangeDescription {
  method: string;
  path: string;
  timeoutMs: number;
}

/**
 * Network error codes that mean the request never reached the server (safe to retry); EPROXYTUNNEL
 * is ours (the proxy did not open its CONNECT tunnel), UND_ERR_PRX_CONN undici's (the proxy dropped
 * the connection while opening it): either way nothing was sent through it. EUNREACHABLE: not sent
 * at all, because the health watcher knew the server was down (client/connection/health.ts).
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPROXYTUNNEL',
  'UND_ERR_PRX_CONN',
  'EUNREACHABLE',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function isNotSent(err: MindsDBError): boolean {
  return err.kind === 'network' && typeof err.code === 'string' && NOT_SENT_CODES.has(err.code);
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.cause?.code === 'string' && e.cause.code !== 'UND_ERR_SOCKET') return e.cause.code;
  return typeof e?.code === 'string' ? e.code : undefined;
}

/** undici's codes for a request it cannot send at all (a header or path it refuses): no retry can help. */
const UNSENDABLE_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_URL',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_UNESCAPED_CHARACTERS',
]);

/**
 * A failed exchange as a MindsDBError. `proxy`: the proxy's origin when the request went through
 * one, so that the text says which of the two could not be reached.
 */
export function networkError(err: unknown, opts: ExchangeDescription, proxy?: string): MindsDBError {
  if (err instanceof MindsDBError) return err;
  if (proxy !== undefined) {
    const refused = proxyRefusal(err, opts, proxy);
    if (refused) return refused;
  }
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) return timeoutError(opts);
  if (code && UNSENDABLE_CODES.has(code)) {
    return new MindsDBError(
      `the request ${opts.method} ${opts.path} cannot be sent: ${err instanceof Error ? err.message : String(err)}`,
      { kind: 'input', code, method: opts.method, path: opts.path },
    );
  }
  const detail = describeNetworkCode(code, proxy) ?? (err instanceof Error ? err.message : String(err));
  const via = proxy === undefined ? '' : ` through the proxy ${proxy}`;
  return new MindsDBError(`cannot reach the MindsDB server for ${opts.method} ${opts.path}${via}: ${detail}`, {
    kind: 'network',
    code: code ?? 'ENETWORK',
    method: opts.method,
    path: opts.path,
  });
}

/**
 * undici's words for a proxy that refused the request: a 407 to a forwarded request (an
 * InvalidArgumentError), or a CONNECT answered with another status than 200 (a
 * RequestAbortedError naming it). A 407 is the proxy's credentials, never MindsDB's.
 */
function proxyRefusal(err: unknown, opts: ExchangeDescription, proxy: string): MindsDBError | undefined {
  const message = err instanceof Error ? err.message : '';
  const tunnel = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(message);
  const status = /Proxy Authentication Required \(407\)/.test(message) ? 407 : tunnel ? Number(tunnel[1]) : undefined;
  if (status === undefined) return undefined;
  if (status === 407) {
    return new MindsDBError(
      `the proxy ${proxy} refused ${opts.method} ${opts.path}: HTTP 407 Proxy Authentication Required (set or ` +
        `correct the proxy's username and password)`,
      { kind: 'auth', status: 407, code: 'EPROXYAUTH', method: opts.method, path: opts.path },
    );
  }
  return new MindsDBError(
    `cannot reach the MindsDB server for ${opts.method} ${opts.path} through the proxy ${proxy}: the proxy answered ` +
      `its CONNECT with HTTP ${status}`,
    { kind: 'network', status, code: 'EPROXYTUNNEL', method: opts.method, path: opts.path },
  );
}

function describeNetworkCode(code: string | undefined, proxy: string | undefined): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return proxy === undefined
        ? 'connection refused (is MindsDB running at this URL?)'
        : 'connection refused (is the proxy running, and MindsDB at this URL?)';
    case 'UND_ERR_PRX_CONN':
      return 'the connection to the proxy broke while it opened the tunnel';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connecting timed out';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_HAS_EXPIRED':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return (
        `the server's TLS certificate was not accepted (${code}); add its CA with a TLS configuration on the ` +
        `server node`
      );
    default:
      return undefined;
  }
}

export function timeoutError(opts: ExchangeDescription): MindsDBError {
  return new MindsDBError(
    `no complete answer from the MindsDB server within ${opts.timeoutMs} ms for ${opts.method} ${opts.path}`,
    { kind: 'timeout', code: 'ETIMEDOUT', method: opts.method, path: opts.path },
  );
}

export function tooLarge(opts: ExchangeDescription, maxBytes: number): MindsDBError {
  return new MindsDBError(
    `the answer to ${opts.method} ${opts.path} is larger than the limit of ${sizeText(maxBytes)}`,
    { kind: 'too-large', method: opts.method, path: opts.path },
  );
}
