import { describeType, inputError, isPlainObject, MindsDBError, type Redactor } from '../shared';

export interface SqlRequest {
  query: string;
  /** Values for `:name` placeholders, bound by the server (MindsDB ≥ 25.12). */
  params?: Record<string, unknown>;
  /** Session context, e.g. { db: 'mindsdb' }. */
  context?: Record<string, unknown>;
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
  if (typeof req.query !== 'string' || req.query.trim() === '') throw inputError('the SQL query must be a non-empty string');
  const body: Record<string, unknown> = { query: req.query };
  if (req.context) body.context = req.context;
  if (req.params !== undefined) body.params = req.params;
  return body;
}

/** Validates a /sql/query answer and turns `type: "error"` into an exception. */
export function checkSqlAnswer(answer: unknown, redactor: Redactor, path: string): SqlAnswer {
  if (!isPlainObject(answer)) throw invalid('POST', path, 'an SQL answer object', answer);
  const a = answer;
  if (a.type === 'error') {
    const serverMessage = redactor.text(typeof a.error_message === 'string' ? a.error_message : 'unknown SQL error');
    throw new MindsDBError(`MindsDB SQL error: ${serverMessage}`,
      { kind: 'sql', status: 200, code: a.error_code as number | undefined, serverMessage, method: 'POST', path });
  }
  if (a.type === 'ok') {
    return { type: 'ok', column_names: [], data: [], context: a.context as Record<string, unknown> | undefined, affected_rows: (a.affected_rows as number | null | undefined) ?? null };
  }
  if (a.type === 'table' || (a.type === undefined && Array.isArray(a.column_names))) {
    if (!Array.isArray(a.column_names) || (a.data !== undefined && !Array.isArray(a.data))) {
      throw invalid('POST', path, 'column_names and data arrays', answer);
    }
    return { type: 'table', column_names: allStrings(a.column_names) ? a.column_names as string[] : a.column_names.map(String), data: (a.data ?? []) as unknown[][], context: a.context as Record<string, unknown> | undefined };
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
  return new MindsDBError(`unexpected answer from MindsDB to ${method} ${path}: expected ${expected}${what}`,
    { kind: 'invalid-response', method, path });
}
