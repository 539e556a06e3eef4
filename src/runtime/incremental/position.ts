import {
  inputError,
  isPlainObject,
  matchName,
  positionValue,
  type IncrementalColumns,
  type Position,
} from '../../client';
import type { StoredPosition } from '../../store';

/** Status texts keep a position short: the ring has room for a few dozen characters. */
const SHOWN = 40;

/** A position as the status shows it: "2024-01-01 10:00:02 / 2", cut to fit. */
export function shown(p: Position): string {
  const text = p.key === undefined ? String(p.watermark) : `${String(p.watermark)} / ${String(p.key)}`;
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}

/** A position as the store keeps it (JSON values), with the columns it was kept for and the rows sent so far. */
export function storedOf(columns: IncrementalColumns, position: Position, rowsSent: number): StoredPosition {
  return {
    watermarkColumn: columns.watermark,
    keyColumn: columns.key,
    watermark: JSON.stringify(position.watermark),
    tieKey: position.key === undefined ? null : JSON.stringify(position.key),
    rowsSent,
  };
}

/** A kept position read back. */
export function positionOf(stored: StoredPosition): Position {
  return {
    watermark: JSON.parse(stored.watermark) as Position['watermark'],
    ...(stored.tieKey === null ? {} : { key: JSON.parse(stored.tieKey) as Position['watermark'] }),
  };
}

/** Whether a kept position was kept for these columns (one for other columns says nothing about them). */
export function keptFor(stored: StoredPosition, columns: IncrementalColumns): boolean {
  return stored.watermarkColumn === columns.watermark && stored.keyColumn === columns.key;
}

/** The position after the last of `rows`, checked before anything is kept or sent. */
export function positionAfter(
  names: IncrementalColumns,
  columns: readonly string[],
  rows: readonly unknown[][],
): Position {
  const last = rows[rows.length - 1];
  return {
    watermark: positionValue(
      last[column(columns, names.watermark, 'watermark')],
      `the watermark ("${names.watermark}")`,
    ),
    key: positionValue(last[column(columns, names.key, 'key')], `the key ("${names.key}")`),
  };
}

/**
 * Where the column is in the answer's rows: its exact name, else the one name that differs only in case (matchName,
 * the names rule).
 */
function column(columns: readonly string[], name: string, what: string): number {
  const match = matchName(name, columns);
  if (match.found === 'exact' || match.found === 'case') return columns.indexOf(match.name);
  throw inputError(
    `the query's rows have no ${what} column "${name}" (they have ` +
      `${columns.map((c) => `"${c}"`).join(', ') || 'no columns'}): select it, or set the ${what} column the node ` +
      `names`,
  );
}

/** What msg.reset asks for: undefined is the start. */
export function resetPosition(value: unknown): Position | undefined {
  if (value === true) return undefined;
  const refused = (): Error =>
    inputError(
      'msg.reset must be true (back to the first row), a watermark (text or a number: the rows after it), or ' +
        '{watermark, key} (the rows after that row)',
    );
  if (typeof value === 'string' || typeof value === 'number') {
    if (value === '') throw refused();
    return { watermark: positionValue(value, 'msg.reset') };
  }
  if (!isPlainObject(value) || value.watermark === undefined || value.watermark === null || value.watermark === '')
    throw refused();
  return {
    watermark: positionValue(value.watermark, 'msg.reset.watermark'),
    ...(value.key === undefined || value.key === null ? {} : { key: positionValue(value.key, 'msg.reset.key') }),
  };
}
