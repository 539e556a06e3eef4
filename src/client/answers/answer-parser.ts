import { MindsDBError, sizeText } from '../shared';
import type { RowSpool } from './row-spool';

/** What is known of an SQL answer before its rows: enough to shape and label them. */
export interface AnswerHead {
  type: 'table' | 'ok' | 'error';
  /** Every field of the answer except the rows (column_names, context, error_message …). */
  fields: Record<string, unknown>;
}

/**
 * An incremental parser of one SQL answer body. Text goes in as it arrives; complete rows come out
 * in arrival order. `head` is set once the rows can be labelled (a table's column names are
 * known) or the answer has no rows (ok, error). Errors are MindsDBErrors of kind
 * 'invalid-response' (not the expected JSON) or 'too-large' (one row or line over the limit).
 */
export interface AnswerParser {
  push(text: string): void;
  /** The body ended: anything left over is an error (a truncated answer). */
  end(): void;
  readonly head: AnswerHead | undefined;
  /** Every field, once the whole answer was read (a table's context comes after its rows). */
  readonly fields: Record<string, unknown>;
  /** Takes up to `max` parsed rows; fewer when fewer are ready. */
  take(max: number): unknown[][];
  /** Parsed rows waiting to be taken. */
  readonly ready: number;
  /**
   * Rows set aside unparsed because they came before the column names (a JSON body); the reader
   * reads them, through `spooledRows()`, before any taken with `take`.
   */
  readonly spool?: RowSpool;
  spooledRows?(): AnswerParser;
}

/** A FIFO of parsed rows that hands them out in slices without shifting an array per row. */
export class RowQueue {
  private rows: unknown[][] = [];
  private head = 0;

  get length(): number {
    return this.rows.length - this.head;
  }

  pushAll(rows: unknown[], onBad: () => never): void {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (!Array.isArray(r)) onBad();
      this.rows.push(r);
    }
  }

  take(max: number): unknown[][] {
    const n = Math.min(max, this.length);
    const out = this.rows.slice(this.head, this.head + n);
    this.head += n;
    // Drop what was taken once it is most of the array, so memory follows what is still queued.
    if (this.head === this.rows.length) {
      this.rows = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.rows.length) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
    return out;
  }
}

export function invalidAnswer(path: string, what: string): MindsDBError {
  return new MindsDBError(`unexpected answer from MindsDB to POST ${path}: ${what}`, {
    kind: 'invalid-response',
    method: 'POST',
    path,
  });
}

export function rowTooLarge(path: string, maxBytes: number, what: string): MindsDBError {
  return new MindsDBError(`${what} of the answer to POST ${path} is larger than the limit of ${sizeText(maxBytes)}`, {
    kind: 'too-large',
    method: 'POST',
    path,
  });
}

export function headOf(fields: Record<string, unknown>, path: string): AnswerHead {
  const t = fields.type;
  if (t === 'ok' || t === 'error') return { type: t, fields };
  if (t === 'table' || (t === undefined && Array.isArray(fields.column_names))) {
    if (!Array.isArray(fields.column_names)) throw invalidAnswer(path, 'a table without column_names');
    return { type: 'table', fields };
  }
  throw invalidAnswer(path, 'expected an answer of type table, ok or error');
}
