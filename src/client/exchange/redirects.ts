import type { IncomingHttpHeaders } from 'node:http';
import { MindsDBError } from '../shared';
import type { ExchangeDescription } from './network-errors';

/** Same-origin 307/308 hops followed before the last redirect answer is handed back as it is. */
export const MAX_REDIRECTS = 3;

/** The Location of a 307/308 (the redirects that keep the method and body), else undefined. */
export function redirectLocation(status: number, headers: IncomingHttpHeaders): string | undefined {
  const location = headers.location;
  return (status === 307 || status === 308) && typeof location === 'string' ? location : undefined;
}

/**
 * The path a redirect from `fromPath` to `location` leads to on `origin`. A redirect to another
 * host is refused, never followed, so credentials never leave for another host.
 */
export function sameOriginPath(origin: string, fromPath: string, location: string, req: ExchangeDescription, status: number): string {
  const target = new URL(location, origin + fromPath);
  if (target.origin !== origin) {
    throw new MindsDBError(
      `the server redirected ${req.method} ${req.path} to another host (${target.origin}); not followed, so no credentials are sent there`,
      { kind: 'http', status, method: req.method, path: req.path });
  }
  return target.pathname + target.search;
}
