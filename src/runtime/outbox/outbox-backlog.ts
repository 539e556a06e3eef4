import type { KeptRow } from '../../store';
import type { OutboxHost } from './outbox-host';
import { lostEarlier, MAX_PAUSE_MS, outboxExpired } from './outbox-policy';
import { itemOf, type OutboxItem } from './outbox-writer';

/**
 * The backlog of one node's outbox, sent in arrival order once the server is not known down: the
 * store's rows are claimed a window at a time (this copy's kept rows, and rows no live copy holds:
 * a dead copy's backlog, taken over), micro-batched by the writer. A failed request pauses it (a
 * growing back-off); a write in doubt waits until its lost request cannot still be running; kept
 * messages older than the node's maximum age end at Catch, checked even while MindsDB stays away.
 * With a shared store, a node that sends live looks now and then for rows to take over.
 */
export class Backlog<T> {
  private cursor = 0;
  private pauseMs = 0;
  private pauseTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private pumping = false;
  private again = false;

  constructor(private readonly host: OutboxHost<T>) {}

  /** Starts the expiry check; `pollMs`: how often a live node looks for rows to take over (shared store). */
  start(pollMs?: number): void {
    const { maxAgeMs } = this.host.limits;
    this.every(Math.min(60_000, Math.max(1000, maxAgeMs / 10)), () => void this.expire());
    if (pollMs)
      this.every(pollMs, () => {
        if (this.host.mode === 'live' && !this.host.closing && !this.host.serverDown()) {
          this.host.mode = 'backlog';
          this.pump();
        }
      });
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.clearPause();
  }

  /** A request went through: the back-off starts again from its shortest step. */
  succeeded(): void {
    this.pauseMs = 0;
  }

  /** A request that may be repeated failed: the backlog waits (a growing back-off) and is read again from its start. */
  failed(): void {
    if (this.pauseTimer) return;
    this.cursor = 0;
    this.pauseMs = Math.min(MAX_PAUSE_MS, this.pauseMs ? this.pauseMs * 2 : 1000);
    this.waitUntil(Date.now() + this.pauseMs);
  }

  /** The server is back (or the store): no more waiting. */
  resume(): void {
    this.clearPause();
    this.pump();
  }

  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.once();
        } while (this.again);
      } catch {
        this.failed(); // tried again after a pause
      } finally {
        this.pumping = false;
      }
    })();
  }

  private async once(): Promise<void> {
    const h = this.host;
    const rows = h.opened;
    if (h.mode !== 'backlog' || h.closing || this.pauseTimer || h.serverDown() || !rows) return;
    const room = h.limits.window - h.inFlight.size;
    if (room < h.limits.window / 2) return;
    let got: KeptRow[];
    try {
      got = await rows.claim(this.cursor, room);
    } catch {
      this.failed(); // the store is away: tried again after a pause, or when it is back
      return;
    }
    if (got.length === 0) {
      if (h.inFlight.size === 0 && h.mode === 'backlog') {
        h.mode = 'live';
        this.cursor = 0;
        const usage = await rows.usage().catch(() => undefined);
        if (usage) ({ count: h.kept, bytes: h.bytes } = usage);
        h.counted();
      }
      return;
    }
    const now = Date.now();
    for (const row of got) {
      this.cursor = row.id;
      if (h.inFlight.has(row.id)) continue;
      const item = this.restore(row);
      if (!item) continue;
      // A dead copy's request may still be running on the server: its rows in doubt wait as a lost answer does.
      if (row.takenOver && row.inDoubt) h.settleUntil = Math.max(h.settleUntil, now + h.limits.doubtSettleMs);
      if (row.acceptedAt < now - h.limits.maxAgeMs) {
        h.endKept(item, outboxExpired(row.acceptedAt, h.limits.maxAgeMs));
        continue;
      }
      if (item.inDoubt && !h.writer.canCheck(item)) {
        h.endKept(item, lostEarlier());
        continue;
      }
      // Its lost request may still be running on the server: looked up (and what follows sent) once it cannot be.
      if (item.inDoubt && now < h.settleUntil) {
        this.cursor = row.id - 1;
        this.waitUntil(h.settleUntil);
        break;
      }
      h.dispatch(item);
    }
    h.writer.flush();
    this.again = true; // the window may have room for more
  }

  private restore(row: KeptRow): OutboxItem<T> | undefined {
    try {
      return itemOf<T>(row);
    } catch (err) {
      this.host.late.warn(
        `an outbox message (row ${row.id}) could not be read back and was dropped: ` +
          `${err instanceof Error ? err.message : String(err)}`,
      );
      this.host.remove(row, row.bytes);
      return undefined;
    }
  }

  /** Kept messages older than the maximum age end now, even while the server stays away. */
  private async expire(): Promise<void> {
    const h = this.host;
    if (h.closing || !h.opened) return;
    let rows: KeptRow[];
    try {
      rows = await h.opened.claim(0, 1000, Date.now() - h.limits.maxAgeMs);
    } catch {
      return; // tried again at the next check
    }
    for (const row of rows) {
      if (h.inFlight.has(row.id)) continue;
      const item = this.restore(row);
      if (item) h.endKept(item, outboxExpired(row.acceptedAt, h.limits.maxAgeMs));
    }
  }

  private waitUntil(at: number): void {
    if (this.pauseTimer) return;
    this.pauseTimer = setTimeout(
      () => {
        this.pauseTimer = undefined;
        this.pump();
      },
      Math.max(0, at - Date.now()),
    );
    this.pauseTimer.unref?.();
  }

  private clearPause(): void {
    clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref?.();
    this.timers.push(t);
  }
}
