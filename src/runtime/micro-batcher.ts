/**
 * Micro-batching for streams of small requests: items with the same key are collected until
 * `maxItems` are waiting or `maxWaitMs` passed since the first, then one `flush` call serves them
 * all. Each item carries `weight` units (rows); the flush answers with one result per unit, which
 * are sliced back onto their items in order.
 *
 * Guarantees: every item's promise settles exactly once; results are delivered in the order the
 * items arrived (across batches and keys), even when batches complete out of order; a failed
 * batch fails each of its items. No Node-RED in here.
 */
export interface BatchItem<In> {
  input: In;
  /** Units this item contributes to the request (e.g. rows); its share of the answer. */
  weight: number;
}

export type Flush<In, Unit> = (key: string, items: ReadonlyArray<BatchItem<In>>) => Promise<Unit[]>;
export type Shape<In, Unit, Out> = (item: BatchItem<In>, units: Unit[]) => Out;

interface Pending<In, Out> {
  item: BatchItem<In>;
  resolve: (out: Out) => void;
  reject: (err: Error) => void;
}

interface Open<In, Out> {
  key: string;
  entries: Array<Pending<In, Out>>;
  timer: NodeJS.Timeout;
}

export class MicroBatcher<In, Unit, Out> {
  private open: Open<In, Out> | undefined;
  /** Deliveries are chained so outputs leave in arrival order. */
  private delivery: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly maxItems: number,
    private readonly maxWaitMs: number,
    private readonly flush: Flush<In, Unit>,
    private readonly shape: Shape<In, Unit, Out>,
    private readonly onDepth: (depth: number) => void = () => undefined,
  ) {}

  /** Messages collected or waiting for their batch's answer. */
  get depth(): number { return this.waiting; }

  add(key: string, input: In, weight: number): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
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

  /** Sends whatever is collected now (used on close). */
  flushNow(): void {
    this.flushOpen();
  }

  private flushOpen(): void {
    const batch = this.open;
    if (!batch) return;
    this.open = undefined;
    clearTimeout(batch.timer);
    const { key, entries } = batch;
    // Start the request now; deliver its results only after every earlier batch delivered.
    let answer: Promise<Unit[]>;
    try {
      answer = this.flush(key, entries.map((e) => e.item));
    } catch (err) {
      answer = Promise.reject(err);
    }
    const settled = answer.then(
      (units) => ({ units, error: undefined as Error | undefined }),
      (err: unknown) => ({ units: undefined as Unit[] | undefined, error: err instanceof Error ? err : new Error(String(err)) }),
    );
    this.delivery = this.delivery.then(() => settled).then(({ units, error }) => this.deliver(entries, units, error));
  }

  private deliver(entries: Array<Pending<In, Out>>, units: Unit[] | undefined, error: Error | undefined): void {
    this.waiting -= entries.length;
    this.onDepth(this.waiting);
    const expected = entries.reduce((n, e) => n + e.item.weight, 0);
    if (!error && (!units || units.length !== expected)) {
      error = new Error(`the server answered a batch of ${expected} rows with ${units ? units.length : 'no'} rows`);
    }
    if (error) {
      for (const e of entries) e.reject(error);
      return;
    }
    let offset = 0;
    for (const e of entries) {
      const share = (units as Unit[]).slice(offset, offset + e.item.weight);
      offset += e.item.weight;
      try {
        e.resolve(this.shape(e.item, share));
      } catch (err) {
        e.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
