import { MindsDBError } from '../../client';

/**
 * Micro-batching for streams of small requests: items with the same key are collected until
 * `maxItems` are waiting or `maxWaitMs` passed since the first, then one `flush` call serves them
 * all. Each item carries `weight` units (rows); the flush answers with one result per unit, which
 * are sliced back onto their items in order.
 *
 * Guarantees: every item's promise settles exactly once; results are delivered in the order the
 * items arrived (across batches and keys), even when batches complete out of order. When a batch
 * of several items fails in a way `retryAlone` accepts (one bad row may be to blame: see
 * rowMayBeToBlame), each item is sent again on its own and only the bad ones fail; otherwise a
 * failed batch fails each of its items, whole. No Node-RED in here.
 */

export interface BatchItem<In> {
  input: In;
  /** Units this item contributes to the request (e.g. rows); its share of the answer. */
  weight: number;
}

export type Flush<In, Unit> = (key: string, items: ReadonlyArray<BatchItem<In>>) => Promise<Unit[]>;

interface Pending<In, Unit> {
  item: BatchItem<In>;
  resolve: (units: Unit[]) => void;
  reject: (err: Error) => void;
}

interface Open<In, Unit> {
  key: string;
  entries: Array<Pending<In, Unit>>;
  timer: NodeJS.Timeout;
}

export class MicroBatcher<In, Unit> {
  private open: Open<In, Unit> | undefined;
  /** Deliveries are chained so outputs leave in arrival order. */
  private delivery: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxWaitMs: number,
    private readonly flush: Flush<In, Unit>,
    private readonly onDepth: (depth: number) => void = () => undefined,
    private readonly retryAlone: (err: Error) => boolean = () => false,
  ) {}

  /** Messages collected or waiting for their batch's answer. */
  get depth(): number {
    return this.waiting;
  }

  /** Resolves with this item's share of the answer: `weight` units. */
  add(key: string, input: In, weight: number): Promise<Unit[]> {
    return new Promise<Unit[]>((resolve, reject) => {
      // A different key closes the open batch first, which keeps arrival order simple to honour.
      if (this.open && this.open.key !== key) this.flushOpen();
      if (!this.open) {
        const timer = setTimeout(() => this.flushOpen(), this.maxWaitMs);
        this.open = { key, entries: [], timer };
      }
      this.open.entries.push({ item: { input, weight }, resolve, reject });
      this.waiting++;
      this.onDepth(this.waiting);
      if (this.open.entries.length >= this.maxItems) this.flushOpen();
    });
  }

  /** Sends whatever is collected now (on close, and for msg.flush). */
  flushNow(): void {
    this.flushOpen();
  }

  /**
   * Drops the open batch (msg.reset): nothing of it is sent, and each of its items fails with
   * `reason`, in turn after the batches before it (outcomes stay in arrival order). Batches
   * already sent are not touched. Returns how many items were dropped.
   */
  dropOpen(reason: Error): number {
    const batch = this.open;
    if (!batch) return 0;
    this.open = undefined;
    clearTimeout(batch.timer);
    const { entries } = batch;
    this.delivery = this.delivery.then(() =>
      this.deliver(
        entries,
        entries.map(() => reason),
      ),
    );
    return entries.length;
  }

  private flushOpen(): void {
    const batch = this.open;
    if (!batch) return;
    this.open = undefined;
    clearTimeout(batch.timer);
    const { key, entries } = batch;
    // Start the request now; deliver its results only after every earlier batch delivered.
    const settled = this.send(key, entries).then((units) => this.isolateIfNeeded(key, entries, units));
    this.delivery = this.delivery.then(() => settled).then((outcome) => this.deliver(entries, outcome));
  }

  /** One request for these entries: their units in order, or why they failed. */
  private send(key: string, entries: ReadonlyArray<Pending<In, Unit>>): Promise<Unit[] | Error> {
    let answer: Promise<Unit[]>;
    try {
      answer = this.flush(
        key,
        entries.map((e) => e.item),
      );
    } catch (err) {
      answer = Promise.reject(err);
    }
    const expected = entries.reduce((n, e) => n + e.item.weight, 0);
    return answer.then(
      (units) =>
        Array.isArray(units) && units.length === expected
          ? units
          : new Error(
              `the server answered a batch of ${expected} rows with ${Array.isArray(units) ? units.length : 'no'} rows`,
            ),
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** A batch the server refused: each entry again on its own, so one bad row fails only its message. */
  private async isolateIfNeeded(
    key: string,
    entries: ReadonlyArray<Pending<In, Unit>>,
    outcome: Unit[] | Error,
  ): Promise<Array<Unit[] | Error>> {
    if (!(outcome instanceof Error)) {
      let offset = 0;
      return entries.map((e) => outcome.slice(offset, (offset += e.item.weight)));
    }
    if (entries.length === 1 || !this.retryAlone(outcome)) return entries.map(() => outcome);
    return Promise.all(entries.map((e) => this.send(key, [e])));
  }

  private deliver(entries: ReadonlyArray<Pending<In, Unit>>, outcomes: Array<Unit[] | Error>): void {
    this.waiting -= entries.length;
    this.onDepth(this.waiting);
    entries.forEach((e, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) e.reject(outcome);
      else e.resolve(outcome);
    });
  }
}

/**
 * A batch the server refused in a way one bad row can explain (it answered 400, 422 or 500, or
 * with rows that do not match): each message is sent again on its own, so only the bad ones fail.
 * Never for an overloaded server (429, 502, 503, 504), a network failure or a timeout: the client
 * has already backed off and retried the batch whole where that was safe, and sending every
 * message alone would multiply the load exactly when the server asked for less.
 */
export function rowMayBeToBlame(err: Error): boolean {
  if (!(err instanceof MindsDBError)) return true;
  if (err.kind === 'invalid-response') return true;
  return err.kind === 'http' && (err.status === 400 || err.status === 422 || err.status === 500);
}
