/**
 * Incremental parser for server-sent events as MindsDB sends them: `data: <json>` lines, events
 * separated by a blank line, split across network chunks anywhere. Only `data:` fields matter
 * (MindsDB sends no event or id fields); an event whose data is not JSON is skipped.
 */
export class SseParser {
  private buffer = '';

  push(text: string): Array<Record<string, unknown>> {
    this.buffer += text;
    const events: Array<Record<string, unknown>> = [];
    let boundary = nextBoundary(this.buffer);
    while (boundary) {
      const block = this.buffer.slice(0, boundary.index);
      this.buffer = this.buffer.slice(boundary.index + boundary.length);
      const data = block.split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) {
        try {
          const parsed = JSON.parse(data) as unknown;
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) events.push(parsed as Record<string, unknown>);
        } catch {
          /* not JSON: not an event we understand */
        }
      }
      boundary = nextBoundary(this.buffer);
    }
    return events;
  }
}

function nextBoundary(s: string): { index: number; length: number } | undefined {
  const m = /\r?\n\r?\n/.exec(s);
  return m ? { index: m.index, length: m[0].length } : undefined;
}
