import type { Row } from '../shared';

type MakeRow = (values: readonly unknown[]) => Row;

/** Column lists seen lately and their row makers; cleared when full (a flow queries few shapes). */
const makers = new Map<string, MakeRow | null>();
const MAX_MAKERS = 64;
/** More columns than this are filled in a loop: a maker's code grows with the columns. */
const MAX_MAKER_COLUMNS = 512;
let lastColumns: readonly string[] = [];
let lastMaker: MakeRow | null = null;

/**
 * Turns MindsDB's table answer (column_names + rows as arrays) into row objects, for rows
 * [start, end). A column literally named "__proto__" is defined as an own property, so a hostile
 * or odd column name cannot change a row's prototype.
 *
 * For a column list it has seen, it builds each row with one object literal made once for that
 * list (`{"a": v[0], "b": v[1]}`): V8 then allocates each row at its final shape instead of
 * growing it a property at a time, 0.2 instead of 1.2 µs for 10 rows of 4 columns (bench/README.md).
 * The rows are plain objects either way. Where code cannot be generated (Node started with
 * --disallow-code-generation-from-strings), the loop does it.
 */
export function rowsToObjects(
  columns: readonly string[],
  data: readonly unknown[][],
  start = 0,
  end = data.length,
): Row[] {
  const out: Row[] = new Array(Math.max(0, end - start));
  const make = makerFor(columns);
  if (make) {
    for (let i = start; i < end; i++) out[i - start] = make(data[i]);
    return out;
  }
  const n = columns.length;
  const unsafe = columns.includes('__proto__');
  for (let i = start; i < end; i++) {
    const values = data[i];
    const row: Row = {};
    if (!unsafe) {
      for (let j = 0; j < n; j++) row[columns[j]] = values[j];
    } else {
      for (let j = 0; j < n; j++)
        Object.defineProperty(row, columns[j], {
          value: values[j],
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    out[i - start] = row;
  }
  return out;
}

function makerFor(columns: readonly string[]): MakeRow | null {
  if (sameColumns(columns, lastColumns)) return lastMaker;
  const key = columns.join('\u0000');
  let make = makers.get(key);
  if (make === undefined) {
    make = compile(columns);
    if (makers.size >= MAX_MAKERS) makers.clear();
    makers.set(key, make);
  }
  lastColumns = columns.slice();
  lastMaker = make;
  return make;
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The maker of one column list, or null where the loop must do it: a "__proto__" column (an
 * object literal would set the prototype), very wide rows, or no code generation. Each name
 * goes into the code as a JSON string literal, so a column name is only ever a property name.
 */
function compile(columns: readonly string[]): MakeRow | null {
  if (columns.length === 0 || columns.length > MAX_MAKER_COLUMNS || columns.includes('__proto__')) return null;
  if (columns.some((c) => typeof c !== 'string')) return null;
  const fields = columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ');
  try {
    return new Function('v', `return { ${fields} };`) as MakeRow;
  } catch {
    return null;
  }
}
