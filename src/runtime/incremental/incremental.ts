import { incrementalQuery, inputError, type IncrementalColumns, type Position } from '../../client';
import type { PositionLease, PositionRows, StoredPosition, StoreLease } from '../../store';
import { leaseNodeStore } from '../node/store';
import type { Node, NodeAPI, NodeStatus } from '../node/red';
import type { HealthRing } from '../status/health-ring';
import type { StatusTexts } from '../status/status-texts';
import type { RowGate } from '../sql-answers';
import { positionGate } from './position-gate';
import { keptFor, positionAfter, positionOf, resetPosition, shown, storedOf } from './position';

/**
 * Incremental mode of the sql and view nodes ("new rows since the last run"): each run reads only
 * the rows after the last (watermark, key) this node sent on, in that order
 * (client/shared/incremental-sql.ts builds the statement). The position is kept per node in the
 * node's state store (docs/state-store.md), written before the rows leave the node: a row is
 * handed to the flow once, across restarts and kill -9 (what the flow does with it after that is
 * Node-RED's, in memory). Runs of one node take turns: two at once would read the same rows; with a
 * shared store, runs on other copies of the flows too (the position's lease: a run takes it first,
 * and reads from where the other copy's run left it).
 */

/** A SELECT (and its own params) as the statement that reads its rows after the position. */
export type Statement = (
  select: string,
  params?: Record<string, unknown>,
) => { query: string; params?: Record<string, unknown> };

/** The status texts the mode shows: where the node stands, and what the last run sent. */
export type IncrementalStatus = 'start' | 'position' | 'newRows';

/** How long a run waits for another copy's run of the same node, unless the node says (msg.timeout). */
const DEFAULT_WAIT_MS = 60_000;

export class IncrementalMode {
  private position: Position | undefined;
  private rowsSent = 0;
  /** The runs of this node (and its resets), one after another. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly lease: StoreLease | undefined;
  private opening: Promise<PositionRows> | undefined;
  private warned = false;
  /** Why the node cannot run incrementally (every run fails with it): a refusal, or a store that cannot be used. */
  private readonly failure: Error | undefined;
  /** Resolves once the kept position was read at start (the status then says where the node stands). */
  readonly ready: Promise<void>;

  /**
   * `acknowledged`: the node sends parts under flow control, so a part's position is kept when its
   * msg.tick comes back, not when it is sent (at least once instead of at most once across a kill).
   * `refusal`: why this node cannot run incrementally as configured (every run fails with it).
   */
  constructor(
    RED: NodeAPI,
    private readonly node: Node,
    private readonly columns: IncrementalColumns,
    private readonly texts: StatusTexts<IncrementalStatus>,
    private readonly acknowledged: boolean,
    refusal?: string,
  ) {
    if (!columns.watermark.trim() || !columns.key.trim())
      refusal ??=
        'incremental mode needs a watermark column (a timestamp or a growing number) and a key column (a unique id, ' +
        'to order the rows that share a watermark): set both in the node';
    if (refusal) {
      this.failure = inputError(refusal);
      this.ready = Promise.resolve();
      return;
    }
    try {
      this.lease = leaseNodeStore(RED, node);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      node.error(`incremental mode cannot keep its position: ${this.failure.message}`);
      this.ready = Promise.resolve();
      return;
    }
    this.ready = this.rows()
      .then((rows) => rows.read())
      .then((stored) => this.take(stored))
      .catch((err: unknown) => {
        node.error(`incremental mode cannot read its position: ${err instanceof Error ? err.message : String(err)}`);
      });
  }

  /** The status that says where the node stands (the red ring of why it cannot, when the store cannot be used). */
  status(): NodeStatus {
    if (this.failure) return this.texts.error(this.failure);
    return this.position ? this.texts.ok('position', { position: shown(this.position) }) : this.texts.ok('start');
  }

  /** Shows a shared store's health on the node's ring. */
  watchStore(ring: HealthRing): void {
    if (this.lease?.store.shared) ring.watchStore(this.lease.store);
  }

  /**
   * Runs `read` after the runs before it, holding the position's lease (waiting up to `waitMs` for
   * another copy's run), with `statement` (a SELECT, and the user's own params, into the statement
   * that reads its rows after the position) and the gate that moves the position as rows leave.
   */
  run(read: (statement: Statement, gate: RowGate) => Promise<void>, waitMs = DEFAULT_WAIT_MS): Promise<void> {
    return this.inTurn(waitMs, (lease) =>
      read(
        (select, params) => incrementalQuery(select, this.columns, this.position, params),
        positionGate(
          {
            positionAfter: (columns, rows) => positionAfter(this.columns, columns, rows),
            keep: (position, rows) => this.keep(lease, position, rows),
            answered: (rows, last) =>
              rows === 0 ? this.status() : this.texts.ok('newRows', { count: rows, position: shown(last as Position) }),
          },
          this.position,
          this.acknowledged,
        ),
      ),
    );
  }

  /**
   * msg.reset: back to the start (true), after a watermark (a text or a number: every row with a
   * later one), or after a row ({watermark, key}). A value it cannot read throws at once; the new
   * position is kept (after the run under way, which the reset stops) before the status says so.
   */
  reset(value: unknown): Promise<NodeStatus> {
    if (this.failure) throw this.failure;
    const position = resetPosition(value);
    return this.inTurn(DEFAULT_WAIT_MS, async (lease) => {
      if (position) await lease.write(storedOf(this.columns, position, 0));
      else await lease.clear();
      this.position = position;
      this.rowsSent = 0;
      return this.status();
    });
  }

  /** The node is closing: its last run may still write; then its lease on the store goes. */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.turn,
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.lease?.release();
  }

  /** `fn` after the turns before it, with the position's lease, taken from where the last holder left it. */
  private inTurn<T>(waitMs: number, fn: (lease: PositionLease) => Promise<T>): Promise<T> {
    const mine = this.turn.then(async () => {
      if (this.failure) throw this.failure;
      const lease = await (await this.rows()).acquire(waitMs);
      try {
        if (lease.position && !keptFor(lease.position, this.columns)) await lease.clear();
        this.take(lease.position);
        return await fn(lease);
      } finally {
        await lease.release();
      }
    });
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /** Keeps a position in the store, then in memory. */
  private async keep(lease: PositionLease, position: Position, rows: number): Promise<void> {
    await lease.write(storedOf(this.columns, position, this.rowsSent + rows));
    this.position = position;
    this.rowsSent += rows;
  }

  /** A kept position as the node's own, unless it was kept for other columns (then: the first row, said once). */
  private take(stored: StoredPosition | undefined): void {
    if (stored && !keptFor(stored, this.columns)) {
      if (!this.warned)
        this.node.warn(
          `the kept position was for watermark "${stored.watermarkColumn}" and key "${stored.keyColumn}", not ` +
            `"${this.columns.watermark}" and "${this.columns.key}": starting from the first row`,
        );
      this.warned = true;
      stored = undefined;
    }
    this.position = stored ? positionOf(stored) : undefined;
    this.rowsSent = stored?.rowsSent ?? 0;
  }

  /** The node's positions once the store opened them (tried again at the next run when it could not). */
  private rows(): Promise<PositionRows> {
    const lease = this.lease as StoreLease;
    this.opening ??= lease.store.positions(this.node.id).catch((err: unknown) => {
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }
}
