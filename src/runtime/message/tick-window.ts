import { MindsDBError } from '../../client';

const ENDED_KEPT = 64;

function isParts(v: unknown): v is { id?: unknown; parts?: unknown } {
  return typeof v === 'object' && v !== null;
}

/** One message sequence under flow control: parts sent and not yet acknowledged by a tick. */
interface Sequence {
  id: string;
  unacked: number;
  wake: (() => void) | undefined;
  /** Why the sequence was stopped (msg.reset), if it was: its wait for a tick ends with this. */
  stopped?: Error;
}

/**
 * Flow control by ticks, the convention of node-red-contrib-postgresql: a sequence may have at
 * most `window` parts out that no `msg.tick` has acknowledged yet; the sender waits for a tick
 * before the next one. A tick whose `msg.parts` (or a `msg.parts.parts` nested by a split
 * downstream) names a sequence acknowledges a part of that sequence; one that names a sequence
 * that recently ended (the tick for its last part) is dropped; any other tick acknowledges a part
 * of the oldest sequence with parts out.
 */
export class TickWindow {
  private readonly sequences = new Map<string, Sequence>();
  /** Ids of the last sequences that ended, so their late ticks are not taken for another's. */
  private readonly ended: string[] = [];
  private closedError: MindsDBError | undefined;

  constructor(private readonly window: number) {}

  start(id: string): void {
    this.sequences.set(id, { id, unacked: 0, wake: undefined });
  }

  /** True when sequence `id` may send one more part now (no wait for a tick). */
  isReady(id: string): boolean {
    const seq = this.sequences.get(id);
    return !this.closedError && (!seq || (!seq.stopped && seq.unacked < this.window));
  }

  /** Resolves when sequence `id` may send one more part; rejects after `timeoutMs` without a tick, or on close. */
  ready(id: string, timeoutMs: number): Promise<void> {
    const seq = this.sequences.get(id);
    if (this.closedError) return Promise.reject(this.closedError);
    if (seq?.stopped) return Promise.reject(seq.stopped);
    if (!seq || seq.unacked < this.window) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        seq.wake = undefined;
        reject(new MindsDBError(`no msg.tick came back within ${timeoutMs} ms to ask for the next part; the rest of the result was dropped`, { kind: 'timeout', code: 'ETICK' }));
      }, timeoutMs);
      seq.wake = () => {
        clearTimeout(timer);
        seq.wake = undefined;
        const why = this.closedError ?? seq.stopped;
        if (why) reject(why); else resolve();
      };
    });
  }

  sent(id: string): void {
    const seq = this.sequences.get(id);
    if (seq) seq.unacked++;
  }

  finish(id: string): void {
    this.sequences.delete(id);
    this.ended.push(id);
    if (this.ended.length > ENDED_KEPT) this.ended.shift();
  }

  /** A message with a truthy `tick` came back; `parts` is its msg.parts. */
  tick(parts: unknown): void {
    let seq: Sequence | undefined;
    for (let p = parts, depth = 0; isParts(p) && depth < 8 && !seq; p = p.parts, depth++) {
      if (typeof p.id !== 'string') continue;
      if (this.ended.includes(p.id)) return;
      seq = this.sequences.get(p.id);
    }
    if (!seq) for (const s of this.sequences.values()) { if (s.unacked > 0) { seq = s; break; } }
    if (!seq || seq.unacked === 0) return;
    seq.unacked--;
    if (seq.wake && seq.unacked < this.window) seq.wake();
  }

  /** Sequence `id` is stopped (msg.reset): its wait for a tick, now or later, ends with `reason`. */
  stop(id: string, reason: Error): void {
    const seq = this.sequences.get(id);
    if (!seq) return;
    seq.stopped = reason;
    seq.wake?.();
  }

  /** The node is closing: every waiting sequence fails now rather than at its tick timeout. */
  close(): void {
    this.closedError = new MindsDBError('the node was stopped (redeploy) while waiting for msg.tick; the rest of the result was dropped', { kind: 'closed' });
    for (const s of this.sequences.values()) s.wake?.();
  }
}
