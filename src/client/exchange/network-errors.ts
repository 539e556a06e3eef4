import { MindsDBError, sizeText } from '../shared';

/** What an HTTP exchange is, for the texts of its errors. */
export interface ExchangeDescription {
  method: string;
  path: string;
  timeoutMs: number;
}

/**
 * Network error codes that mean the request never reached the server (safe to retry).
 * EUNREACHABLE: not sent at all, because the health watcher knew the server was down
 * (client/connection/health.ts).
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EUNREACHABLE']);
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
const UNSENDABLE_CODES = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_URL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN', 'ERR_UNESCAPED_CHARACTERS']);

export function networkError(err: unknown, opts: ExchangeDescription): MindsDBError {
  if (err instanceof MindsDBError) return err;
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) return timeoutError(opts);
  if (code && UNSENDABLE_CODES.has(code)) {
    return new MindsDBError(`the request ${opts.method} ${opts.path} cannot be sent: ${err instanceof Error ? err.message : String(err)}`,
      { kind: 'input', code, method: opts.method, path: opts.path });
  }
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

export function timeoutError(opts: ExchangeDescription): MindsDBError {
  return new MindsDBError(`no complete answer from the MindsDB server within ${opts.timeoutMs} ms for ${opts.method} ${opts.path}`,
    { kind: 'timeout', code: 'ETIMEDOUT', method: opts.method, path: opts.path });
}

export function tooLarge(opts: ExchangeDescription, maxBytes: number): MindsDBError {
  return new MindsDBError(`the answer to ${opts.method} ${opts.path} is larger than the limit of ${sizeText(maxBytes)}`,
    { kind: 'too-large', method: opts.method, path: opts.path });
}
