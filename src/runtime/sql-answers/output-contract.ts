import type { SqlRequest } from '../../client';
import type { Stoppable } from '../message/stoppable';
import type { NodeStatus } from '../node/red';

/**
 * What a node that sends SQL answers out gives SqlOutput (./sql-output.ts): its fields and status
 * texts; and what one of its runs gives: how it starts its statement, and the gate its rows pass.
 */

/** The fields of a node that sends SQL answers out (the sql node; the view node's query). */
export interface SqlOutputConfig {
  rowFormat?: 'objects' | 'arrays';
  split: boolean;
  rowsPerMsg: number;
  flowControl: boolean;
  partsAhead: number;
  outputProperty: string;
}

/** The status texts such a node has. */
export type SqlOutputStatus = 'ok' | 'rows' | 'streaming';

/**
 * How a node starts its statement: it calls `start` with the request, and may look names up
 * around it (the view node calls it again with a name in the stored case when the first misses).
 */
export type Starter = <T>(start: (request: SqlRequest) => Promise<T>) => Promise<T>;

/**
 * Sees every batch of rows right before it leaves the node (a whole answer, or one part of a
 * sequence), with the answer's column names: incremental mode keeps its position there, on disk
 * before the rows are sent. A throw stops the send and fails the message. `answered` is the
 * status once the run sent `rows` rows.
 */
export interface RowGate {
  /** Rows right before they leave: resolves once their position is kept (they are not sent if it rejects). */
  pass(columns: readonly string[], rows: readonly unknown[][]): void | Promise<void>;
  answered(rows: number): NodeStatus;
  /**
   * With flow control: a part sent is kept only when its msg.tick comes back (`acked`, once per
   * part, in order), and the run ends once every part is acknowledged (`settled`, which fails
   * after `timeoutMs` without the ticks, or when the run is stopped).
   */
  acknowledged?: {
    acked(): void;
    settled(timeoutMs: number, run: Stoppable): Promise<void>;
    /** The run ended without its parts acknowledged: later ticks keep nothing. */
    abandon(): void;
  };
}
