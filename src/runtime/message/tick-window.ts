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
  /** It sent its last part, and is kept only until the ticks for its parts still out come back. */
  finished?: boolean;
}

/**
 * Flow control by ticks, the convention of node-red-contrib-postgresql: a sequence may have at
 * most `window` parts out that no `msg.tick` has acknowledged yet; the sender waits for a tick
 * before the next one. A tick whose `msg.parts` (or a `msg.parts.parts` nested by a split
 * downstream) names a sequence acknowledges a part of that sequence; one that names a sequence
 * that recently ended (the tick for its last part) is dropped; any other tick acknowledges a part
 * of the oldest sequence with parts out. A sequence that counts its acknowledgements (incremental
 * mode keeps its position as ticks come back) stays after its last part until every part is
 * acknowledged; `tick` says which sequence a tick acknowledged.
 */
export class TickWindow {
  private readonly sequences = new Map<string, Sequence>();
  /** Ids of the last sequences that ended, so their late ticks are not taken for another's. */
  private readonly endedIds: string[] = [];
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
        reject(
          new MindsDBError(
            `no msg.tick came back within ${timeoutMs} ms to ask for the next part; the rest of the result was dropped`,
            { kind: 'timeout', code: 'ETICK' },
          ),
        );
      }, timeoutMs);
      seq.wake = () => {
        clearTimeout(timer);
        seq.wake = undefined;
        const why = this.closedError ?? seq.stopped;
        if (why) reject(why);
        else resolve();
      };
    });
  }

  sent(id: string): void {
    const seq = this.sequences.get(id);
    if (seq) seq.unacked++;
  }

  /**
   * Sequence `id` sent its last part. With `awaitTicks`, it stays until the ticks for its parts
   * still out have come back (each one is then still reported by `tick`).
   */
  finish(id: string, awaitTicks = false): void {
    const seq = this.sequences.get(id);
    if (seq && awaitTicks && seq.unacked > 0 && !seq.stopped && !this.closedError) {
      seq.finished = true;
      return;
    }
    if (seq || !this.endedIds.includes(id)) this.ended(id);
  }

  /**
   * A message with a truthy `tick` came back; `parts` is its msg.parts. Returns the id of the
   * sequence it acknowledged a part of, or undefined when it was dropped.
   */
  tick(parts: unknown): string | undefined {
    let seq: Sequence | undefined;
    for (let p = parts, depth = 0; isParts(p) && depth < 8 && !seq; p = p.parts, depth++) {
      if (typeof p.id !== 'string') continue;
      if (this.endedIds.includes(p.id)) return undefined;
      seq = this.sequences.get(p.id);
    }
    if (!seq)
      for (const s of this.sequences.values()) {
        if (s.unacked > 0) {
          seq = s;
          break;
        }
      }
    if (!seq || seq.unacked === 0) return undefined;
    seq.unacked--;
    if (seq.finished && seq.unacked === 0) this.ended(seq.id);
    else if (seq.wake && seq.unacked < this.window) seq.wake();
    return seq.id;
  }

  /** Sequence `id` is stopped (msg.reset): its wait for a tick, now or later, ends with `reason`. */
  stop(id: string, reason: Error): void {
    const seq = this.sequences.get(id);
    if (!seq) return;
    seq.stopped = reason;
    seq.wake?.();
  }

  private ended(id: string): void {
    this.sequences.delete(id);
    this.endedIds.push(id);
    if (this.endedIds.length > ENDED_KEPT) this.endedIds.shift();
  }

  /** The node is closing: every waiting sequence fails now rather than at its tick timeout. */
  close(): void {
    this.closedError = new MindsDBError(
      'the node was stopped (redeploy) while waiting for msg.tick; the rest of the result was dropped',
      { kind: 'closed' },
    );
    for (const s of this.sequences.values()) s.wake?.();
  }
}
