import { isPlainObject, type Row } from '../shared';

/**
 * A knowledge-base search answers each metadata column twice: as a column of its own and inside
 * the `metadata` object (an object for `SELECT *`). MindsDB 25.14.1 and 26.1.0 fill the separate
 * columns wrongly when a reranker reorders or drops rows (another row's values, or null: they are
 * joined by position after the reranking), and 25.14.1 answers a column declared with capitals
 * (`Product`) as a lower-cased column of nulls (`product`). The `metadata` object is right in
 * both cases (docs/real-mindsdb.md, "Knowledge-base search"), so every metadata column is taken
 * from it, under the name it has there.
 */

/** The answer's own columns; every other column is a metadata column. */
const OWN_COLUMNS = new Set(['id', 'distance', 'chunk_id', 'chunk_content', 'relevance', 'metadata']);

function metadataOf(row: Row): Record<string, unknown> | undefined {
  const m = row.metadata;
  if (isPlainObject(m)) return m;
  if (typeof m !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(m);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The key of `metadata` that `column` stands for: itself, or the one key that differs from it only in case. */
function keyFor(column: string, metadata: Record<string, unknown>): string | undefined {
  if (column in metadata) return column;
  const folded = column.toLowerCase();
  const keys = Object.keys(metadata).filter((k) => !k.startsWith('_') && k.toLowerCase() === folded);
  return keys.length === 1 ? keys[0] : undefined;
}

export function fromMetadataObject(rows: Row[], columns: string[]): { rows: Row[]; columns: string[] } {
  const at = columns.indexOf('metadata');
  if (at < 0) return { rows, columns };
  const objects = rows.map(metadataOf);
  // Each separate column's key in the metadata objects, from the first row that has it.
  const keys = new Map<string, string>();
  for (const c of columns.filter((c) => !OWN_COLUMNS.has(c))) {
    const key = objects.map((m) => m && keyFor(c, m)).find((k) => k !== undefined);
    if (key !== undefined) keys.set(c, key);
  }
  const named = columns.map((c) => keys.get(c) ?? c);
  // A metadata column the answer left out (25.14.1, declared with capitals) is added before `metadata`.
  const missing = [
    ...new Set(objects.flatMap((m) => (m ? Object.keys(m).filter((k) => !k.startsWith('_')) : []))),
  ].filter((k) => !named.includes(k) && !OWN_COLUMNS.has(k));
  const out = [...named.slice(0, at), ...missing, ...named.slice(at)];
  if (out.every((c) => OWN_COLUMNS.has(c))) return { rows, columns };
  const fixed = rows.map((row, i) => {
    const metadata = objects[i];
    if (!metadata) return row;
    const one: Row = {};
    // A row whose metadata lacks a column has no value for it (null), whatever its separate column says.
    for (const c of out) one[c] = OWN_COLUMNS.has(c) ? row[c] : (metadata[c] ?? null);
    return one;
  });
  return { rows: fixed, columns: out };
}
