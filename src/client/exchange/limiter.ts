import { MindsDBError } from '../shared';
import { timeoutError, type ExchangeDescription } from './network-errors';

/**
 * A request waiting for a slot: a job started with `submit`, or (for `acquire`) a promise that is
 * handed the slot itself; and its deadline. No closure per waiter.
 */
interface Waiter {
  /** A job started with `submit`: told when its slot is there, or why it will not come. */
  job: SlotJob | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  deadlineAt: number;
  /** For the text of its timeout error. */
  desc: WaitDescription;
  /** Failed while waiting (its deadline passed); skipped when its turn comes. */
  gone: boolean;
}

/** What a waiter is, for its timeout error; `expired` words that error itself. */
export type WaitDescription = ExchangeDescription & { expired?: () => MindsDBError };

/**
 * A request that waits for a slot without a promise (the whole-answer path of every message):
 * `start` runs once a slot is its own, and the job gives it back with `RequestLimiter.release()`
 * exactly once; `refused` runs instead when no slot will come (queue full, deadline passed while
 * waiting, closed).
 */
export interface SlotJob {
  start(): void;
  refused(err: MindsDBError): void;
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Bounds the requests in flight to one server, with a bounded waiting line behind them. A message
 * that finds the line full fails at once with a "queue full" error, so a burst cannot grow memory
 * without limit; one whose deadline passes while it waits fails then with a timeout. FIFO:
 * requests start in the order they arrived, except a paused stream taking its slot back, which
 * goes first (it already holds its socket and was admitted earlier).
 *
 * A slot is held only while an exchange is under way (see docs/architecture.md): never while a
 * stream waits on the flow (a msg.tick), which gives its slot back (`acquire` hands out a slot to
 * be given back and taken again).
 */
export class RequestLimiter {
  private active = 0;
  private readonly waiting: Array<Waiter | undefined> = [];
  private head = 0;
  private expired = 0;
  private closed = false;
  /** One timer for the earliest deadline among the waiters, armed only while some wait. */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxQueued: number,
    private readonly what = 'requests',
  ) {}

  get inFlight(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length - this.head - this.expired;
  }

  /**
   * Starts `job` now if a slot is free (synchronously), else when one comes free, in turn; or
   * refuses it (queue full, its deadline passed while it waited, closed). No promise and no closure
   * per request: this is what every message's whole answer waits in.
   */
  submit(job: SlotJob, deadlineAt: number, desc: WaitDescription): void {
    if (this.closed) {
      job.refused(closedError());
      return;
    }
    if (this.active < this.maxInFlight) {
      this.active++;
      job.start();
      return;
    }
    if (this.queued >= this.maxQueued) {
      job.refused(this.queueFull());
      return;
    }
    this.enqueue({ job, resolve: ignore, reject: ignore, deadlineAt, desc, gone: false }, false);
  }

  /** Gives back the slot of a job started by `submit` (once per job), and hands it to the next waiter. */
  release(): void {
    this.active--;
    const next = this.next();
    if (!next) return;
    this.active++;
    if (next.job) next.job.start();
    else next.resolve(this.releaser());
  }

  /**
   * A slot held until the returned function is called (a streamed answer, read over many calls).
   * `first`: ahead of every waiter (a paused stream taking its slot back).
   */
  acquire(deadlineAt: number, desc: WaitDescription, first = false): Promise<ReleaseSlot> {
    if (this.closed) return Promise.reject(closedError());
    if (this.active < this.maxInFlight) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return this.wait(deadlineAt, desc, first) as Promise<ReleaseSlot>;
  }

  /** Fails every waiting request; requests in flight finish on their own. */
  close(): void {
    this.closed = true;
    const err = new MindsDBError('the MindsDB server connection was closed (redeploy) before the request was sent', {
      kind: 'closed',
    });
    for (let i = this.head; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      if (w && !w.gone) fail(w, err);
    }
    this.waiting.length = 0;
    this.head = 0;
    this.expired = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private wait(deadlineAt: number, desc: WaitDescription, first: boolean): Promise<unknown> {
    if (!first && this.queued >= this.maxQueued) return Promise.reject(this.queueFull());
    return new Promise((resolve, reject) => {
      this.enqueue({ job: undefined, resolve, reject, deadlineAt, desc, gone: false }, first);
    });
  }

  private queueFull(): MindsDBError {
    return new MindsDBError(
      `too many ${this.what} waiting for the MindsDB server (queue limit ${this.maxQueued}); slow the flow down or ` +
        `raise the limit`,
      { kind: 'queue-full' },
    );
  }

  /** A deadline already past fails when the timer fires (at once): no clock read on this path. */
  private enqueue(w: Waiter, first: boolean): void {
    if (first && this.head > 0) this.waiting[--this.head] = w;
    else if (first) this.waiting.unshift(w);
    else this.waiting.push(w);
    if (w.deadlineAt < this.timerAt) this.arm(w.deadlineAt);
  }

  private releaser(): ReleaseSlot {
    let held = true;
    return () => {
      if (held) {
        held = false;
        this.release();
      }
    };
  }

  /** The next waiter still waiting, taken off the line. */
  private next(): Waiter | undefined {
    while (this.head < this.waiting.length) {
      const w = this.waiting[this.head];
      this.waiting[this.head++] = undefined;
      // Compact now and then so the array does not grow with every request ever queued.
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      if (!w) continue;
      if (w.gone) {
        this.expired--;
        continue;
      }
      return w;
    }
    return undefined;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
    // A waiter always waits behind an exchange in flight, whose own deadline keeps the process up.
    this.timer.unref?.();
  }

  /** Fails every waiter whose deadline passed, and arms the timer for the next deadline. */
  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (let i = this.head; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      if (!w || w.gone) continue;
      if (w.deadlineAt <= now) {
        w.gone = true;
        this.expired++;
        fail(w, w.desc.expired ? w.desc.expired() : timeoutError(w.desc));
      } else if (w.deadlineAt < next) {
        next = w.deadlineAt;
      }
    }
    if (next < Infinity) this.arm(next);
  }
}

function ignore(): void {
  /* a job is told through its own methods */
}

function fail(w: Waiter, err: MindsDBError): void {
  if (w.job) w.job.refused(err);
  else w.reject(err);
}

function closedError(): MindsDBError {
  return new MindsDBError('the MindsDB server connection is closed', { kind: 'closed' });
}
