import { versionAtLeast, type RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { isPlainObject, MindsDBError } from '../shared';

/**
 * What a server can do with its data sources' own APIs: GET /integrations/capabilities, new in
 * MindsDB 26.2.0 (mindsdb/api/http/namespaces/integrations.py; no such route in 26.1.0). It lists,
 * per handler engine that implements the passthrough protocol, `{auth_modes, operations}` under
 * `handlers` (and the engines of auth mode "bearer" again in the older flat `bearer_passthrough`).
 */
export const CAPABILITIES_SINCE = '26.2.0';
const PATH = '/integrations/capabilities';

export interface PassthroughEngine {
  engine: string;
  authModes: string[];
  operations: string[];
}

/**
 * The engines the server can pass REST requests through to, sorted by name. A server before
 * 26.2.0 gets no request: the error names its version.
 */
export async function integrationCapabilities(
  client: MindsDBClient,
  opts?: RequestOptions,
): Promise<PassthroughEngine[]> {
  const version = await client.serverVersion(opts);
  if (!versionAtLeast(version, CAPABILITIES_SINCE)) {
    throw new MindsDBError(
      `MindsDB ${version} has no integration capabilities (GET ${PATH} came with MindsDB ${CAPABILITIES_SINCE})`,
      { kind: 'unsupported', method: 'GET', path: PATH },
    );
  }
  const body = await client.request<unknown>('GET', PATH, undefined, opts);
  const handlers = isPlainObject(body) ? body.handlers : undefined;
  if (!isPlainObject(handlers)) {
    throw new MindsDBError(`unexpected answer from MindsDB to GET ${PATH}: expected {"handlers": {…}}`, {
      kind: 'invalid-response',
      method: 'GET',
      path: PATH,
    });
  }
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return Object.entries(handlers)
    .map(([engine, h]) => ({
      engine,
      authModes: strings(isPlainObject(h) ? h.auth_modes : undefined),
      operations: strings(isPlainObject(h) ? h.operations : undefined),
    }))
    .sort((a, b) => (a.engine < b.engine ? -1 : a.engine > b.engine ? 1 : 0));
}
