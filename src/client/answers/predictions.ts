import type { Row } from '../shared';

const EXPLAIN_SUFFIX = '_explain';

/**
 * Parses every `<target>_explain` JSON string of the prediction rows into an object, in place
 * (the rows come straight from JSON.parse and belong to the caller). With `keepRaw`, the original
 * string stays available as `<target>_explain_raw`. A string that is not JSON is left as it is.
 */
export function parseExplainColumns(rows: Row[], keepRaw: boolean): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]).filter((k) => k.endsWith(EXPLAIN_SUFFIX));
  if (keys.length === 0) return;
  for (const row of rows) {
    for (const key of keys) {
      const raw = row[key];
      if (typeof raw !== 'string') continue;
      try {
        row[key] = JSON.parse(raw);
        if (keepRaw) row[`${key}_raw`] = raw;
      } catch {
        /* not JSON: keep the string */
      }
    }
  }
}

/** The target column, when the rows show it (`<target>_explain` or `<target>_confidence`). */
export function targetFromRows(rows: Row[]): string | undefined {
  if (rows.length === 0) return undefined;
  for (const key of Object.keys(rows[0])) {
    for (const suffix of [EXPLAIN_SUFFIX, '_confidence']) {
      if (key.endsWith(suffix) && key.length > suffix.length) return key.slice(0, -suffix.length);
    }
  }
  return undefined;
}
