import { plainJson, describeType, inputError, isPlainObject, MindsDBError, type Redactor } from '../shared';
import { versionAtLeast } from './versions';

export interface SqlRequest {
  query: string;
  /** Values for `:name` placeholders, bound by the server (MindsDB ≥ 25.12). */
  params?: Record<string, unknown>;
  /** Session context, e.g. { db: 'mindsdb' }. */
  context?: Record<string, unknown>;
  /**
   * Send the statement unparsed to the data source `context.db` (`context.native_query`): the
   * source's own SQL dialect. Needs a database, takes no bound parameters, and needs a server
   * that runs it (see nativeQueryRefusal).
   */
  native?: boolean;
}

export interface SqlAnswer {
  type: 'table' | 'ok';
  column_names: string[];
  data: unknown[][];
  context?: Record<string, unknown>;
  affected_rows?: number | null;
}

/** The body of POST /sql/query for a request; an empty query is an input error. */
export function sqlBody(req: SqlRequest): Record<string, unknown> {
  if (typeof req.query !== 'string' || req.query.trim() === '')
    throw inputError('the SQL query must be a non-empty string');
  const body: Record<string, unknown> = { query: req.query };
  if (req.context) body.context = req.context;
  // Bound values follow the one rule for a value that is not plain JSON (../shared/json-value.ts).
  if (req.params !== undefined) body.params = plainJson(req.params, 'the SQL parameters');
  if (req.native) {
    const db = req.context?.db;
    // MindsDB answers 400 "native_query requires 'db' in context"; said here in the node's terms.
    if (typeof db !== 'string' || db === '')
      throw inputError(
        'a native query needs a database: the data source that runs the statement (set Database, or msg.database)',
      );
    // The data source gets the text as it is: MindsDB binds no parameters into a native query.
    if (req.params !== undefined)
      throw inputError(
        'a native query takes no msg.params: the statement goes to the data source unparsed, so MindsDB binds ' +
          'nothing into it',
      );
    body.context = { ...req.context, native_query: true };
  }
  return body;
}

/**
 * Why a server of this version cannot run a native query, or undefined when it can. From MindsDB's
 * source (mindsdb/api/http/namespaces/sql.py at each release tag): `context.native_query` came
 * with v26.0.1 (before it the flag is ignored and MindsDB parses the statement itself, so it is
 * never sent there); v26.1.0 reads it but its after-query hook asks the data source's new
 * response objects for `error_code`, so every native query that succeeds answers HTTP 500
 * ("'TableResponse' object has no attribute 'error_code'", seen on 26.1.0); v26.2.0 fixed that.
 */
export function nativeQueryRefusal(version: string): string | undefined {
  if (!/^\d+\.\d+\.\d+/.test(version))
    return (
      `MindsDB ${version}: cannot tell from this version whether the server runs native queries (they need ` +
      `26.0.1, or 26.2.0 and later)`
    );
  if (!versionAtLeast(version, '26.0.1')) {
    return (
      `MindsDB ${version} has no native queries: its SQL API takes context.native_query from 26.0.1 on, and ` +
      `would parse the statement itself`
    );
  }
  if (versionAtLeast(version, '26.1.0') && !versionAtLeast(version, '26.2.0')) {
    return (
      `MindsDB ${version} cannot run native queries: it answers HTTP 500 to every one that succeeds (fixed in ` +
      `26.2.0; 26.0.1 runs them too)`
    );
  }
  return undefined;
}

/** Validates a /sql/query answer and turns `type: "error"` into an exception. */
export function checkSqlAnswer(answer: unknown, redactor: Redactor, path: string): SqlAnswer {
  if (!isPlainObject(answer)) throw invalid('POST', path, 'an SQL answer object', answer);
  const a = answer;
  if (a.type === 'error') {
    const serverMessage = redactor.text(typeof a.error_message === 'string' ? a.error_message : 'unknown SQL error');
    throw new MindsDBError(`MindsDB SQL error: ${serverMessage}`, {
      kind: 'sql',
      status: 200,
      code: a.error_code as number | undefined,
      serverMessage,
      method: 'POST',
      path,
    });
  }
  if (a.type === 'ok') {
    return {
      type: 'ok',
      column_names: [],
      data: [],
      context: a.context as Record<string, unknown> | undefined,
      affected_rows: (a.affected_rows as number | null | undefined) ?? null,
    };
  }
  if (a.type === 'table' || (a.type === undefined && Array.isArray(a.column_names))) {
    if (!Array.isArray(a.column_names) || (a.data !== undefined && !Array.isArray(a.data))) {
      throw invalid('POST', path, 'column_names and data arrays', answer);
    }
    return {
      type: 'table',
      column_names: allStrings(a.column_names) ? (a.column_names as string[]) : a.column_names.map(String),
      data: (a.data ?? []) as unknown[][],
      context: a.context as Record<string, unknown> | undefined,
    };
  }
  throw invalid('POST', path, 'an answer of type table, ok or error', answer);
}

function allStrings(xs: unknown[]): boolean {
  for (let i = 0; i < xs.length; i++) if (typeof xs[i] !== 'string') return false;
  return true;
}

/** `response_format: "jsonlines"` came with MindsDB 26.1; older servers ignore or refuse it. */
export function supportsJsonLines(version: string | undefined): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const major = Number(m[1]);
  return major > 26 || (major === 26 && Number(m[2]) >= 1);
}

export function invalid(method: string, path: string, expected: string, got?: unknown): MindsDBError {
  const what = got === undefined ? '' : ` (got ${describeType(got)})`;
  return new MindsDBError(`unexpected answer from MindsDB to ${method} ${path}: expected ${expected}${what}`, {
    kind: 'invalid-response',
    method,
    path,
  });
}
