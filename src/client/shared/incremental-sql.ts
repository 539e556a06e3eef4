import { inputError } from './errors';
import { describeType } from './values';
import { ident, sqlSubquery } from './sql-text';

/**
 * "New rows since the last run": a user's SELECT read from a position on, in the order of its
 * watermark column (a timestamp or a growing number) and then its key column, which breaks ties
 * between rows that share a watermark. The user's query is kept as written, inside parentheses
 * (`sqlSubquery`); the package adds only the filter, the order and two bound parameters:
 *
 *   SELECT * FROM (
 *   <the user's SELECT>
 *   ) AS incremental_rows WHERE `wm` IS NOT NULL AND `key` IS NOT NULL
 *     AND (`wm` > :incremental_watermark OR (`wm` = :incremental_watermark AND `key` > :incremental_key))
 *   ORDER BY `wm`, `key`
 *
 * Both pinned MindsDB versions run this shape, and hand it whole to a PostgreSQL data source
 * (docs/real-mindsdb.md, "Incremental queries"). The position's values are bound by the server,
 * never written into the text, so a timestamp keeps its microseconds and a text key its quotes.
 */

/** A watermark or key as it came in a row: text (timestamps come as text) or a number. */
export type PositionValue = string | number;

/** After the row (watermark, key); without a key, after every row whose watermark is `watermark`. */
export interface Position {
  watermark: PositionValue;
  key?: PositionValue;
}

export interface IncrementalColumns {
  /** The column whose value only grows for new rows (an insert time, a serial id). */
  watermark: string;
  /** The column that orders rows sharing a watermark (a unique id). */
  key: string;
}

/** The parameters the package binds; a msg.params of the same name is refused. */
export const POSITION_PARAMS = { watermark: 'incremental_watermark', key: 'incremental_key' } as const;

/**
 * The statement that reads `select`'s rows after `position` (from the start when undefined) in
 * (watermark, key) order, with its parameters: the user's own `params` and the position's.
 * Rows whose watermark or key is NULL are never read: they have no place in that order.
 */
export function incrementalQuery(
  select: string,
  columns: IncrementalColumns,
  position: Position | undefined,
  params?: Record<string, unknown>,
): { query: string; params?: Record<string, unknown> } {
  for (const name of Object.values(POSITION_PARAMS)) {
    if (params && Object.hasOwn(params, name))
      throw inputError(`msg.params cannot hold "${name}" in incremental mode: the node binds that parameter itself`);
  }
  const wm = ident(columns.watermark, 'the watermark column');
  const key = ident(columns.key, 'the key column');
  if (columns.watermark === columns.key)
    throw inputError(
      'the watermark and the key must be two different columns (the key orders the rows that share a watermark)',
    );
  const from = `SELECT * FROM ${sqlSubquery(select, 'the query')} AS incremental_rows`;
  let where = `${wm} IS NOT NULL AND ${key} IS NOT NULL`;
  let bound = params;
  if (position) {
    const w = `:${POSITION_PARAMS.watermark}`;
    const after =
      position.key === undefined
        ? `${wm} > ${w}`
        : `${wm} > ${w} OR (${wm} = ${w} AND ${key} > :${POSITION_PARAMS.key})`;
    where += ` AND (${after})`;
    bound = {
      ...params,
      [POSITION_PARAMS.watermark]: position.watermark,
      ...(position.key === undefined ? {} : { [POSITION_PARAMS.key]: position.key }),
    };
  }
  return { query: `${from} WHERE ${where} ORDER BY ${wm}, ${key}`, ...(bound ? { params: bound } : {}) };
}

/**
 * A watermark or key value as a position can keep it: text, or a number that JSON carries
 * exactly. Anything else (NULL, an object, an integer beyond 2^53, which JSON.parse has already
 * rounded) is refused with an error that names the column, rather than kept wrong.
 */
export function positionValue(value: unknown, what: string): PositionValue {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw inputError(
        `${what} ${value} is beyond 2^53, where a number in JSON is no longer exact: the position would be wrong: ` +
          `use a column whose values stay below 2^53`,
      );
    }
    return value;
  }
  throw inputError(`${what} must be text or a number to keep a position (got ${describeType(value)})`);
}
