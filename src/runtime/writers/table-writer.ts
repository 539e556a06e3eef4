import {
  insertMayHaveLanded,
  insertRows,
  keyText,
  MindsDBError,
  storedKeys,
  TablesApi,
  type InsertRow,
  type MindsDBClient,
} from '../../client';
import type { Msg } from '../node/red';
import { clientKey } from '../node/server';
import { MicroBatcher } from '../message/micro-batcher';
import { TakenOver, type Outbox } from '../outbox';
import type { OutboxItem, OutboxWriter } from '../outbox';

/** Where a message's rows go, as the node resolved it when it took the message. */
export interface TableTarget {
  database: string;
  table: string;
}

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
  item?: OutboxItem<TableTarget>;
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
export async function insertJobs(
  jobs: readonly InsertJob[],
  deadline: { timeoutMs: number; deadlineAt: number },
  outbox?: Outbox<TableTarget>,
  keyColumn = '',
): Promise<RowUnit[]> {
  const { client, database, table } = jobs[0];
  const items = jobs.flatMap((j) => (j.item ? [j.item] : []));
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

/**
 * A batch MindsDB answered with an SQL error: it ran the statement and the data source refused
 * it whole (nothing stored), so each message is sent again on its own and only the bad ones fail.
 * Anything else (a lost answer above all) fails the batch's messages without sending them again,
 * as does a statement refused for its table (no such table or data source).
 */
export const refusedWhole = (err: Error): boolean =>
  err instanceof MindsDBError && err.kind === 'sql' && !noSuchTable(err);

/**
 * A statement refused for its table, not for a row (PostgreSQL's words): every message alone would fail the same way.
 */
function noSuchTable(err: MindsDBError): boolean {
  return /^relation "[^"]*" does not exist|^Database not found/i.test(err.serverMessage ?? '');
}

/**
 * The micro-batcher of the table node's inserts: batches by table; the soonest deadline of a batch's messages is the
 * batch's.
 */
export function insertBatcher(
  size: number,
  windowMs: number,
  onDepth: (depth: number) => void,
  outbox: () => Outbox<TableTarget> | undefined,
  keyColumn: string,
  onRows: (n: number) => void,
): MicroBatcher<InsertJob, RowUnit> {
  return new MicroBatcher<InsertJob, RowUnit>(
    size,
    windowMs,
    (_key, items) => {
      let soonest = items[0].input;
      for (const i of items) if (i.input.deadlineAt < soonest.deadlineAt) soonest = i.input;
      return insertJobs(
        items.map((i) => i.input),
        { timeoutMs: soonest.timeoutMs, deadlineAt: soonest.deadlineAt },
        outbox(),
        keyColumn,
      ).then((units) => {
        onRows(units.length);
        return units;
      });
    },
    onDepth,
    refusedWhole,
  );
}

/** What the table node's output says of its message, once its rows are stored. */
export function insertedOutput(
  msg: Msg,
  job: InsertJob,
  rowCount: number,
  replayed: boolean,
): { inserted: number; database: string; table: string } {
  const stored = job.stored ?? { database: job.database, table: job.table };
  msg.mindsdb = {
    operation: 'insert',
    database: stored.database,
    table: stored.table,
    rows: rowCount,
    stored: true,
    ...(job.found ? { alreadyStored: true } : {}),
    ...(replayed ? { replayed: true } : {}),
  };
  return { inserted: rowCount, database: stored.database, table: stored.table };
}

/**
 * What a failed insert says of its message: whether its rows may be in the table after all (a lost answer is never
 * re-sent).
 */
export function insertFailed(msg: Msg, target: TableTarget, rowCount: number, err: unknown, inDoubt = false): void {
  const code = err instanceof MindsDBError ? err.code : undefined;
  const unsent = code === 'EOUTBOXEXPIRED' || code === 'EOUTBOXFULL';
  const stored = unsent ? (inDoubt ? 'unknown' : false) : insertMayHaveLanded(err) ? 'unknown' : false;
  msg.mindsdb = { operation: 'insert', database: target.database, table: target.table, rows: rowCount, stored };
}

/**
 * The table node's writer for its outbox: each kept message's rows through the batcher (or alone), checked by the key
 * column when in doubt.
 */
export function tableWriter(o: {
  client: (msg: Msg) => MindsDBClient;
  batcher: MicroBatcher<InsertJob, RowUnit> | undefined;
  outbox: () => Outbox<TableTarget> | undefined;
  keyColumn: string;
  timeoutOf: (msg: Msg) => number | undefined;
  setResult: (msg: Msg, result: unknown) => void;
  onInserted: (rows: number) => void;
}): OutboxWriter<TableTarget> {
  return {
    async write(item) {
      const client = o.client(item.msg);
      const rows = rowsOf(item.msg);
      const timeoutMs = o.timeoutOf(item.msg) ?? client.requestTimeoutMs;
      const job: InsertJob = {
        client,
        database: item.target.database,
        table: item.target.table,
        rows,
        weight: rows.length,
        timeoutMs,
        deadlineAt: Date.now() + timeoutMs,
        item,
      };
      if (o.batcher)
        await o.batcher.add(`${clientKey(client)}\u0000${job.database}\u0000${job.table}`, job, rows.length);
      else {
        await insertJobs([job], job, o.outbox(), o.keyColumn);
        o.onInserted(rows.length);
      }
      if (job.takenOver) throw new TakenOver();
      o.setResult(item.msg, insertedOutput(item.msg, job, job.weight, item.restored));
    },
    flush() {
      o.batcher?.flushNow();
    },
    canCheck(item) {
      return o.keyColumn !== '' && hasKeys(item.msg.payload, o.keyColumn);
    },
    failed(item, err) {
      insertFailed(item.msg, item.target, rowCountOf(item.msg.payload), err, item.inDoubt);
      return err;
    },
  };
}

/**
 * A live message's rows, checked once when it arrived (`rememberRows`); a message read back from the outbox is read
 * again.
 */
const checkedRows = new WeakMap<object, InsertRow[]>();
export function rememberRows(msg: Msg, rows: InsertRow[]): void {
  checkedRows.set(msg, rows);
}
const rowsOf = (msg: Msg): InsertRow[] => checkedRows.get(msg) ?? insertRows(msg.payload);

function rowCountOf(payload: unknown): number {
  try {
    return insertRows(payload).length;
  } catch {
    return 0;
  }
}

/** Every row of the message carries a value for the key column (else a lost answer cannot be checked). */
function hasKeys(payload: unknown, key: string): boolean {
  try {
    return insertRows(payload).every((r) => r[key] !== undefined && r[key] !== null);
  } catch {
    return false;
  }
}
