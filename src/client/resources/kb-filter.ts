import { describeType, ident, inputError, isPlainObject, matchName } from '../shared';

/**
 * A knowledge-base search's metadata filter, as a flow gives it: an object of column → condition,
 *
 *   {"product": "boiler", "year": {">=": 2024, "<": 2026}, "area": ["hall A", "hall B"]}
 *
 * a text, number or boolean is equality, an array is IN, an object holds operators: = != < <= > >=
 * in, "not in", like, "not like", between ([low, high]). Every condition is ANDed with the search.
 * The values are bound by the server (`:f1` …), never written into the SQL; what MindsDB 25.14.1
 * and 26.1.0 would answer wrongly without an error is refused or rewritten here
 * (docs/real-mindsdb.md, "Knowledge-base search"):
 * - a quoted value is compared as text (`year > '999'` finds nothing): a range's numeric text
 *   ("2024") is sent as the number; numbers stay numbers;
 * - a boolean is compared as a number and fails: it is sent as the text MindsDB stores ('true');
 * - `IN` with one value finds nothing (26.1.0) or fails (25.14.1): it is sent as `=`;
 * - null (`IS NULL`, `= NULL`) fails or finds nothing: refused; so is `<>` (written as `!=`).
 */

export type KbValue = string | number;
export type KbOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'IN' | 'NOT IN' | 'LIKE' | 'NOT LIKE';

export interface KbCondition {
  column: string;
  op: KbOperator;
  value: KbValue | KbValue[];
}

const OPERATORS: Record<string, KbOperator | 'BETWEEN'> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  in: 'IN',
  'not in': 'NOT IN',
  like: 'LIKE',
  'not like': 'NOT LIKE',
  between: 'BETWEEN',
};
const RANGES = new Set<string>(['<', '<=', '>', '>=', 'BETWEEN']);
const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;

/** The answer's own columns a filter may name besides the metadata columns (the row's id, a chunk's id). */
export const ROW_COLUMNS = ['id', 'chunk_id'];

/** The conditions of `filter` (undefined, null or {} → none); `where` names it in errors ("msg.filter"). */
export function kbConditions(filter: unknown, where: string): KbCondition[] {
  if (filter === undefined || filter === null || filter === '') return [];
  if (!isPlainObject(filter))
    throw inputError(`${where} must be an object of metadata column → condition, not ${describeType(filter)}`);
  const out: KbCondition[] = [];
  for (const [column, spec] of Object.entries(filter)) {
    const at = `${where}.${column}`;
    ident(column, `the metadata column ${JSON.stringify(column)} of ${where}`);
    if (Array.isArray(spec)) out.push(listCondition(column, 'IN', spec, at));
    else if (isPlainObject(spec)) {
      const ops = Object.entries(spec);
      if (ops.length === 0) throw inputError(`${at} has no condition: give a value, a list or {operator: value}`);
      for (const [name, value] of ops) out.push(...operatorConditions(column, name, value, `${at}["${name}"]`));
    } else out.push({ column, op: '=', value: scalar(spec, at, '=') });
  }
  return out;
}

function operatorConditions(column: string, name: string, value: unknown, at: string): KbCondition[] {
  const op = OPERATORS[name.trim().toLowerCase().replace(/\s+/g, ' ')];
  if (!op)
    throw inputError(
      `${at}: "${name}" is not an operator of a knowledge-base filter (${Object.keys(OPERATORS).join(', ')})`,
    );
  if (op === 'IN' || op === 'NOT IN') {
    if (!Array.isArray(value)) throw inputError(`${at} must be a list of values`);
    return [listCondition(column, op, value, at)];
  }
  if (op === 'BETWEEN') {
    if (!Array.isArray(value) || value.length !== 2)
      throw inputError(`${at} must be a list of two values: [low, high]`);
    return [
      { column, op: '>=', value: scalar(value[0], `${at}[0]`, '>=') },
      { column, op: '<=', value: scalar(value[1], `${at}[1]`, '<=') },
    ];
  }
  return [{ column, op, value: scalar(value, at, op) }];
}

/** IN / NOT IN: one value is = / != (MindsDB's IN of one value is wrong), all values text or all numbers. */
function listCondition(column: string, op: 'IN' | 'NOT IN', list: unknown[], at: string): KbCondition {
  if (list.length === 0) throw inputError(`${at} is an empty list: it would match nothing`);
  const values = list.map((v, i) => scalar(v, `${at}[${i}]`, op));
  if (new Set(values.map((v) => typeof v)).size > 1)
    throw inputError(
      `${at} mixes numbers and texts: MindsDB compares a whole list as numbers or as text, so give one kind`,
    );
  if (values.length === 1) return { column, op: op === 'IN' ? '=' : '!=', value: values[0] };
  return { column, op, value: values };
}

function scalar(v: unknown, at: string, op: string): KbValue {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw inputError(`${at} must be a finite number, not ${v}`);
    return v;
  }
  if (typeof v === 'boolean') {
    if (RANGES.has(op) || op.includes('LIKE')) throw inputError(`${at}: a boolean cannot be compared with ${op}`);
    // MindsDB compares a boolean as a number (and fails); stored JSON true reads back as the text 'true'.
    return v ? 'true' : 'false';
  }
  if (typeof v === 'string') {
    // A quoted value is compared as text: '999' > '2024'. A range means numbers.
    if (RANGES.has(op) && NUMERIC_TEXT.test(v)) return Number(v);
    if (op.includes('LIKE') || v !== '') return v;
  }
  if (v === null || v === undefined)
    throw inputError(
      `${at} is ${v === null ? 'null' : 'missing'}: MindsDB's knowledge bases cannot filter on a missing value ` +
        '(IS NULL fails or finds nothing)',
    );
  if (typeof v === 'string') throw inputError(`${at} is an empty text`);
  throw inputError(`${at} must be a text or a number, not ${describeType(v)}`);
}

/**
 * Refuses a column the knowledge base does not have. `declared` are its metadata columns as
 * MindsDB stored them: a column in another case is an error that names the stored spelling
 * (MindsDB 25.14.1 answers such a filter with no rows and no error, 26.1.0 with "Column is not found").
 */
export function checkColumns(conditions: readonly KbCondition[], declared: readonly string[], kb: string): void {
  const known = [...declared, ...ROW_COLUMNS];
  for (const { column } of conditions) {
    const m = matchName(column, known);
    if (m.found === 'exact') continue;
    if (m.found === 'case')
      throw inputError(
        `knowledge base ${kb} has no metadata column "${column}": MindsDB stored it as "${m.name}", and a filter ` +
          `must name it so (MindsDB 25.x would find no rows without an error)`,
      );
    throw inputError(
      `knowledge base ${kb} has no metadata column "${column}" to filter on: ` +
        (declared.length ? `its metadata columns are ${declared.join(', ')}` : 'it has no metadata columns') +
        ` (besides ${ROW_COLUMNS.join(' and ')})`,
    );
  }
}

/** A condition compares text (MindsDB's duckdb_faiss store writes it without a CAST). */
export const comparesText = (c: KbCondition): boolean =>
  typeof (Array.isArray(c.value) ? c.value[0] : c.value) === 'string';

/**
 * The conditions as SQL, values bound into `params` (`:f1` …). Text conditions first: the
 * duckdb_faiss store writes `metadata ->> 'col' = 'x'` without brackets, which DuckDB 1.3 reads
 * wrongly after another condition ("Failed to cast value to numerical"); first, it is read right.
 */
export function kbWhere(conditions: readonly KbCondition[], params: Record<string, unknown>): string[] {
  const ordered = [...conditions.filter(comparesText), ...conditions.filter((c) => !comparesText(c))];
  let n = 0;
  const bind = (v: KbValue): string => {
    n++;
    params[`f${n}`] = v;
    return `:f${n}`;
  };
  return ordered.map((c) => {
    const value = Array.isArray(c.value) ? `(${c.value.map(bind).join(', ')})` : bind(c.value);
    return `${ident(c.column, 'a metadata column')} ${c.op} ${value}`;
  });
}
