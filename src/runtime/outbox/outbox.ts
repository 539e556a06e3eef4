import type { HealthView } from '../../client';
import { StoreError, type StoreLease } from '../../store';
import type { Msg } from '../node/red';
import {
  GATHER_MS,
  KEEP_PER_TURN,
  keepOf,
  lostEarlier,
  MAX_PAUSE_MS,
  messageJson,
  OffSwitch,
  outboxExpired,
  outboxFull,
  withoutOutbox,
} from './outbox-policy';
import {
  itemOf,
  type Accepted,
  type LateOutcome,
  type OutboxItem,
  type OutboxLimits,
  type OutboxWriter,
} from './outbox-writer';
import { OutboxRows, Removals, type KeptRow, type NewRow } from './outbox-store';

interface Waiting<T> {
  item: OutboxItem<T>;
  json: string;
  resolve: (a: Accepted) => void;
  reject: (e: Error) => void;
}

/**
 * One node's outbox (docs/outbox.md): every message the node takes is written to the store before
 * anything else happens to it (a commit per turn of the event loop), then sent while the server
 * takes writes ("live"), or kept while it does not ("backlog": its input ends, its outcome comes
 * later) and sent in arrival order once it is back, micro-batched by the writer. A row goes only
 * once its message has its outcome. Bounds: `maxBytes` and `maxAgeMs` per node. A store that cannot
 * be written (a full or read-only disk) turns the outbox off for a minute, said once.
 */
export class Outbox<Target> {
  private rows: OutboxRows | undefined;
  private mode: 'live' | 'backlog' | 'off';
  private readonly off = new OffSwitch();
  private health: HealthView = { state: 'unknown' };
  private readonly waiting: Array<Waiting<Target>> = [];
  private keepScheduled = false;
  private readonly inFlight = new Set<number>();
  private cursor = 0;
  private kept = 0;
  private bytes = 0;
  private pauseMs = 0;
  private pauseTimer: NodeJS.Timeout | undefined;
  private settleUntil = 0;
  private expiryTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private settled: (() => void) | undefined;
  /** The backlog changed (for the node's status). */
  onKept: (kept: number) => void = () => undefined;

  constructor(
    private readonly lease: StoreLease | StoreError,
    node: string,
    private readonly writer: OutboxWriter<Target>,
    private readonly late: LateOutcome,
    private readonly limits: OutboxLimits,
  ) {
    this.mode = 'off';
    if (lease instanceof StoreError) {
      this.turnOff(lease);
      return;
    }
    try {
      this.rows = new OutboxRows(lease.store, node);
      if (this.rows.recover() > 0) this.settleUntil = Date.now() + limits.doubtSettleMs;
      this.count();
      this.mode = this.kept > 0 ? 'backlog' : 'live';
    } catch (err) {
      this.turnOff(err);
    }
    this.expiryTimer = setInterval(() => this.expire(), Math.min(60_000, Math.max(1000, limits.maxAgeMs / 10)));
    this.expiryTimer.unref?.();
    queueMicrotask(() => this.pump());
  }

  get backlog(): number {
    return this.kept;
  }

  /** The server's health changed: a backlog is sent once it is not known down. */
  healthChanged(view: HealthView): void {
    this.health = view;
    if (view.state !== 'unreachable') {
      this.clearPause();
      this.pump();
    }
  }

  /** Marks rows as in a request that may store them (the writer calls it right before its request). */
  sending(items: ReadonlyArray<OutboxItem<Target>>): void {
    const ids = items.map((i) => i.id).filter((id) => id > 0 && !this.marked.has(id));
    if (ids.length === 0 || !this.rows) return;
    try {
      this.rows.markSending(ids);
    } catch (err) {
      this.turnOff(err);
    }
    for (const id of ids) this.marked.add(id);
  }

  /** Rows marked as in a request (on disk): a batch sent again alone is not marked again. */
  private readonly marked = new Set<number>();

  /**
   * A message from the node's input, with what the node resolved for it. Resolves 'sent' once it
   * is stored (the caller sends the output) or 'kept' once it is on disk to be sent later (the
   * caller ends it with done(): its output or error comes later); rejects with why it failed.
   */
  accept(msg: Msg, target: Target): Promise<Accepted> {
    const item: OutboxItem<Target> = {
      id: 0,
      msg,
      target,
      inDoubt: false,
      acceptedAt: Date.now(),
      bytes: 0,
      restored: false,
    };
    if (this.mode === 'off' && (this.closing || this.off.waiting)) return this.direct(item);
    const json = messageJson(msg, target);
    item.bytes = Buffer.byteLength(json);
    return new Promise<Accepted>((resolve, reject) => {
      this.waiting.push({ item, json, resolve, reject });
      if (!this.keepScheduled) {
        this.keepScheduled = true;
        setImmediate(() => this.keepWaiting());
      }
    });
  }

  /**
   * Stops sending; what is waiting to be kept is written now; resolves once every request under way ended (at most
   * `graceMs`).
   */
  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    this.clearPause();
    if (this.expiryTimer) clearInterval(this.expiryTimer);
    this.keepWaiting();
    if (this.inFlight.size > 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.settled = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    if (!(this.lease instanceof StoreError)) this.lease.release();
  }

  /** What arrived (KEEP_PER_TURN of it; all when closing), on disk in one commit; then sent, or kept. */
  private keepWaiting(): void {
    this.keepScheduled = false;
    const batch = this.waiting.splice(0, this.closing ? this.waiting.length : KEEP_PER_TURN);
    if (this.waiting.length > 0) {
      this.keepScheduled = true;
      setImmediate(() => this.keepWaiting());
    }
    if (batch.length === 0) return;
    if (this.mode === 'off' && !this.reopen()) {
      for (const w of batch) this.direct(w.item).then(w.resolve, w.reject);
      return;
    }
    const fits: Array<Waiting<Target>> = [];
    let bytes = this.bytes;
    for (const w of batch) {
      if (bytes + w.item.bytes > this.limits.maxBytes) {
        w.reject(this.writer.failed(w.item, outboxFull(w.item.bytes, bytes, this.limits.maxBytes, this.kept)));
        continue;
      }
      bytes += w.item.bytes;
      fits.push(w);
    }
    // Sent at once (live): written as in a request already, which saves a commit per batch; a kill
    // before the request then leaves them in doubt, which costs a lookup, never a duplicate.
    const live = this.mode === 'live' && !this.closing && this.health.state !== 'unreachable';
    let ids: number[];
    try {
      ids = (this.rows as OutboxRows).insert(
        fits.map((w): NewRow => ({ acceptedAt: w.item.acceptedAt, msg: w.json, bytes: w.item.bytes })),
        live,
      );
    } catch (err) {
      this.turnOff(err);
      for (const w of fits) this.direct(w.item).then(w.resolve, w.reject);
      return;
    }
    this.bytes = bytes;
    this.kept += fits.length;
    if (!live && this.mode === 'live') this.mode = 'backlog';
    fits.forEach((w, i) => {
      w.item.id = ids[i];
      if (live) {
        this.marked.add(ids[i]);
        this.dispatch(w.item, w);
      } else w.resolve('kept');
    });
    this.onKept(this.kept);
    this.pump();
  }

  /** Sends one kept message; `own` is its input's promise while this process still holds it. */
  private dispatch(item: OutboxItem<Target>, own?: Waiting<Target>): void {
    this.inFlight.add(item.id);
    let written: Promise<void>;
    try {
      written = this.writer.write(item);
    } catch (err) {
      written = Promise.reject(err);
    }
    written.then(
      () => {
        this.remove(item, (removed) => {
          if (!removed) own?.resolve('kept');
          else if (own) own.resolve('sent');
          else this.late.sent(item.msg);
          this.ended(item, true);
        });
      },
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        const keep = keepOf(e);
        if (keep === 'retry' || (keep === 'in-doubt' && this.writer.canCheck(item))) {
          try {
            this.rows?.release([item.id], keep === 'in-doubt');
          } catch (storeErr) {
            this.turnOff(storeErr);
          }
          this.marked.delete(item.id);
          item.inDoubt ||= keep === 'in-doubt';
          if (keep === 'in-doubt')
            this.settleUntil = Math.max(this.settleUntil, Date.now() + this.limits.doubtSettleMs);
          if (this.mode === 'live') this.mode = 'backlog';
          if (own) own.resolve('kept');
          this.ended(item, false);
          return;
        }
        const failure = this.writer.failed(item, e);
        this.remove(item, (removed) => {
          if (!removed) own?.resolve('kept');
          else if (own) own.reject(failure);
          else this.late.failed(item.msg, failure);
          this.ended(item, true);
        });
      },
    );
  }

  private ended(item: OutboxItem<Target>, gone: boolean): void {
    this.inFlight.delete(item.id);
    if (gone) this.pauseMs = 0;
    else if (!this.pauseTimer) this.pause();
    if (this.inFlight.size === 0) this.settled?.();
    this.pump();
  }

  /**
   * The message has its outcome: its row goes first, then `then` delivers the outcome (a kill in
   * between loses that output, and never sends the message twice). A row that could not go (the
   * store closed under a late answer, a full disk) keeps its outcome for the next start, which
   * finds it in doubt: one outcome, later.
   */
  private remove(item: OutboxItem<Target>, then?: (removed: boolean) => void): void {
    this.removals.add(item.id, item.bytes, then);
  }

  private readonly removals = new Removals((ids, bytes) => {
    for (const id of ids) this.marked.delete(id);
    try {
      this.rows?.remove(ids);
    } catch (err) {
      this.turnOff(err);
      return false;
    }
    this.kept = Math.max(0, this.kept - ids.length);
    this.bytes = Math.max(0, this.bytes - bytes);
    this.onKept(this.kept);
    return true;
  }, GATHER_MS);

  /** The backlog, in arrival order, a window at a time, while the server is not known down. */
  private pump(): void {
    if (this.mode !== 'backlog' || this.closing || this.pauseTimer || this.health.state === 'unreachable' || !this.rows)
      return;
    const room = this.limits.window - this.inFlight.size;
    if (room < this.limits.window / 2) return;
    let rows: KeptRow[];
    try {
      rows = this.rows.read(this.cursor, room);
    } catch (err) {
      this.turnOff(err);
      return;
    }
    if (rows.length === 0) {
      if (this.inFlight.size === 0) {
        this.mode = 'live';
        this.cursor = 0;
        this.count();
      }
      return;
    }
    const oldest = Date.now() - this.limits.maxAgeMs;
    for (const row of rows) {
      this.cursor = row.id;
      if (this.inFlight.has(row.id)) continue;
      const item = this.restore(row);
      if (!item) continue;
      if (row.acceptedAt < oldest) {
        this.endKept(item, outboxExpired(row.acceptedAt, this.limits.maxAgeMs));
        continue;
      }
      if (item.inDoubt && !this.writer.canCheck(item)) {
        this.endKept(item, lostEarlier());
        continue;
      }
      // Its lost request may still be running on the server: looked up (and what follows sent) once it cannot be.
      if (item.inDoubt && Date.now() < this.settleUntil) {
        this.cursor = row.id - 1;
        this.waitUntil(this.settleUntil);
        break;
      }
      this.dispatch(item);
    }
    this.writer.flush();
  }

  private restore(row: KeptRow): OutboxItem<Target> | undefined {
    try {
      return itemOf<Target>(row);
    } catch (err) {
      this.late.warn(
        `an outbox message (row ${row.id}) could not be read back and was dropped: ` +
          `${err instanceof Error ? err.message : String(err)}`,
      );
      return void this.remove({ id: row.id, bytes: row.bytes } as OutboxItem<Target>);
    }
  }

  /** A kept message that ends without being sent (expired, or in doubt with no way to find out). */
  private endKept(item: OutboxItem<Target>, err: Error): void {
    this.inFlight.add(item.id);
    const failure = this.writer.failed(item, err);
    this.remove(item, (removed) => {
      if (removed) this.late.failed(item.msg, failure);
      this.ended(item, true);
    });
  }

  /** Kept messages older than the maximum age end now, even while the server stays away. */
  private expire(): void {
    if (this.closing || !this.rows) return;
    let rows: KeptRow[];
    try {
      rows = this.rows.olderThan(Date.now() - this.limits.maxAgeMs, 1000);
    } catch (err) {
      this.turnOff(err);
      return;
    }
    for (const row of rows) {
      if (this.inFlight.has(row.id)) continue;
      const item = this.restore(row);
      if (item) this.endKept(item, outboxExpired(row.acceptedAt, this.limits.maxAgeMs));
    }
  }

  /**
   * A request that may be repeated failed: the backlog waits (for the server, or a back-off) and is read again from its
   * start.
   */
  private pause(): void {
    this.cursor = 0;
    this.pauseMs = Math.min(MAX_PAUSE_MS, this.pauseMs ? this.pauseMs * 2 : 1000);
    this.waitUntil(Date.now() + this.pauseMs);
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

  /** A message sent as without an outbox (the store cannot be written). */
  private direct(item: OutboxItem<Target>): Promise<Accepted> {
    return this.writer.write(item).then(
      () => 'sent' as const,
      (err: unknown) => {
        throw this.writer.failed(item, withoutOutbox(err, this.off.reason));
      },
    );
  }

  private turnOff(err: unknown): void {
    const warning = this.off.turnOff(err);
    if (this.mode !== 'off' && !this.closing) this.late.warn(warning);
    this.mode = 'off';
  }

  /** After a while off, the outbox is tried again (a freed disk). */
  private reopen(): boolean {
    if (!this.rows || this.closing || this.off.waiting) return false;
    try {
      this.count();
    } catch (err) {
      this.turnOff(err);
      return false;
    }
    this.mode = this.kept > 0 ? 'backlog' : 'live';
    this.late.warn('the outbox works again');
    return true;
  }

  private count(): void {
    ({ count: this.kept, bytes: this.bytes } = (this.rows as OutboxRows).usage());
    this.onKept(this.kept);
  }
}
