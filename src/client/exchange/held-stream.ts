import { MindsDBError } from '../shared';
import type { StreamedResponse } from './http-exchange';
import type { ReleaseSlot, RequestLimiter } from './limiter';
import type { ExchangeDescription } from './network-errors';

/** A slot as a streamed answer's reader sees it (SqlResultStream's StreamHold). */
export interface StreamHold {
  park(): void;
  unpark(waitMs: number): Promise<void>;
  release(): void;
}

/**
 * The slot of an opened stream. A parkable stream (one that may wait on the flow) gives its slot
 * back while it waits (`park`) and takes one again before it reads on (`unpark`, ahead of every
 * other waiter, within the reader's idle limit); its socket stays open and unread meanwhile,
 * counted by its parking place instead (at most maxInFlight such per server). Any other stream
 * keeps its slot until released. Chosen over reading the rest into a buffer and closing the socket:
 * a buffer bounded by Max response holds up to that much per waiting stream, and a larger result
 * would still have to pause its socket (bench/README.md, "The exchange policy on the hot path").
 */
export class HeldStream implements StreamHold {
  private released = false;

  constructor(
    private readonly slots: RequestLimiter,
    private slot: ReleaseSlot | undefined,
    private readonly place: ReleaseSlot | undefined,
    private readonly res: StreamedResponse,
    private readonly desc: ExchangeDescription,
  ) {}

  park(): void {
    if (!this.place || !this.slot) return;
    this.slot();
    this.slot = undefined;
  }

  async unpark(waitMs: number): Promise<void> {
    if (this.slot || this.released) return;
    const { method, path } = this.desc;
    const slot = await this.slots.acquire(
      Date.now() + waitMs,
      {
        method,
        path,
        timeoutMs: waitMs,
        expired: () =>
          new MindsDBError(
            `no connection slot came free within ${waitMs} ms to read on the answer to ${method} ${path}; the rest ` +
              `of the result was dropped`,
            { kind: 'timeout', code: 'ETIMEDOUT', method, path },
          ),
      },
      true,
    );
    if (this.released) slot();
    else this.slot = slot;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.res.release();
    this.slot?.();
    this.slot = undefined;
    this.place?.();
  }
}
