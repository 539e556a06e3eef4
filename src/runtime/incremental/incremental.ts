import {
  incrementalQuery,
  inputError,
  isPlainObject,
  matchName,
  MindsDBError,
  positionValue,
  type IncrementalColumns,
  type Position,
} from '../../client';
import type { StateStore, StoreLease } from '../../store';
import { leaseNodeStore } from '../node/store';
import type { Node, NodeAPI, NodeStatus } from '../node/red';
import type { StatusTexts } from '../status/status-texts';
import type { RowGate } from '../sql-answers';
import type { Stoppable } from '../message/stoppable';

/**
 * Incremental mode of the sql and view nodes ("new rows since the last run"): each run reads only
 * the rows after the last (watermark, key) this node sent on, in that order
 * (client/shared/incremental-sql.ts builds the statement). The position is kept per node in the
 * package's store (docs/state-store.md), written before the rows leave the node: a row is handed
 * to the flow once, across restarts and kill -9 (what the flow does with it after that is
 * Node-RED's, in memory). Runs of one node take turns: two at once would read the same rows.
 */

/** The store's table for this feature (StateStore.migrate): one row per node that has a position. */
const SCHEMA = [
  `CREATE TABLE incremental_position (
    node TEXT PRIMARY KEY,
    watermark_column TEXT NOT NULL,
    key_column TEXT NOT NULL,
    watermark TEXT NOT NULL,
    tie_key TEXT,
    rows_sent INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID`,
];

/** A SELECT (and its own params) as the statement that reads its rows after the position. */
export type Statement = (
  select: string,
  params?: Record<string, unknown>,
) => { query: string; params?: Record<string, unknown> };

/** The status texts the mode shows: where the node stands, and what the last run sent. */
export type IncrementalStatus = 'start' | 'position' | 'newRows';

interface Stored {
  watermark_column: string;
  key_column: string;
  watermark: string;
  tie_key: string | null;
  rows_sent: number;
}

/** Status texts keep a position short: the ring has room for a few dozen characters. */
const SHOWN = 40;

export class IncrementalMode {
  private position: Position | undefined;
  private rowsSent = 0;
  /** The runs of this node, one after another. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly lease: StoreLease | undefined;
  /**
   * Why the store cannot be used: every run fails with it (a position that cannot be kept is not kept in memory
   * instead).
   */
  private readonly failure: Error | undefined;

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
      return;
    }
    try {
      this.lease = leaseNodeStore(RED);
      this.store.migrate('incremental', SCHEMA);
      this.load();
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      node.error(`incremental mode cannot keep its position: ${this.failure.message}`);
    }
  }

  private get store(): StateStore {
    return (this.lease as StoreLease).store;
  }

  /** The status that says where the node stands (the red ring of why it cannot, when the store cannot be used). */
  status(): NodeStatus {
    if (this.failure) return this.texts.error(this.failure);
    return this.position ? this.texts.ok('position', { position: shown(this.position) }) : this.texts.ok('start');
  }

  /**
   * Runs `read` after the runs before it, with `statement` (a SELECT, and the user's own params,
   * into the statement that reads its rows after the position) and the gate that moves the
   * position as rows leave.
   */
  run(read: (statement: Statement, gate: RowGate) => Promise<void>): Promise<void> {
    const mine = this.turn.then(() => {
      if (this.failure) throw this.failure;
      return read((select, params) => incrementalQuery(select, this.columns, this.position, params), this.gate());
    });
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /**
   * msg.reset: back to the start (true), after a watermark (a text or a number: every row with a
   * later one), or after a row ({watermark, key}). Kept before the status says so.
   */
  reset(value: unknown): NodeStatus {
    if (this.failure) throw this.failure;
    const position = resetPosition(value);
    this.store.transaction(() => {
      if (position) this.write(position, 0);
      else this.store.statement('DELETE FROM incremental_position WHERE node = ?').run(this.node.id);
    }, 'rewind an incremental position');
    this.position = position;
    this.rowsSent = 0;
    return this.status();
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

  /**
   * Rows pass through the gate right before they leave. Without flow control the position after
   * them is on disk first (a row is handed on at most once); under flow control it is kept as the
   * tick for each part comes back, in order (a row is kept as done only once the flow said so, so
   * after a kill what the flow had not acknowledged is sent again: at least once).
   */
  private gate(): RowGate {
    let sent: Position | undefined = this.position;
    const pending: Array<{ position: Position; rows: number }> = [];
    let abandoned = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const gate: RowGate = {
      pass: (columns, rows) => {
        if (rows.length === 0) return;
        sent = this.positionAfter(columns, rows);
        if (this.acknowledged) pending.push({ position: sent, rows: rows.length });
        else this.keep(sent, rows.length);
      },
      answered: (rows) =>
        rows === 0 ? this.status() : this.texts.ok('newRows', { count: rows, position: shown(sent as Position) }),
    };
    if (!this.acknowledged) return gate;
    gate.acknowledged = {
      acked: () => {
        const part = abandoned ? undefined : pending.shift();
        if (!part) return;
        try {
          this.keep(part.position, part.rows);
        } catch (err) {
          failure = err instanceof Error ? err : new Error(String(err));
        }
        wake?.();
      },
      settled: (timeoutMs: number, run: Stoppable) =>
        new Promise<void>((resolve, reject) => {
          const over = (): boolean => {
            if (failure) reject(failure);
            else if (pending.length === 0) resolve();
            else return false;
            return true;
          };
          if (over()) return;
          const timer = setTimeout(() => {
            wake = undefined;
            reject(
              new MindsDBError(
                `no msg.tick came back within ${timeoutMs} ms for the last ${pending.length} part(s): their rows ` +
                  `were not kept as done, and the next run sends them again`,
                { kind: 'timeout', code: 'ETICK' },
              ),
            );
          }, timeoutMs);
          wake = () => {
            if (over()) {
              clearTimeout(timer);
              wake = undefined;
            }
          };
          run.whenStopped(() => {
            clearTimeout(timer);
            wake = undefined;
            reject(run.reason);
          });
        }),
      abandon: () => {
        abandoned = true;
        pending.length = 0;
      },
    };
    return gate;
  }

  /** The position after the last of `rows`, checked before anything is kept or sent. */
  private positionAfter(columns: readonly string[], rows: readonly unknown[][]): Position {
    const last = rows[rows.length - 1];
    return {
      watermark: positionValue(
        last[this.column(columns, this.columns.watermark, 'watermark')],
        `the watermark ("${this.columns.watermark}")`,
      ),
      key: positionValue(last[this.column(columns, this.columns.key, 'key')], `the key ("${this.columns.key}")`),
    };
  }

  /** Keeps a position on disk (one transaction), then in memory. */
  private keep(position: Position, rows: number): void {
    this.store.transaction(() => this.write(position, this.rowsSent + rows), 'keep an incremental position');
    this.position = position;
    this.rowsSent += rows;
  }

  /**
   * Where the column is in the answer's rows: its exact name, else the one name that differs only in case (matchName,
   * the names rule).
   */
  private column(columns: readonly string[], name: string, what: string): number {
    const match = matchName(name, columns);
    if (match.found === 'exact' || match.found === 'case') return columns.indexOf(match.name);
    throw inputError(
      `the query's rows have no ${what} column "${name}" (they have ` +
        `${columns.map((c) => `"${c}"`).join(', ') || 'no columns'}): select it, or set the ${what} column the node ` +
        `names`,
    );
  }

  private load(): void {
    const row = this.store
      .statement(
        'SELECT watermark_column, key_column, watermark, tie_key, rows_sent FROM incremental_position WHERE node = ?',
      )
      .get(this.node.id) as Stored | undefined;
    if (!row) return;
    if (row.watermark_column !== this.columns.watermark || row.key_column !== this.columns.key) {
      // A position in other columns says nothing about these: start again, and say so.
      this.node.warn(
        `the kept position was for watermark "${row.watermark_column}" and key "${row.key_column}", not ` +
          `"${this.columns.watermark}" and "${this.columns.key}": starting from the first row`,
      );
      this.store.statement('DELETE FROM incremental_position WHERE node = ?').run(this.node.id);
      return;
    }
    this.position = {
      watermark: JSON.parse(row.watermark) as Position['watermark'],
      ...(row.tie_key === null ? {} : { key: JSON.parse(row.tie_key) as Position['watermark'] }),
    };
    this.rowsSent = row.rows_sent;
  }

  private write(position: Position, rowsSent: number): void {
    this.store
      .statement(`INSERT INTO incremental_position
        (node, watermark_column, key_column, watermark, tie_key, rows_sent, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (node) DO UPDATE SET watermark_column = excluded.watermark_column, key_column = excluded.key_column,
        watermark = excluded.watermark, tie_key = excluded.tie_key, rows_sent = excluded.rows_sent,
        updated_at = excluded.updated_at`)
      .run(
        this.node.id,
        this.columns.watermark,
        this.columns.key,
        JSON.stringify(position.watermark),
        position.key === undefined ? null : JSON.stringify(position.key),
        rowsSent,
        Date.now(),
      );
  }
}

/** What msg.reset asks for: undefined is the start. */
function resetPosition(value: unknown): Position | undefined {
  if (value === true) return undefined;
  const refused = (): Error =>
    inputError(
      'msg.reset must be true (back to the first row), a watermark (text or a number: the rows after it), or ' +
        '{watermark, key} (the rows after that row)',
    );
  if (typeof value === 'string' || typeof value === 'number') {
    if (value === '') throw refused();
    return { watermark: positionValue(value, 'msg.reset') };
  }
  if (!isPlainObject(value) || value.watermark === undefined || value.watermark === null || value.watermark === '')
    throw refused();
  return {
    watermark: positionValue(value.watermark, 'msg.reset.watermark'),
    ...(value.key === undefined || value.key === null ? {} : { key: positionValue(value.key, 'msg.reset.key') }),
  };
}

function shown(p: Position): string {
  const text = p.key === undefined ? String(p.watermark) : `${String(p.watermark)} / ${String(p.key)}`;
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}
