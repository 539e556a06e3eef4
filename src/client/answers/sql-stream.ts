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

  constructor(
    private readonly source: ChunkSource,
    private readonly parser: AnswerParser,
    private readonly idleMs: number,
    private readonly path: string,
    private readonly redactor: Redactor,
    private readonly hold: StreamHold,
  ) {}

  get type(): 'table' | 'ok' { return this.parser.head?.type === 'ok' ? 'ok' : 'table'; }
  get columns(): string[] { const c = this.parser.head?.fields.column_names; return Array.isArray(c) ? c.map(String) : []; }
  /** The answer's fields other than the rows; a table's context is known only once every row was read. */
  get fields(): Record<string, unknown> { return this.parser.fields; }
  /** True once the whole body was read. */
  get done(): boolean { return this.ended && this.parser.ready === 0; }

  /** Reads until the answer's kind is known; an SQL error answer rejects here. */
  async open(): Promise<void> {
    while (!this.parser.head && !this.ended) await this.pull();
    const head = this.parser.head;
    if (head?.type === 'error') throw sqlError(head.fields, this.redactor, this.path);
  }

  /** Up to `max` rows; fewer only at the end of the answer, none once it is over. */
  async read(max: number): Promise<unknown[][]> {
    while (this.parser.ready < max && !this.ended) await this.pull();
    return this.parser.take(max);
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
      return;
    }
    this.parser.push(this.decoder.write(result.value));
  }

  private idleError(): MindsDBError {
    return new MindsDBError(`no data from the MindsDB server for ${this.idleMs} ms while reading the answer to POST ${this.path}`,
      { kind: 'timeout', code: 'ETIMEDOUT', method: 'POST', path: this.path });
  }

  private brokenError(err: unknown): MindsDBError {
    const detail = err instanceof Error ? this.redactor.text(err.message) : 'unknown error';
    return new MindsDBError(`the connection broke while reading the answer to POST ${this.path}: ${detail}`,
      { kind: 'network', code: 'ECONNRESET', method: 'POST', path: this.path });
  }
}
