import type { Node, NodeStatus } from './red';

/**
 * Sets a node's status at most once per `intervalMs`, always ending on the latest state. At IoT
 * rates a status update per message would flood the editor's websocket (and cost time per msg).
 */
export class ThrottledStatus {
  private last = 0;
  private pending: NodeStatus | undefined;
  private timer: NodeJS.Timeout | undefined;
  private current: NodeStatus | undefined;

  constructor(private readonly node: Node, private readonly intervalMs = 500) {}

  set(status: NodeStatus): void {
    const now = Date.now();
    if (this.timer === undefined && now - this.last >= this.intervalMs) {
      this.write(status, now);
      return;
    }
    this.pending = status;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        const p = this.pending;
        this.pending = undefined;
        if (p) this.write(p, Date.now());
      }, Math.max(0, this.intervalMs - (now - this.last)));
      this.timer.unref?.();
    }
  }

  /** Writes now, bypassing the throttle (errors, close). */
  now(status: NodeStatus): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    this.pending = undefined;
    this.write(status, Date.now());
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }

  private write(status: NodeStatus, now: number): void {
    this.last = now;
    const c = this.current;
    if (c && c.fill === status.fill && c.shape === status.shape && c.text === status.text) return;
    this.current = status;
    this.node.status(status);
  }
}
