/**
 * Work under way that msg.reset may stop: a message sequence being sent, an answer being
 * streamed, a run waiting for its answer. Stopping it records why, and runs what frees its
 * resources (closing the stream gives its connection back); the work itself checks `reason`
 * before each thing it sends, and ends its message with that error.
 */
export class Stoppable {
  reason: Error | undefined;
  private readonly onStop: Array<() => void> = [];

  constructor(
    private readonly finish: (s: Stoppable) => void,
    readonly tag?: string,
  ) {}

  /** Stops it (once): `reason` is what its message ends with. */
  stop(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    for (const fn of this.onStop.splice(0)) {
      try {
        fn();
      } catch {
        /* freeing is best effort: the work ends with `reason` either way */
      }
    }
  }

  /** Runs `fn` when it is stopped (at once when it already is). */
  whenStopped(fn: () => void): void {
    if (this.reason) fn();
    else this.onStop.push(fn);
  }

  /** Throws why it was stopped, if it was. */
  check(): void {
    if (this.reason) throw this.reason;
  }

  /** The work ended (either way): it can no longer be stopped. */
  done(): void {
    this.onStop.length = 0;
    this.finish(this);
  }
}

/** A node's work under way, each piece with an optional tag (an agent's conversation). */
export class StoppableSet {
  private readonly running = new Set<Stoppable>();

  /** Starts tracking a piece of work; call its `done()` when it ends. */
  add(tag?: string): Stoppable {
    const s = new Stoppable((x) => this.running.delete(x), tag);
    this.running.add(s);
    return s;
  }

  /** Stops every piece (or only those tagged `tag`); returns how many. */
  stop(reason: Error, tag?: string): number {
    let n = 0;
    for (const s of [...this.running]) {
      if (tag !== undefined && s.tag !== tag) continue;
      s.stop(reason);
      n++;
    }
    return n;
  }
}
