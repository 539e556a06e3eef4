import { MindsDBError, type Position } from '../../client';
import type { NodeStatus } from '../node/red';
import type { RowGate } from '../sql-answers';
import type { Stoppable } from '../message/stoppable';

/** What a run's gate asks of the mode: where a part's rows end, how to keep a position, what the status says. */
export interface GateHost {
  positionAfter(columns: readonly string[], rows: readonly unknown[][]): Position;
  /** Keeps `position` after `rows` more rows (resolves once it is in the store). */
  keep(position: Position, rows: number): Promise<void>;
  answered(rows: number, last: Position | undefined): NodeStatus;
}

/**
 * The gate rows pass through right before they leave an incremental run. Without flow control the
 * position after them is in the store first (a row is handed on at most once); under flow control
 * it is kept as the tick for each part comes back, in order (a row is kept as done only once the
 * flow said so, so after a kill what the flow had not acknowledged is sent again: at least once).
 */
export function positionGate(host: GateHost, start: Position | undefined, acknowledged: boolean): RowGate {
  let sent: Position | undefined = start;
  const pending: Array<{ position: Position; rows: number }> = [];
  let abandoned = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  /** Acknowledged parts kept one after another, in order; how many are being kept now. */
  let keeping: Promise<void> = Promise.resolve();
  let inKeep = 0;
  const gate: RowGate = {
    pass: (columns, rows) => {
      if (rows.length === 0) return;
      sent = host.positionAfter(columns, rows);
      if (acknowledged) pending.push({ position: sent, rows: rows.length });
      else return host.keep(sent, rows.length);
    },
    answered: (rows) => host.answered(rows, sent),
  };
  if (!acknowledged) return gate;
  gate.acknowledged = {
    acked: () => {
      const part = abandoned ? undefined : pending.shift();
      if (!part) return;
      inKeep++;
      keeping = keeping.then(async () => {
        try {
          if (!failure) await host.keep(part.position, part.rows);
        } catch (err) {
          failure = err instanceof Error ? err : new Error(String(err));
        }
        inKeep--;
        wake?.();
      });
    },
    settled: (timeoutMs: number, run: Stoppable) =>
      new Promise<void>((resolve, reject) => {
        const over = (): boolean => {
          if (failure) reject(failure);
          else if (pending.length === 0 && inKeep === 0) resolve();
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
