import { promises as fsp } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

export interface SpoolOptions {
  /** Where the temporary file goes (default: the OS's temporary directory). */
  dir?: string;
  /** Text kept in memory before the spool moves to a file (default 1 MiB of text). */
  memoryChars?: number;
}

const DEFAULT_MEMORY_CHARS = 1 << 20;
/** Text gathered before one write to the file, and the size of one read back. */
const WRITE_CHARS = 256 * 1024;
const READ_BYTES = 64 * 1024;

/**
 * The text of rows that arrived before they could be labelled: MindsDB before 26.1 writes a table's
 * `data` before its `column_names` (the e2e suite checks that 25.14.1 does), so a streamed answer's
 * rows cannot be sent until the whole body went by. Held as parsed rows they cost about three
 * times their text (120 MB for 1,000,000 rows of 5 columns, bench/README.md); here they stay text:
 * in memory up to `memoryChars`, beyond that in a temporary file (mode 0600, a random name), and
 * are parsed only as they are read back, part by part.
 *
 * The size limit is the caller's (JsonAnswerParser counts the text against *Max response*, as it
 * did when it held the rows). The file is deleted on every path: read to its end, or `delete()`,
 * which SqlResultStream.close() calls whatever ended the stream (an error, an abort, a deadline).
 */
export class RowSpool {
  private memory: string[] = [];
  private unwritten: string[] = [];
  private unwrittenChars = 0;
  private chars = 0;
  private file: fsp.FileHandle | undefined;
  private filePath: string | undefined;
  /** File operations, one after another. */
  private work: Promise<void> = Promise.resolve();
  private writeError: Error | undefined;
  private readAt = 0;
  private readonly decoder = new StringDecoder('utf8');
  private finished = false;
  private deleted = false;
  private readonly dir: string;
  private readonly memoryChars: number;

  constructor(opts: SpoolOptions = {}) {
    this.dir = opts.dir ?? os.tmpdir();
    this.memoryChars = opts.memoryChars ?? DEFAULT_MEMORY_CHARS;
  }

  /** Characters of row text set aside so far. */
  get size(): number {
    return this.chars;
  }

  /** The temporary file, while there is one (for tests and diagnostics). */
  get path(): string | undefined {
    return this.filePath;
  }

  /** True when enough text waits to be written that the reader should `flush()` before reading on. */
  get pending(): boolean {
    return this.unwrittenChars >= WRITE_CHARS || this.writeError !== undefined;
  }

  /** Adds the text of whole rows (`[…],[…]`), in order. */
  append(text: string): void {
    if (this.deleted || text.length === 0) return;
    if (this.chars > 0) text = `,${text}`;
    this.chars += text.length;
    if (this.filePath === undefined && this.chars <= this.memoryChars) {
      this.memory.push(text);
      return;
    }
    if (this.filePath === undefined) {
      this.filePath = path.join(
        this.dir,
        `node-red-mindsdb-rows-${process.pid}-${randomBytes(8).toString('hex')}.json`,
      );
      const filePath = this.filePath;
      const held = this.memory;
      this.memory = [];
      this.unwritten = held;
      this.unwrittenChars = held.reduce((n, t) => n + t.length, 0);
      this.queue(async () => {
        this.file = await fsp.open(filePath, 'wx+', 0o600);
      });
    }
    this.unwritten.push(text);
    this.unwrittenChars += text.length;
    if (this.unwrittenChars >= WRITE_CHARS) this.writeOut();
  }

  /** Waits until what was appended is in the file; rejects with a write error (a full disk …). */
  async flush(): Promise<void> {
    if (this.unwritten.length > 0) this.writeOut();
    await this.work;
    if (this.writeError) throw this.writeError;
  }

  /** The next piece of the text, in order; undefined once all was read (the file is then deleted). */
  async read(): Promise<string | undefined> {
    if (this.deleted) return undefined;
    if (this.filePath === undefined) {
      const text = this.memory.shift();
      if (text === undefined) this.finished = true;
      return text;
    }
    await this.flush();
    const file = this.file;
    if (!file || this.finished) return undefined;
    const buf = Buffer.allocUnsafe(READ_BYTES);
    const { bytesRead } = await file.read(buf, 0, READ_BYTES, this.readAt);
    this.readAt += bytesRead;
    if (bytesRead === 0) {
      this.finished = true;
      const rest = this.decoder.end();
      await this.delete();
      return rest === '' ? undefined : rest;
    }
    return this.decoder.write(buf.subarray(0, bytesRead));
  }

  /** Closes and removes the file (if any) and drops what is held; safe to call more than once. */
  delete(): Promise<void> {
    if (this.deleted) return this.work;
    this.deleted = true;
    this.memory = [];
    this.unwritten = [];
    this.unwrittenChars = 0;
    const filePath = this.filePath;
    this.work = this.work
      .catch(() => undefined)
      .then(async () => {
        const file = this.file;
        this.file = undefined;
        await file?.close().catch(() => undefined);
        if (filePath !== undefined) await fsp.unlink(filePath).catch(() => undefined);
      });
    return this.work;
  }

  private writeOut(): void {
    const text = this.unwritten.join('');
    this.unwritten = [];
    this.unwrittenChars = 0;
    this.queue(async () => {
      if (this.file && !this.deleted) await this.file.write(text);
    });
  }

  private queue(op: () => Promise<void>): void {
    this.work = this.work.then(async () => {
      if (this.writeError || this.deleted) return;
      try {
        await op();
      } catch (err) {
        this.writeError = new Error(
          `could not set aside the rows that came before the column names in a temporary file in ${this.dir}: ` +
            `${(err as Error).message}`,
        );
      }
    });
  }
}
