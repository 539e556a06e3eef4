import { StringDecoder } from 'node:string_decoder';
import type { AnswerParser } from './answer-parser';
import { MindsDBError, type Redactor } from '../shared';
import { sqlError } from './jsonlines-parser';

/** The streamed body as the reader needs it: chunks, and a way to stop it. */
export interface ChunkSource {
  next(): Promise<IteratorResult<Buffer>>;
  destroy(err?: Error): void;
}

/** The connection slot the stream holds (the exchange's policy: see client/exchange/exchanger.ts). */
export interface StreamHold {
  /** Gives the slot back while the reader waits on the flow; the socket stays open, unread. */
  park(): void;
  /** Takes a slot again before reading on; rejects when none comes free within `waitMs`. */
  unpark(waitMs: number): Promise<void>;
  /** Frees the slot (and the socket). */
  release(): void;
}

/**
 * An SQL answer read as it arrives. `open()` reads until the answer's kind (and a table's column
 * names) are known; `read(n)` then hands out rows in order. Between calls nothing is read, so the
 * socket stops (undici pauses a body nobody reads) and memory holds at most one network chunk of
 * rows beyond what the caller took. Each wait for the next chunk must end within `idleMs`.
 * `close()` must be called in every case; it ends the request if the answer was not read to the end.
 * While its reader waits on the flow (`waitOnFlow`), the stream holds no connection slot.
 */
export class SqlResultStream {
  private readonly decoder = new StringDecoder('utf8');
  private ended = false;
  private closed = false;
  /** Reads the spooled rows back (see AnswerParser.spool), once the answer's head is known. */
  private replay: AnswerParser | undefined;
  private replayed = false;

  constructor(
    private readonly source: ChunkSource,
    private readonly parser: AnswerParser,
    private readonly idleMs: number,
    private readonly path: string,
    private readonly redactor: Redactor,
    private readonly hold: StreamHold,
  ) {}

  get type(): 'table' | 'ok' {
    return this.parser.head?.type === 'ok' ? 'ok' : 'table';
  }
  get columns(): string[] {
    const c = this.parser.head?.fields.column_names;
    return Array.isArray(c) ? c.map(String) : [];
  }
  /** The answer's fields other than the rows; a table's context is known only once every row was read. */
  get fields(): Record<string, unknown> {
    return this.parser.fields;
  }
  /** True once the whole body was read. */
  get done(): boolean {
    return this.ended && this.parser.ready === 0 && (this.parser.spool === undefined || this.replayed);
  }

  /** Reads until the answer's kind is known; an SQL error answer rejects here. */
  async open(): Promise<void> {
    while (!this.parser.head && !this.ended) await this.pull();
    // Rows set aside before the names are all in their file now (a write error shows here).
    await this.parser.spool?.flush();
    const head = this.parser.head;
    if (head?.type === 'error') throw sqlError(head.fields, this.redactor, this.path);
  }

  /** Up to `max` rows; fewer only at the end of the answer, none once it is over. */
  async read(max: number): Promise<unknown[][]> {
    const spooled = this.parser.spool && !this.replayed ? await this.readSpooled(max) : [];
    if (spooled.length === max) return spooled;
    const want = max - spooled.length;
    while (this.parser.ready < want && !this.ended) await this.pull();
    const rows = this.parser.take(want);
    return spooled.length === 0 ? rows : spooled.concat(rows);
  }

  /** Up to `max` of the rows that were set aside before the column names, parsed as read back. */
  private async readSpooled(max: number): Promise<unknown[][]> {
    const spool = this.parser.spool;
    if (!spool || !this.parser.spooledRows) {
      this.replayed = true;
      return [];
    }
    const replay = (this.replay ??= this.parser.spooledRows());
    while (replay.ready < max && !this.replayed) {
      const text = await spool.read();
      if (text !== undefined) {
        replay.push(text);
        continue;
      }
      replay.push(']}');
      replay.end();
      this.replayed = true;
      await spool.delete();
    }
    const rows = replay.take(max);
    if (this.replayed && replay.ready === 0) this.replay = undefined;
    return rows;
  }

  /**
   * Waits for `wait` (a msg.tick, downstream) without holding a connection slot: the slot is
   * given back meanwhile, so whatever the flow needs from the same server to make `wait` end can
   * run, and taken again (within `idleMs`) before the stream reads on.
   */
  async waitOnFlow<T>(wait: () => Promise<T>): Promise<T> {
    this.hold.park();
    const value = await wait();
    await this.hold.unpark(this.idleMs);
    return value;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.ended) this.source.destroy();
    this.hold.release();
    // The spool's file goes on every path: the end, an error, an abort, a deadline.
    void this.parser.spool?.delete();
  }

  private async pull(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let result: IteratorResult<Buffer>;
    try {
      timer = setTimeout(() => this.source.destroy(this.idleError()), this.idleMs);
      result = await this.source.next();
    } catch (err) {
      throw err instanceof MindsDBError ? err : this.brokenError(err);
    } finally {
      clearTimeout(timer);
    }
    if (result.done) {
      this.ended = true;
      this.parser.push(this.decoder.end());
      this.parser.end();
      await this.parser.spool?.flush();
      return;
    }
    this.parser.push(this.decoder.write(result.value));
    // Rows set aside before the column names go to their file as they come: the socket waits for it.
    if (this.parser.spool?.pending) await this.parser.spool.flush();
  }

  private idleError(): MindsDBError {
    return new MindsDBError(
      `no data from the MindsDB server for ${this.idleMs} ms while reading the answer to POST ${this.path}`,
      { kind: 'timeout', code: 'ETIMEDOUT', method: 'POST', path: this.path },
    );
  }

  private brokenError(err: unknown): MindsDBError {
    const detail = err instanceof Error ? this.redactor.text(err.message) : 'unknown error';
    return new MindsDBError(`the connection broke while reading the answer to POST ${this.path}: ${detail}`, {
      kind: 'network',
      code: 'ECONNRESET',
      method: 'POST',
      path: this.path,
    });
  }
}
