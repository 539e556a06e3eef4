import { headOf, invalidAnswer, rowTooLarge, RowQueue, type AnswerHead, type AnswerParser } from './answer-parser';
import { MindsDBError, type Redactor } from '../shared';

/**
 * MindsDB ≥ 26.1's `response_format: "jsonlines"` SQL answer: a first line
 * `{"type":"table","column_names":[…]}` then lines that are arrays of row arrays; an ok or error
 * answer is one line holding the whole answer. Every line ends with "\n", so a last line without
 * one is a truncated answer. `maxLineBytes` bounds one line (the server sends a batch per line).
 */
export class JsonLinesParser implements AnswerParser {
  head: AnswerHead | undefined;
  fields: Record<string, unknown> = {};
  /** The pieces of a line that has not ended yet. */
  private pending: string[] = [];
  private pendingLength = 0;
  private readonly rows = new RowQueue();
  private readonly bad = (): never => {
    throw invalidAnswer(this.path, 'a jsonlines line that is not an array of row arrays');
  };

  constructor(
    private readonly path: string,
    private readonly maxLineBytes: number,
    private readonly redactor: Redactor,
  ) {}

  get ready(): number {
    return this.rows.length;
  }

  push(text: string): void {
    let nl = text.indexOf('\n');
    if (nl < 0) {
      // No line ends here: keep the piece without re-scanning what came before (a line can be a
      // whole result when the server sends it in one batch).
      this.pending.push(text);
      this.pendingLength += text.length;
      // Characters, not bytes: a UTF-8 line is at least as many bytes, so this never lets more through.
      if (this.pendingLength > this.maxLineBytes) throw rowTooLarge(this.path, this.maxLineBytes, 'one line');
      return;
    }
    let start = 0;
    if (this.pending.length) {
      this.pending.push(text.slice(0, nl));
      this.line(this.pending.join(''));
      this.pending = [];
      this.pendingLength = 0;
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    for (; nl >= 0; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
    }
    if (start < text.length) this.push(text.slice(start));
  }

  end(): void {
    if (this.pending.join('').trim() !== '') throw invalidAnswer(this.path, 'the answer ended in the middle of a line');
    if (!this.head) throw invalidAnswer(this.path, 'an empty answer');
  }

  take(max: number): unknown[][] {
    return this.rows.take(max);
  }

  private line(text: string): void {
    if (text.length > this.maxLineBytes) throw rowTooLarge(this.path, this.maxLineBytes, 'one line');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidAnswer(this.path, 'a jsonlines line that is not JSON');
    }
    if (Array.isArray(value)) {
      if (this.head?.type !== 'table') this.bad();
      this.rows.pushAll(value, this.bad);
      return;
    }
    if (typeof value !== 'object' || value === null) this.bad();
    const fields = value as Record<string, unknown>;
    if (this.head) {
      // An error after rows: the server failed while streaming the result.
      if (fields.type === 'error') throw sqlError(fields, this.redactor, this.path);
      throw invalidAnswer(this.path, 'a second header line');
    }
    this.fields = fields;
    this.head = headOf(fields, this.path);
  }
}

export function sqlError(fields: Record<string, unknown>, redactor: Redactor, path: string): MindsDBError {
  const serverMessage = redactor.text(
    typeof fields.error_message === 'string' ? fields.error_message : 'unknown SQL error',
  );
  const code =
    typeof fields.error_code === 'number' || typeof fields.error_code === 'string' ? fields.error_code : undefined;
  return new MindsDBError(`MindsDB SQL error: ${serverMessage}`, {
    kind: 'sql',
    status: 200,
    code,
    serverMessage,
    method: 'POST',
    path,
  });
}
