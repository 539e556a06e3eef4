import { headOf, invalidAnswer, rowTooLarge, RowQueue, type AnswerHead, type AnswerParser } from './answer-parser';
import { RowSpool, type SpoolOptions } from './row-spool';

type State = 'start' | 'key' | 'colon' | 'value' | 'data' | 'item' | 'separator' | 'after' | 'done';

const QUOTE = 34,
  COMMA = 44,
  COLON = 58,
  OPEN_ARRAY = 91,
  CLOSE_ARRAY = 93,
  OPEN_OBJECT = 123,
  CLOSE_OBJECT = 125,
  BACKSLASH = 92;

/**
 * MindsDB's whole-body SQL answer (`{"type":…, "data":[[…],…], "column_names":[…], "context":{…}}`,
 * keys in any order), parsed as it arrives: the elements of the top-level `data` array come out
 * as rows, parsed in one JSON.parse per network chunk (a parse per row costs twice as much); the
 * other fields are small and parsed whole.
 *
 * MindsDB writes `data` before `column_names` (25.14.1 does: test/e2e/json-order.e2e.js), so the
 * rows cannot be labelled until the whole `data` array has gone by; until the column names are
 * known the rows' text is set aside unparsed in a RowSpool (in memory, then a temporary file),
 * and counts against `maxBytes` as a whole body would. The reader reads them back through
 * `spooledRows()` once the names are known. Rows that come after the names are parsed as they
 * arrive; only the text of one unfinished row is kept between chunks, and that is what `maxBytes` bounds.
 */
export class JsonAnswerParser implements AnswerParser {
  head: AnswerHead | undefined;
  readonly fields: Record<string, unknown> = {};
  private buf = '';
  private pos = 0;
  private state: State = 'start';
  private key = '';
  private unlabelledChars = 0;
  private readonly rows = new RowQueue();
  /** The rows' text that came before the column names (see the class comment). */
  spool: RowSpool | undefined;
  private readonly bad = (): never => {
    throw invalidAnswer(this.path, 'data is not an array of row arrays');
  };

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly spoolOptions?: SpoolOptions,
  ) {}

  /** A parser of the spooled rows' text, which the reader pushes as it reads the spool back. */
  spooledRows(): AnswerParser {
    const replay = new JsonAnswerParser(this.path, this.maxBytes);
    replay.push('{"column_names":[],"data":[');
    return replay;
  }

  get ready(): number {
    return this.rows.length;
  }

  take(max: number): unknown[][] {
    return this.rows.take(max);
  }

  push(text: string): void {
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text;
    this.pos = 0;
    this.run(false);
    if (this.buf.length - this.pos > this.maxBytes)
      throw rowTooLarge(this.path, this.maxBytes, this.state === 'item' ? 'one row' : 'one field');
  }

  end(): void {
    this.run(true);
    if (this.state !== 'done')
      throw invalidAnswer(
        this.path,
        this.buf.trim() === '' && this.state === 'start'
          ? 'an empty body'
          : 'the answer ended before its JSON was complete',
      );
    if (this.buf.slice(this.pos).trim() !== '') throw invalidAnswer(this.path, 'text after the JSON answer');
    if (!this.head) this.head = headOf(this.fields, this.path);
  }

  private run(final: boolean): void {
    const buf = this.buf;
    const n = buf.length;
    let pos = this.pos;
    for (;;) {
      while (pos < n && isSpace(buf.charCodeAt(pos))) pos++;
      if (pos >= n) break;
      const c = buf.charCodeAt(pos);
      if (this.state === 'start') {
        if (c !== OPEN_OBJECT) throw invalidAnswer(this.path, 'expected a JSON object');
        pos++;
        this.state = 'key';
      } else if (this.state === 'key') {
        if (c === CLOSE_OBJECT) {
          pos++;
          this.state = 'done';
          break;
        }
        if (c !== QUOTE) throw invalidAnswer(this.path, 'expected a field name');
        const end = stringEnd(buf, pos + 1);
        if (end < 0) break;
        this.key = JSON.parse(buf.slice(pos, end)) as string;
        pos = end;
        this.state = 'colon';
      } else if (this.state === 'colon') {
        if (c !== COLON) throw invalidAnswer(this.path, 'expected ":"');
        pos++;
        this.state = this.key === 'data' ? 'data' : 'value';
      } else if (this.state === 'data' && c === OPEN_ARRAY) {
        pos++;
        this.state = 'item';
      } else if (this.state === 'value' || this.state === 'data') {
        const end = valueEnd(buf, pos, final);
        if (end < 0) break;
        let v: unknown;
        try {
          v = JSON.parse(buf.slice(pos, end));
        } catch {
          throw invalidAnswer(this.path, 'a field that is not JSON');
        }
        if (this.key === 'data') {
          if (v !== null) this.bad();
        } else this.setField(this.key, v);
        pos = end;
        this.state = 'after';
      } else if (this.state === 'item' || this.state === 'separator') {
        pos = this.rowsFrom(buf, pos);
        if (this.state === 'item' || this.state === 'separator') break;
      } else if (this.state === 'after') {
        if (c === COMMA) {
          pos++;
          this.state = 'key';
        } else if (c === CLOSE_OBJECT) {
          pos++;
          this.state = 'done';
          break;
        } else throw invalidAnswer(this.path, 'expected "," or "}"');
      } else {
        break;
      }
    }
    this.pos = pos;
  }

  /** Parses every complete row from `pos` in one JSON.parse; returns where it stopped. */
  private rowsFrom(buf: string, pos: number): number {
    const n = buf.length;
    let first = -1;
    let last = -1;
    for (;;) {
      while (pos < n && isSpace(buf.charCodeAt(pos))) pos++;
      if (pos >= n) break;
      const c = buf.charCodeAt(pos);
      if (this.state === 'separator') {
        if (c === COMMA) {
          pos++;
          this.state = 'item';
          continue;
        }
        if (c === CLOSE_ARRAY) {
          pos++;
          this.state = 'after';
          break;
        }
        throw invalidAnswer(this.path, 'expected "," or "]" between rows');
      }
      if (c === CLOSE_ARRAY && first < 0 && last < 0) {
        pos++;
        this.state = 'after';
        break;
      } // [] or a trailing ] after a chunk boundary
      if (c !== OPEN_ARRAY) this.bad();
      const end = valueEnd(buf, pos, false);
      if (end < 0) break;
      if (first < 0) first = pos;
      last = end;
      pos = end;
      this.state = 'separator';
    }
    if (first >= 0 && !this.head) {
      this.unlabelledChars += last - first;
      if (this.unlabelledChars > this.maxBytes)
        throw rowTooLarge(this.path, this.maxBytes, 'the rows before the column names');
      this.spool ??= new RowSpool(this.spoolOptions);
      this.spool.append(buf.slice(first, last));
    } else if (first >= 0) {
      let rows: unknown[];
      try {
        rows = JSON.parse(`[${buf.slice(first, last)}]`) as unknown[];
      } catch {
        throw invalidAnswer(this.path, 'a row that is not JSON');
      }
      this.rows.pushAll(rows, this.bad);
    }
    return pos;
  }

  private setField(key: string, value: unknown): void {
    this.fields[key] = value;
    if (!this.head && key === 'column_names') this.head = headOf(this.fields, this.path);
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Index after the closing quote of a string whose body starts at `i`, or -1 if it is not complete yet. */
function stringEnd(buf: string, i: number): number {
  for (;;) {
    const q = buf.indexOf('"', i);
    if (q < 0) return -1;
    let slashes = 0;
    for (let j = q - 1; buf.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** Index after the JSON value starting at `pos`, or -1 if it is not complete yet. */
function valueEnd(buf: string, pos: number, final: boolean): number {
  const n = buf.length;
  const c = buf.charCodeAt(pos);
  if (c === QUOTE) return stringEnd(buf, pos + 1);
  if (c !== OPEN_ARRAY && c !== OPEN_OBJECT) {
    // A number, true, false or null ends at a delimiter; at the end of the text only when it is all there.
    let i = pos;
    while (i < n) {
      const d = buf.charCodeAt(i);
      if (d === COMMA || d === CLOSE_ARRAY || d === CLOSE_OBJECT || isSpace(d)) return i;
      i++;
    }
    return final ? n : -1;
  }
  let depth = 0;
  let i = pos;
  while (i < n) {
    const d = buf.charCodeAt(i);
    if (d === QUOTE) {
      i = stringEnd(buf, i + 1);
      if (i < 0) return -1;
      continue;
    }
    if (d === OPEN_ARRAY || d === OPEN_OBJECT) depth++;
    else if (d === CLOSE_ARRAY || d === CLOSE_OBJECT) {
      if (--depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}
