import type { Row } from '../shared';

/**
 * Turns MindsDB's table answer (column_names + rows as arrays) into row objects, for rows
 * [start, end). A column literally named "__proto__" is defined as an own property, so a hostile
 * or odd column name cannot change a row's prototype.
 */
export function rowsToObjects(columns: readonly string[], data: readonly unknown[][], start = 0, end = data.length): Row[] {
  const n = columns.length;
  const out: Row[] = new Array(Math.max(0, end - start));
  const unsafe = columns.includes('__proto__');
  for (let i = start; i < end; i++) {
    const values = data[i];
    const row: Row = {};
    if (!unsafe) {
      for (let j = 0; j < n; j++) row[columns[j]] = values[j];
    } else {
      for (let j = 0; j < n; j++) Object.defineProperty(row, columns[j], { value: values[j], enumerable: true, writable: true, configurable: true });
    }
    out[i - start] = row;
  }
  return out;
}
