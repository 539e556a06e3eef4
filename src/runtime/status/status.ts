import type { Node, NodeStatus } from '../node/red';

/**
 * Sets a node's status at most once per `intervalMs`, always ending on the latest state. At IoT
 * rates a status update per message would flood the editor's websocket (and cost time per msg).
 */
export class ThrottledStatus {
  private last = 0;
  private pending: NodeStatus | undefined;
  private timer: NodeJS.Timeout | undefined;
  private current: NodeStatus | undefined;
  /** A status made only when written (`setWith`): nothing is built for the updates the throttle drops. */
  private make: ((n: number) => NodeStatus) | undefined;
  private arg = 0;

  constructor(
    private readonly node: Node,
    private readonly intervalMs = 500,
  ) {}

  set(status: NodeStatus): void {
    this.make = undefined;
    const now = Date.now();
    if (this.timer === undefined && now - this.last >= this.intervalMs) {
      this.write(status, now);
      return;
    }
    this.pending = status;
    this.arm(now);
  }

  /**
   * `set(make(n))`, with the status made only if it is written (per-message updates at IoT rates:
   * most are dropped by the throttle, and building their text was a cost of every message).
   */
  setWith(make: (n: number) => NodeStatus, n: number): void {
    const now = Date.now();
    if (this.timer === undefined && now - this.last >= this.intervalMs) {
      this.make = undefined;
      this.write(make(n), now);
      return;
    }
    this.pending = undefined;
    this.make = make;
    this.arg = n;
    this.arm(now);
  }

  private arm(now: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const p = this.pending ?? this.make?.(this.arg);
        this.pending = undefined;
        this.make = undefined;
        if (p) this.write(p, Date.now());
      },
      Math.max(0, this.intervalMs - (now - this.last)),
    );
    this.timer.unref?.();
  }

  /** Writes now, bypassing the throttle (errors, close). */
  now(status: NodeStatus): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.pending = undefined;
    this.make = undefined;
    this.write(status, Date.now());
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    this.make = undefined;
  }

  private write(status: NodeStatus, now: number): void {
    this.last = now;
    const c = this.current;
    if (c && c.fill === status.fill && c.shape === status.shape && c.text === status.text) return;
    this.current = status;
    this.node.status(status);
  }
}
