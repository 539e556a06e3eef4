import type { Held } from '../../store';

interface Removal {
  held: Held;
  bytes: number;
  then?: (removed: boolean) => void;
}

/**
 * Rows whose messages have their outcomes, deleted in one commit for every outcome of one turn of
 * the event loop; then each outcome is delivered (`then`: whether its row went: a row another copy
 * holds now, or one the store could not delete, keeps its outcome from leaving), in the order they came.
 */
export class Removals {
  private readonly queue: Removal[] = [];

  /**
   * `removeRows` deletes the rows and resolves with the ids it could not delete (another copy holds
   * them), or undefined when the store failed. `gatherMs`: how long the first outcome waits for
   * others to share its commit (each commit is synced to disk; answers of micro-batches come a few ms apart).
   */
  constructor(
    private readonly removeRows: (held: Held[], bytes: number) => Promise<ReadonlySet<number> | undefined>,
    private readonly gatherMs = 0,
  ) {}

  add(held: Held, bytes: number, then?: (removed: boolean) => void): void {
    this.queue.push({ held, bytes, then });
    if (this.queue.length !== 1) return;
    // flush never rejects (removeRows says a failure as undefined); the catch keeps a throwing callback out of
    // the unhandled rejections
    const flush = () => void this.flush().catch(() => undefined);
    if (this.gatherMs > 0) setTimeout(flush, this.gatherMs);
    else setImmediate(flush);
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0).filter((r) => r.held.id > 0 || r.then);
    const rows = batch.filter((r) => r.held.id > 0);
    const kept =
      rows.length === 0
        ? new Set<number>()
        : await this.removeRows(
            rows.map((r) => r.held),
            rows.reduce((n, r) => n + r.bytes, 0),
          );
    for (const r of batch) r.then?.(r.held.id === 0 || (kept !== undefined && !kept.has(r.held.id)));
  }
}
