import { describeType, ident, inputError, isPlainObject, isRawJson, plainJson, type RawJson } from '../shared';

/**
 * The rows of an INSERT: msg.payload checked row by row (column names MindsDB's INSERT can take,
 * values by the one rule for what is not plain JSON), and one statement for them with every value
 * bound (`:p1` …), never written into the SQL text. Pure: no request.
 */

/** A value as it is bound: text, a number (a bigint beyond 2^53 as its exact digits), a boolean or null. */
export type InsertValue = string | number | boolean | null | RawJson;

/** One row as it will be bound: column → a value MindsDB binds as it is. */
export type InsertRow = Record<string, InsertValue>;

/** The first MindsDB that binds `:name` parameters (earlier ones would store the text "p1"). */
const PARAMS_SINCE = [25, 12] as const;

/**
 * Words MindsDB's parser (mindsdb_sql_parser 0.13.8) does not take as a column name in an INSERT's
 * column list. test/unit/table-node.test.js checks this list against the real parser both ways.
 */
const RESERVED = new Set(
  [
    'alter and as asc between case character collate convert cross delete desc describe distinct drop',
    'else end except explain false for from full having in inner insert intersect into is join left like',
    'limit not null on or outer over persist_only read right select set show then true union update use',
    'using values when where window with write',
  ]
    .join(' ')
    .split(' '),
);

/**
 * A column name as it can be written in an INSERT's column list: plain, unquoted. MindsDB
 * 25.14.1 and 26.1.0 keep the backticks of a quoted column name there (`` `id` `` reaches
 * PostgreSQL as the column "`id`", which does not exist), so a name that needs quoting cannot be
 * written at all and is refused before anything is sent. The case does not matter to PostgreSQL:
 * MindsDB matches each column to the table's own spelling.
 */
export function insertColumn(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw inputError(
      `the column name ${JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)} cannot be written in ` +
        `MindsDB's INSERT: only letters, digits and _ (not first a digit) work there, because MindsDB keeps the ` +
        `quotes of a quoted column name (rename the key)`,
    );
  }
  if (RESERVED.has(name.toLowerCase())) {
    throw inputError(
      `the column name "${name}" is an SQL keyword MindsDB's INSERT cannot take as a column name (rename the key)`,
    );
  }
  return name;
}

/**
 * One value of msg.payload as it is bound, by the one rule for values that are not plain JSON
 * (../shared/json-value.ts: a Date as its ISO text, a bigint as its exact digits, binary data, Maps,
 * class instances, NaN refused …); then an object or array as its JSON text (MindsDB would store
 * Python's repr of it, `{'a': 1}`, and refuses an array: measured), and text without NUL, which
 * PostgreSQL and most databases cannot store.
 */
export function insertValue(v: unknown, where: string): InsertValue {
  const plain = plainJson(v, where);
  if (plain === null || plain === undefined) return null;
  if (typeof plain === 'string') {
    if (plain.includes('\u0000'))
      throw inputError(`${where} contains NUL, which PostgreSQL and most databases cannot store in text`);
    return plain;
  }
  if (typeof plain === 'number' || typeof plain === 'boolean' || isRawJson(plain)) return plain;
  const text = JSON.stringify(plain);
  if (text.includes('\\u0000'))
    throw inputError(`${where} contains NUL, which PostgreSQL and most databases cannot store in text`);
  return text;
}

/**
 * msg.payload as rows to insert: an object is one row, an array of objects is many. Column names
 * and values are checked here, per message, so a bad one fails only its own message, before it
 * joins a batch.
 */
export function insertRows(payload: unknown): InsertRow[] {
  const list = isPlainObject(payload) ? [payload] : Array.isArray(payload) ? payload : undefined;
  if (!list)
    throw inputError(
      `msg.payload must be an object (one row) or an array of objects (many rows) to insert, not ` +
        `${describeType(payload)}`,
    );
  if (list.length === 0) throw inputError('msg.payload is an empty array: there are no rows to insert');
  return list.map((row: unknown, i) => {
    const at = Array.isArray(payload) ? `msg.payload[${i}]` : 'msg.payload';
    if (!isPlainObject(row)) throw inputError(`${at} must be an object of column values, not ${describeType(row)}`);
    const keys = Object.keys(row);
    if (keys.length === 0) throw inputError(`${at} has no columns`);
    const out: InsertRow = {};
    for (const k of keys) out[insertColumn(k)] = insertValue(row[k], `${at}.${k}`);
    return out;
  });
}

/**
 * One INSERT for rows (of one message or of a batch): the columns are the union of the rows'
 * keys in first-seen order, a column a row lacks is bound as NULL (so a column's DEFAULT applies
 * only when no row of the statement names it). Every value is a bound parameter (`:p1` …): no
 * value is ever written into the SQL text. Two keys differing only in case are one column to
 * MindsDB (it matches columns to the table case-insensitively) and are refused.
 */
export function insertStatement(
  database: string,
  table: string,
  rows: readonly InsertRow[],
): { query: string; params: Record<string, unknown>; columns: string[] } {
  const columns: string[] = [];
  const seen = new Map<string, string>();
  for (const row of rows) {
    for (const k of Object.keys(row)) {
      const folded = k.toLowerCase();
      const first = seen.get(folded);
      if (first === undefined) {
        seen.set(folded, k);
        columns.push(k);
      } else if (first !== k) {
        throw inputError(`the columns "${first}" and "${k}" differ only in case: MindsDB takes them for one column`);
      }
    }
  }
  const params: Record<string, unknown> = {};
  let n = 0;
  const tuples = rows.map(
    (row) =>
      `(${columns
        .map((c) => {
          params[`p${++n}`] = row[c] ?? null;
          return `:p${n}`;
        })
        .join(', ')})`,
  );
  return {
    query:
      `INSERT INTO ${ident(database, 'the database')}.${ident(table, 'the table')} (${columns.join(', ')}) ` +
      `VALUES ${tuples.join(', ')}`,
    params,
    columns,
  };
}

/** Whether a MindsDB version binds `:name` parameters (25.12 and later; an unknown version is let through). */
export function bindsParameters(version: string | undefined): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return true;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > PARAMS_SINCE[0] || (major === PARAMS_SINCE[0] && minor >= PARAMS_SINCE[1]);
}
