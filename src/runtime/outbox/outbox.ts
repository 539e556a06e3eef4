import { randomUUID } from 'node:crypto';
import type { HealthView } from '../../client';
import { StoreError, type Held, type OutboxRows, type StoreLease } from '../../store';
import type { Msg } from '../node/red';
import { Backlog } from './outbox-backlog';
import type { Accepted, OutboxHost, Resolvers } from './outbox-host';
import { Keeping, newItem } from './outbox-keep';
import { GATHER_MS, keepOf, messageJson, notKept, TakenOver } from './outbox-policy';
import type { LateOutcome, OutboxItem, OutboxLimits, OutboxWriter } from './outbox-writer';
import { Removals } from './removals';

const NONE: ReadonlySet<number> = new Set();

/**
 * One node's outbox (docs/outbox.md): every message the node takes is kept in the store before
 * anything else happens to it (outbox-keep.ts), then sent while the server takes writes ("live"),
 * or kept while it does not ("backlog": its input ends, its outcome comes later) and sent in
 * arrival order once it is back (outbox-backlog.ts), micro-batched by the writer. A row goes only
 * once its message has its outcome. A message the store cannot keep ends at Catch, unsent. With a
 * shared store, a row another copy took over (this copy's lease ran out) is left to that copy:
 * no request, no output, no Catch from this one. Bounds: `maxBytes` and `maxAgeMs` per node.
 */
export class Outbox<Target> implements OutboxHost<Target> {
  mode: 'live' | 'backlog' = 'backlog';
  closing = false;
  kept = 0;
  bytes = 0;
  settleUntil = 0;
  readonly inFlight = new Set<number>();
  opened: OutboxRows | undefined;
  private opening: Promise<OutboxRows> | undefined;
  private readonly failure: StoreError | undefined;
  private health: HealthView = { state: 'unknown' };
  private readonly keeping = new Keeping<Target>(this);
  private readonly backlog = new Backlog<Target>(this);
  /** Rows marked as in a request (in the store): a batch sent again alone is not marked again. */
  private readonly marked = new Set<number>();
  private settled: (() => void) | undefined;
  /** The backlog changed (for the node's status). */
  onKept: (kept: number) => void = () => undefined;

  constructor(
    private readonly lease: StoreLease | StoreError,
    private readonly node: string,
    readonly writer: OutboxWriter<Target>,
    readonly late: LateOutcome,
    readonly limits: OutboxLimits,
  ) {
    if (lease instanceof StoreError) this.failure = lease;
    else void this.rows().catch(() => undefined);
  }

  get backlogCount(): number {
    return this.kept;
  }

  /** The server's health changed: a backlog is sent once it is not known down. */
  healthChanged(view: HealthView): void {
    this.health = view;
    if (view.state !== 'unreachable') this.backlog.resume();
  }

  /** The store is back (a shared store that was away): opened if it was not, and the backlog goes on. */
  storeBack(): void {
    void this.rows()
      .then(() => this.backlog.resume())
      .catch(() => undefined);
  }

  serverDown(): boolean {
    return this.health.state === 'unreachable';
  }

  rows(): Promise<OutboxRows> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.opened) return Promise.resolve(this.opened);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * Marks rows as in a request that may store them (the writer calls it right before its request);
   * resolves with the ids another copy holds now: the writer sends none of those (TakenOver).
   */
  async sending(items: ReadonlyArray<OutboxItem<Target>>): Promise<ReadonlySet<number>> {
    const held = items.filter((i) => i.id > 0 && !this.marked.has(i.id)).map((i) => ({ id: i.id, epoch: i.epoch }));
    if (held.length === 0 || !this.opened) return NONE;
    for (const h of held) this.marked.add(h.id);
    try {
      return await this.opened.markSending(held);
    } catch (err) {
      for (const h of held) this.marked.delete(h.id);
      throw err;
    }
  }

  /**
   * A message from the node's input, with what the node resolved for it. Resolves 'sent' once it
   * is stored (the caller sends the output) or 'kept' once it is in the store to be sent later (the
   * caller ends it with done(): its output or error comes later); rejects with why it failed.
   */
  accept(msg: Msg, target: Target): Promise<Accepted> {
    const item = newItem(msg, target);
    if (this.failure) return Promise.reject(this.writer.failed(item, notKept(this.failure)));
    const json = messageJson(msg, target);
    item.bytes = Buffer.byteLength(json);
    const uid = (this.lease as StoreLease).store.shared ? randomUUID() : '';
    return new Promise<Accepted>((resolve, reject) => this.keeping.add({ item, json, uid, resolve, reject }));
  }

  /** Stops sending; what is waiting is kept now; resolves once every request under way ended (at most `graceMs`). */
  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    this.backlog.stop();
    await this.keeping.flush();
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

  pump(): void {
    this.backlog.pump();
  }

  counted(): void {
    this.onKept(this.kept);
  }

  dispatch(item: OutboxItem<Target>, own?: Resolvers): void {
    this.inFlight.add(item.id);
    // A live message (its input's promise with it) was written as in a request already: not marked again.
    if (own) this.marked.add(item.id);
    let written: Promise<void>;
    try {
      written = this.writer.write(item);
    } catch (err) {
      written = Promise.reject(err);
    }
    written.then(
      () =>
        this.removeItem(item, (removed) => {
          if (!removed) own?.resolve('kept');
          else if (own) own.resolve('sent');
          else this.late.sent(item.msg);
        }),
      (err: unknown) => this.failedWrite(item, err instanceof Error ? err : new Error(String(err)), own),
    );
  }

  endKept(item: OutboxItem<Target>, err: Error): void {
    this.inFlight.add(item.id);
    const failure = this.writer.failed(item, err);
    this.removeItem(item, (removed) => {
      if (removed) this.late.failed(item.msg, failure);
    });
  }

  remove(held: Held, bytes: number, then?: (removed: boolean) => void): void {
    this.removals.add(held, bytes, then);
  }

  private failedWrite(item: OutboxItem<Target>, e: Error, own?: Resolvers): void {
    this.marked.delete(item.id);
    // Another copy holds the row now (its outcome), or the store could not mark it (it stays, sent later).
    if (e instanceof TakenOver || e instanceof StoreError) {
      own?.resolve('kept');
      this.ended(item, e instanceof TakenOver);
      return;
    }
    const keep = keepOf(e);
    if (keep === 'retry' || (keep === 'in-doubt' && this.writer.canCheck(item))) {
      this.opened?.release([{ id: item.id, epoch: item.epoch }], keep === 'in-doubt').catch(() => undefined);
      item.inDoubt ||= keep === 'in-doubt';
      if (keep === 'in-doubt') this.settleUntil = Math.max(this.settleUntil, Date.now() + this.limits.doubtSettleMs);
      if (this.mode === 'live') this.mode = 'backlog';
      own?.resolve('kept');
      this.ended(item, false);
      return;
    }
    const failure = this.writer.failed(item, e);
    this.removeItem(item, (removed) => {
      if (!removed) own?.resolve('kept');
      else if (own) own.reject(failure);
      else this.late.failed(item.msg, failure);
    });
  }

  /**
   * The message has its outcome: its row goes first, then `deliver` says it (a kill in between
   * loses that output, never sends the message twice). A row that could not go (another copy holds
   * it now, or the store failed) keeps its outcome from leaving here: the copy that holds it, or the
   * next start that finds it in doubt, gives it.
   */
  private removeItem(item: OutboxItem<Target>, deliver: (removed: boolean) => void): void {
    this.remove({ id: item.id, epoch: item.epoch }, item.bytes, (removed) => {
      deliver(removed);
      this.ended(item, true);
    });
  }

  private ended(item: OutboxItem<Target>, gone: boolean): void {
    this.inFlight.delete(item.id);
    if (gone) this.backlog.succeeded();
    else this.backlog.failed();
    if (this.inFlight.size === 0) this.settled?.();
    this.pump();
  }

  private readonly removals = new Removals(async (held, bytes) => {
    for (const h of held) this.marked.delete(h.id);
    if (!this.opened) return undefined;
    try {
      const kept = await this.opened.remove(held);
      this.kept = Math.max(0, this.kept - (held.length - kept.size));
      this.bytes = Math.max(0, this.bytes - bytes);
      this.counted();
      return kept;
    } catch {
      return undefined;
    }
  }, GATHER_MS);

  /** The node's rows: rows a request was under way for when it stopped are in doubt; the backlog counted. */
  private async open(): Promise<OutboxRows> {
    const rows = await (this.lease as StoreLease).store.outbox(this.node);
    if ((await rows.recover()) > 0) this.settleUntil = Date.now() + this.limits.doubtSettleMs;
    ({ count: this.kept, bytes: this.bytes } = await rows.usage());
    if (this.opened) return this.opened;
    this.opened = rows;
    this.mode = this.kept > 0 ? 'backlog' : 'live';
    this.counted();
    this.backlog.start(rows.takeoverPollMs);
    this.pump();
    return rows;
  }
}
