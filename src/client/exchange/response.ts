import { MindsDBError, type Redactor } from '../shared';
import type { TextResponse } from './http-exchange';
import { unfollowedRedirect } from './redirects';

/** Parses a 2xx body: JSON, or null for an empty body (204, or `""` from some MindsDB routes). */
export function parseSuccessBody(res: TextResponse, method: string, path: string): unknown {
  const text = res.text;
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new MindsDBError(
      `the MindsDB server answered ${method} ${path} with a body that is not JSON (${describeBody(res)})`,
      { kind: 'invalid-response', status: res.status, method, path },
    );
  }
}

/**
 * Builds the error for a non-2xx answer. MindsDB uses two JSON shapes ({title, detail, timestamp}
 * and {title, detail, message}) and some HTML pages (405 on unknown routes, proxies); anything
 * else falls back to the status line. A route the server does not have becomes kind 'unsupported';
 * a redirect that was not followed, kind 'redirect'.
 */
export function httpError(res: TextResponse, method: string, path: string, redactor: Redactor): MindsDBError {
  if (res.status >= 300 && res.status < 400) return unfollowedRedirect(res.status, res.headers, method, path);
  const body = tryJson(res);
  const serverMessage = redactor.text(messageOf(body) ?? statusText(res.status));
  const missingRoute = res.status === 405 || (res.status === 404 && isMissingRouteBody(body));
  if (missingRoute) {
    return new MindsDBError(
      `this MindsDB server has no ${method} ${path} endpoint (HTTP ${res.status}); it may be a different MindsDB ` +
        `version`,
      { kind: 'unsupported', status: res.status, serverMessage, method, path },
    );
  }
  return new MindsDBError(`MindsDB answered HTTP ${res.status} to ${method} ${path}: ${serverMessage}`, {
    kind: res.status === 401 || res.status === 403 ? 'auth' : 'http',
    status: res.status,
    serverMessage,
    method,
    path,
  });
}

/** A 404 for a path the server has no route for (as opposed to "Model not found" on a real route). */
export function isMissingRouteBody(body: unknown): boolean {
  if (body === undefined) return true; // not JSON: the GUI catch-all or a proxy
  const b = body as { title?: unknown; detail?: unknown } | null;
  return typeof b?.detail === 'string' && /endpoint .* does not exist/i.test(b.detail);
}

function tryJson(res: TextResponse): unknown {
  const ct = String(res.headers['content-type'] ?? '');
  if (!ct.includes('json') && !/^\s*[[{"]/.test(res.text)) return undefined;
  try {
    return JSON.parse(res.text);
  } catch {
    return undefined;
  }
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string' && body) return body;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ['title', 'detail', 'message', 'error_message', 'error']) {
    const v = b[key];
    if (typeof v === 'string' && v && !parts.includes(v)) parts.push(v);
  }
  return parts.length ? parts.join(': ') : undefined;
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    409: 'Conflict',
    413: 'Payload Too Large',
    415: 'Unsupported Media Type',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return texts[status] ?? `HTTP ${status}`;
}

function describeBody(res: TextResponse): string {
  const ct = String(res.headers['content-type'] ?? 'no content type');
  return `${ct}, ${res.text.length} bytes`;
}
