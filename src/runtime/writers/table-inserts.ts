import { keyText, storedKeys, TablesApi, type InsertRow, type MindsDBClient } from '../../client';
import type { Outbox, OutboxItem } from '../outbox';

/** One message's rows, as the batcher sees them. */
export interface InsertJob {
  client: MindsDBClient;
  database: string;
  table: string;
  rows: InsertRow[];
  /** Its share of the batch's answer: the rows its message has (a check of a message in doubt may send fewer). */
  weight: number;
  /** The message's time budget, and when it runs out: counted from its arrival, batch wait included. */
  timeoutMs: number;
  deadlineAt: number;
  /** The names as MindsDB stored them, once the INSERT answered. */
  stored?: { database: string; table: string };
  /** Its message in the node's outbox, when it has one. */
  item?: OutboxItem<unknown>;
  /** In doubt, and every one of its rows found stored: nothing was sent for it. */
  found?: boolean;
  /** Another copy of the flows took its outbox row over: nothing is sent for it, and it has no outcome here. */
  takenOver?: boolean;
}

/** A row unit: inserted now, or found already stored (a message in doubt, checked by its key column). */
export type RowUnit = true | 'found';

/**
 * One INSERT for the rows of `jobs` (one message's, or a batch's for the same table), in arrival
 * order. With an outbox, their rows are first marked as sent; the rows of a message in doubt are
 * first looked up by `keyColumn`, and only those not found are sent.
 */
export async function insertJobs<Target>(
  jobs: readonly InsertJob[],
  deadline: { timeoutMs: number; deadlineAt: number },
  outbox?: Outbox<Target>,
  keyColumn = '',
): Promise<RowUnit[]> {
  const { client, database, table } = jobs[0];
  const items = jobs.flatMap((j) => (j.item ? [j.item as OutboxItem<Target>] : []));
  if (outbox && items.length) {
    const takenOver = await outbox.sending(items);
    for (const j of jobs) if (j.item && takenOver.has(j.item.id)) j.takenOver = true;
  }
  let send = jobs.filter((j) => !j.takenOver);
  const doubtful = send.filter((j) => j.item?.inDoubt && keyColumn !== '');
  if (doubtful.length) {
    const keys = doubtful.flatMap((j) => j.rows.map((r) => r[keyColumn] ?? null));
    const found = await storedKeys(client, database, table, keyColumn, keys, deadline);
    for (const j of doubtful) {
      const missing = j.rows.filter((r) => !found.has(keyText(r[keyColumn])));
      if (missing.length === 0) j.found = true;
      else if (missing.length === j.rows.length && j.item)
        j.item.inDoubt = false; // none stored: no longer in doubt
      else j.rows = missing; // the rows of a message in doubt that did land need not go again
    }
    send = send.filter((j) => !j.found);
  }
  const rows = send.length === 1 ? send[0].rows : send.flatMap((j) => j.rows);
  if (rows.length) {
    const result = await new TablesApi(client).insert(database, table, rows, deadline);
    for (const job of jobs) job.stored = { database: result.database, table: result.table };
  }
  return jobs.flatMap((j) => Array.from({ length: j.weight }, (): RowUnit => (j.found ? 'found' : true)));
}
