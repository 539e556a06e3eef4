import type { Kept, OutboxRows } from '../../store';
import type { Msg } from '../node/red';
import type { OutboxHost, Resolvers } from './outbox-host';
import { KEEP_PER_SHARED_COMMIT, KEEP_PER_TURN, notKept, outboxFull } from './outbox-policy';
import type { OutboxItem } from './outbox-writer';

/** A message waiting to be kept: its item, its JSON, the id the store looks it up by, its input's promise. */
export interface Waiting<T> extends Resolvers {
  item: OutboxItem<T>;
  json: string;
  uid: string;
}

/**
 * The keeping of what a node's outbox takes: every message that arrives is written to the store
 * before anything else happens to it, all that arrived in one turn of the event loop in one commit
 * (KEEP_PER_TURN of it: a burst goes a slice per turn, so its first requests leave while the rest
 * are written). Commits go one after another, so rows keep the order messages arrived in. A
 * message the store cannot keep ends at Catch, unsent (never sent unkept).
 */
export class Keeping<T> {
  private readonly waiting: Array<Waiting<T>> = [];
  private scheduled = false;
  private draining = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly host: OutboxHost<T>) {}

  add(w: Waiting<T>): void {
    this.waiting.push(w);
    this.schedule();
  }

  /** Keeps what is waiting now, all of it (the node is closing); resolves once every commit under way ended. */
  flush(): Promise<void> {
    const batch = this.waiting.splice(0);
    if (batch.length > 0) this.chain = this.chain.then(() => this.keepOrFail(batch));
    return this.chain;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.next());
  }

  private next(): void {
    this.scheduled = false;
    if (this.host.opened?.shared) {
      // A shared store's commit does not hold the event loop: each takes all that waits (up to a bound) once
      // the one before it answered, so a burst goes in a few round trips, not one per turn.
      if (this.draining) return;
      this.draining = true;
      this.chain = this.chain.then(async () => {
        while (this.waiting.length > 0) await this.keepOrFail(this.waiting.splice(0, KEEP_PER_SHARED_COMMIT));
        this.draining = false;
      });
      return;
    }
    const batch = this.waiting.splice(0, KEEP_PER_TURN);
    if (this.waiting.length > 0) this.schedule();
    if (batch.length > 0) this.chain = this.chain.then(() => this.keepOrFail(batch));
  }

  /** Keeps a batch; whatever goes wrong, each of its messages still gets one outcome, and the next batch its turn. */
  private async keepOrFail(batch: Array<Waiting<T>>): Promise<void> {
    try {
      await this.keep(batch);
    } catch (err) {
      for (const w of batch) w.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async keep(batch: Array<Waiting<T>>): Promise<void> {
    const host = this.host;
    let rows: OutboxRows;
    try {
      rows = await host.rows();
    } catch (err) {
      for (const w of batch) w.reject(host.writer.failed(w.item, notKept(err)));
      return;
    }
    const fits: Array<Waiting<T>> = [];
    let bytes = host.bytes;
    for (const w of batch) {
      if (bytes + w.item.bytes > host.limits.maxBytes) {
        w.reject(host.writer.failed(w.item, outboxFull(w.item.bytes, bytes, host.limits.maxBytes, host.kept)));
        continue;
      }
      bytes += w.item.bytes;
      fits.push(w);
    }
    if (fits.length === 0) return;
    // Sent at once (live): written as in a request already, which saves a commit per batch; a kill
    // before the request then leaves them in doubt, which costs a lookup, never a duplicate.
    const live = host.mode === 'live' && !host.closing && !host.serverDown();
    let kept: Kept[];
    try {
      kept = await rows.insert(
        fits.map((w) => ({ uid: w.uid, acceptedAt: w.item.acceptedAt, msg: w.json, bytes: w.item.bytes })),
        live,
      );
    } catch (err) {
      for (const w of fits) w.reject(host.writer.failed(w.item, notKept(err)));
      return;
    }
    host.bytes = Math.max(host.bytes, 0) + fits.reduce((n, w) => n + w.item.bytes, 0);
    host.kept += fits.length;
    if (!live && host.mode === 'live') host.mode = 'backlog';
    fits.forEach((w, i) => {
      const k = kept[i];
      // Found held by another copy (a lookup after a lost answer, this copy's lease had run out): its outcome.
      if (k.taken) {
        w.resolve('kept');
        return;
      }
      w.item.id = k.id;
      w.item.epoch = k.epoch;
      if (live) host.dispatch(w.item, w);
      else w.resolve('kept');
    });
    host.counted();
    host.pump();
  }
}

/** A message of a node's input as the outbox keeps it, before it has a row. */
export function newItem<T>(msg: Msg, target: T): OutboxItem<T> {
  return { id: 0, epoch: 0, msg, target, inDoubt: false, acceptedAt: Date.now(), bytes: 0, restored: false };
}
