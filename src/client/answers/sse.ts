import { MindsDBError, sizeText } from '../shared';

/**
 * Incremental parser for server-sent events as MindsDB sends them: `data: <json>` lines, events
 * separated by a blank line, split across network chunks anywhere. Only `data:` fields matter
 * (MindsDB sends no event or id fields); an event whose data is not JSON is skipped.
 *
 * One event may be at most `maxBytes` long (the server node's *Max response*): an event still
 * unfinished beyond that fails the stream with a 'too-large' error instead of growing memory.
 */
export class SseParser {
  private buffer = '';
  /** Where the search for the next blank line resumes (what came before holds none). */
  private scanned = 0;

  constructor(
    private readonly maxBytes = Infinity,
    private readonly path = '',
  ) {}

  push(text: string): Array<Record<string, unknown>> {
    this.buffer += text;
    const events: Array<Record<string, unknown>> = [];
    let boundary = this.nextBoundary();
    while (boundary) {
      // An event over the limit is refused even when it arrived whole, in one network chunk.
      if (boundary.index > this.maxBytes) throw this.tooLarge();
      const block = this.buffer.slice(0, boundary.index);
      this.buffer = this.buffer.slice(boundary.index + boundary.length);
      this.scanned = 0;
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) {
        try {
          const parsed = JSON.parse(data) as unknown;
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
            events.push(parsed as Record<string, unknown>);
        } catch {
          /* not JSON: not an event we understand */
        }
      }
      boundary = this.nextBoundary();
    }
    // Characters, not bytes: an event is at least as many bytes, so this never lets more through.
    if (this.buffer.length > this.maxBytes) throw this.tooLarge();
    return events;
  }

  private tooLarge(): MindsDBError {
    return new MindsDBError(
      `one event of the stream answering POST ${this.path} is larger than the limit of ${sizeText(this.maxBytes)}`,
      { kind: 'too-large', method: 'POST', path: this.path },
    );
  }

  private nextBoundary(): { index: number; length: number } | undefined {
    const re = /\r?\n\r?\n/g;
    // Back up three characters: a boundary may have begun at the end of the last piece.
    re.lastIndex = Math.max(0, this.scanned - 3);
    const m = re.exec(this.buffer);
    if (m) return { index: m.index, length: m[0].length };
    this.scanned = this.buffer.length;
    return undefined;
  }
}
