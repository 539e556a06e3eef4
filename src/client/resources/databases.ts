import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { inputError, MindsDBError, segment, refuseMaskedValues } from '../shared';
import { recordNotFound } from './gone';
import { withStoredName } from './names';

export interface DatabaseSpec {
  name: string;
  engine?: string;
  parameters?: Record<string, unknown>;
}

export interface CreatedDatabase {
  name: string;
  engine: string;
  type: string;
}

type Json = Record<string, unknown>;

/**
 * The databases (data sources) API. Collection paths end in "/" (the server answers 308
 * otherwise); a 200 body with `status: "connection_error"` (check_connection) is a failure.
 */
export class DatabasesApi {
  constructor(private readonly client: MindsDBClient) {}

  list(opts?: RequestOptions): Promise<Json[]> {
    return this.client.request<Json[]>('GET', '/databases/', undefined, opts);
  }

  get(name: string, opts?: RequestOptions): Promise<Json> {
    return this.client.request<Json>('GET', `/databases/${segment(name, 'database name')}`, undefined, opts);
  }

  async create(spec: DatabaseSpec, checkConnection: boolean, opts?: RequestOptions): Promise<CreatedDatabase> {
    refuseMaskedValues(spec.parameters, 'the database parameters');
    const body: Json = { database: { name: spec.name, engine: spec.engine, parameters: spec.parameters ?? {} } };
    if (checkConnection) body.check_connection = true;
    const answer = await this.client.request<Json>('POST', '/databases/', body, opts);
    rejectConnectionFailure(answer, 'POST', '/databases/', this.client);
    return {
      name: String(answer.name ?? spec.name),
      engine: String(answer.engine ?? spec.engine),
      type: String(answer.type ?? 'data'),
    };
  }

  /**
   * MindsDB's PUT is an upsert: a mistyped name would silently create a new data source. Unless
   * `createIfMissing`, the database must exist first (a GET; its 404 becomes a clear error).
   */
  async update(
    spec: DatabaseSpec,
    checkConnection: boolean,
    options?: RequestOptions & { createIfMissing?: boolean },
  ): Promise<Json> {
    const path = `/databases/${segment(spec.name, 'database name')}`;
    const opts = this.client.withDeadline(options);
    refuseMaskedValues(spec.parameters, 'the database parameters');
    if (!opts?.createIfMissing) refuseEngineChange(spec, await this.requireExisting(spec.name, path, opts));
    // 25.14.1's PUT creates a missing database without its connection check (201, saved even when
    // the data source refuses): with the check asked for, a missing one is created by POST, which
    // checks first and saves nothing when the connection fails (as 26.1.0's PUT does).
    else if (checkConnection && spec.engine && !(await this.exists(path, opts)))
      return { ...(await this.create(spec, true, opts)) };
    const database: Json = { parameters: spec.parameters ?? {} };
    if (spec.engine) database.engine = spec.engine;
    const body: Json = { database };
    if (checkConnection) body.check_connection = true;
    // Idempotent on MindsDB: the PUT merges the given parameters into the record (or creates it
    // with them), so sending it again leaves the same record; it may be repeated.
    const answer = await this.client.request<Json>('PUT', path, body, { ...opts, repeat: 'idempotent' });
    rejectConnectionFailure(answer, 'PUT', path, this.client);
    return answer;
  }

  /** Whether GET finds the database (any case); an answer other than 404 is the error it is. */
  private async exists(path: string, opts?: RequestOptions): Promise<boolean> {
    try {
      await this.client.request('GET', path, undefined, opts);
      return true;
    } catch (err) {
      if (err instanceof MindsDBError && err.kind === 'http' && err.status === 404) return false;
      throw err;
    }
  }

  private async requireExisting(name: string, path: string, opts?: RequestOptions): Promise<Json> {
    try {
      return await this.client.request<Json>('GET', path, undefined, opts);
    } catch (err) {
      if (err instanceof MindsDBError && err.kind === 'http' && err.status === 404) {
        throw new MindsDBError(
          `database "${name}" does not exist, nothing was changed: create it first, or turn on "update creates a ` +
            `missing database"`,
          { ...err, kind: 'http', status: 404, serverMessage: err.serverMessage, method: 'PUT', path },
        );
      }
      throw err;
    }
  }

  /**
   * MindsDB's GET and PUT find a database by any case, its DELETE only by the stored spelling
   * (25.14.1 and 26.1.0: 400 "Database does not exists"), so a miss is tried once more with it.
   * A repeated DELETE whose 404 follows an attempt that may have landed means it is gone.
   */
  delete(name: string, options?: RequestOptions): Promise<{ deleted: true; name: string }> {
    const opts = this.client.withDeadline(options);
    return withStoredName(
      this.client,
      { resource: 'database' },
      name,
      async (stored) => {
        await this.client.request('DELETE', `/databases/${segment(stored, 'database name')}`, undefined, {
          ...opts,
          gone: recordNotFound,
        });
        return { deleted: true as const, name: stored };
      },
      { request: opts },
    );
  }
}

/**
 * MindsDB's PUT (25.14.1 and 26.1.0) merges the parameters and keeps the data source's engine,
 * whatever engine it is sent, and answers 200: an update asking for another engine would seem done.
 */
function refuseEngineChange(spec: DatabaseSpec, existing: Json): void {
  const engine = typeof existing?.engine === 'string' ? existing.engine : undefined;
  if (spec.engine && engine && spec.engine.toLowerCase() !== engine.toLowerCase()) {
    throw inputError(
      `database "${spec.name}" uses the engine ${engine}, and MindsDB does not change a data source's engine on ` +
        `update (it keeps ${engine} and merges only the parameters): nothing was changed; delete the database and ` +
        `create it again with ${spec.engine}`,
    );
  }
}

function rejectConnectionFailure(answer: unknown, method: string, path: string, client: MindsDBClient): void {
  const status = (answer as { status?: unknown } | null)?.status;
  if (status !== 'connection_error' && status !== 'redirect_required') return;
  const detail = client.redactor.text(String((answer as { detail?: unknown }).detail ?? status));
  throw new MindsDBError(`MindsDB could not connect to the data source, nothing was saved: ${detail}`, {
    kind: 'http',
    status: 200,
    serverMessage: detail,
    method,
    path,
  });
}
