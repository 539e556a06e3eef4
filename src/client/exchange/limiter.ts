import { MindsDBError } from '../shared';

/** A request waiting for a slot: the task and its promise's settle functions (no closure per waiter). */
interface Waiter {
  task: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Bounds the requests in flight to one server, with a bounded waiting line behind them. A message
 * that finds the line full fails at once with a "queue full" error, so a burst cannot grow memory
 * without limit. FIFO: requests start in the order they arrived.
 */
export class RequestLimiter {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private head = 0;
  private closed = false;

  constructor(private readonly maxInFlight: number, private readonly maxQueued: number) {}

  get inFlight(): number { return this.active; }
  get queued(): number { return this.waiting.length - this.head; }

  /** Runs `task` when a slot is free. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(new MindsDBError('the MindsDB server connection is closed', { kind: 'closed' }));
    }
    if (this.active < this.maxInFlight) return this.execute(task);
    if (this.queued >= this.maxQueued) {
      return Promise.reject(new MindsDBError(
        `too many requests waiting for the MindsDB server (queue limit ${this.maxQueued}); slow the flow down or raise the limit`,
        { kind: 'queue-full' }));
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ task, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Fails every waiting request; requests in flight finish on their own. */
  close(): void {
    this.closed = true;
    const err = new MindsDBError('the MindsDB server connection was closed (redeploy) before the request was sent', { kind: 'closed' });
    while (this.head < this.waiting.length) this.waiting[this.head++].reject(err);
    this.waiting.length = 0;
    this.head = 0;
  }

  private execute<T>(task: () => Promise<T>): Promise<T> {
    this.active++;
    let p: Promise<T>;
    try { p = task(); } catch (err) { p = Promise.reject(err); }
    // then() rather than finally(): finally costs two more promise jobs per request on the hot path.
    return p.then(
      (value) => { this.release(); return value; },
      (err: unknown) => { this.release(); throw err; },
    );
  }

  private release(): void {
    this.active--;
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head];
      this.waiting[this.head++] = undefined as unknown as Waiter;
      // Compact now and then so the array does not grow with every request ever queued.
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      this.execute(next.task).then(next.resolve, next.reject);
    }
  }
}
