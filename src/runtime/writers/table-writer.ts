import { insertRows, MindsDBError, storedAfter, type InsertRow, type MindsDBClient } from '../../client';
import type { TableNodeConfig } from '../../schema';
import { timeoutFrom } from '../message/input';
import { controlBatch, type Control } from '../message/control';
import { MicroBatcher } from '../message/micro-batcher';
import { setOutput } from '../message/output';
import { rowCount } from '../message/properties';
import type { Msg, NodeAPI } from '../node/red';
import { clientFor, clientKey } from '../node/server';
import type { ThrottledStatus } from '../status/status';
import type { StatusTexts } from '../status/status-texts';
import { TakenOver, type Outbox, type OutboxItem, type OutboxWriter } from '../outbox';
import { insertJobs, type InsertJob, type RowUnit } from './table-inserts';

/**
 * Where a message's rows go, as the node resolved it when it took the message, and, for a message
 * this process took, its rows as checked then. Only the table goes into the outbox (`toJSON`): the
 * rows are the message's payload, read again when a kept message comes back after a restart.
 */
export class TableTarget {
  constructor(
    readonly database: string,
    readonly table: string,
    readonly rows?: InsertRow[],
  ) {}

  toJSON(): { database: string; table: string } {
    return { database: this.database, table: this.table };
  }
}

/** The status texts the writer shows (the table node's catalogue has them). */
type WriterTexts = StatusTexts<'requesting' | 'inserted' | 'queued'>;

/**
 * The table node's inserts: its micro-batcher, its outbox's writer, and what a message says of its
 * rows (the output, msg.mindsdb with `stored`). The node hands it each insert and does nothing else
 * with one; nothing here calls back into the node.
 */
export class TableWriter implements OutboxWriter<TableTarget> {
  private outbox: Outbox<TableTarget> | undefined;
  private readonly batcher: MicroBatcher<InsertJob, RowUnit> | undefined;
  private insertedRows = 0;

  constructor(
    private readonly RED: NodeAPI,
    private readonly config: TableNodeConfig,
    private readonly status: ThrottledStatus,
    private readonly texts: WriterTexts,
  ) {
    if (config.batch) {
      this.batcher = new MicroBatcher<InsertJob, RowUnit>(
        config.batchSize,
        config.batchWindow,
        (_key, items) => this.insertBatch(items.map((i) => i.input)),
        (depth) =>
          status.set(
            depth > 0 ? texts.waiting('queued', { count: depth }) : texts.ok('inserted', { count: this.insertedRows }),
          ),
        refusedWhole,
      );
    }
  }

  /** The node's outbox, once it started (after the node's input, whose ring it shows on). */
  useOutbox(outbox: Outbox<TableTarget>): void {
    this.outbox = outbox;
  }

  /** msg.flush sends the open micro-batch now, msg.reset drops it. */
  control(control: Control): void {
    controlBatch(this.batcher, control);
  }

  /** The node closes: the open batch goes now, and the outbox closes after it. */
  close(): Promise<void> | undefined {
    this.batcher?.flushNow();
    return this.outbox?.close();
  }

  /**
   * One message's insert: through the outbox when the node has one (`kept`: on disk, its outcome
   * comes when MindsDB takes it), else sent now or with its micro-batch. Resolves `sent` once its
   * rows are stored and its output is on the msg; rejects with why not, msg.mindsdb.stored saying
   * whether they may be in the table.
   */
  async insert(msg: Msg, target: TableTarget, client: MindsDBClient, timeoutMs: number): Promise<'sent' | 'kept'> {
    if (this.outbox) return this.outbox.accept(msg, target);
    const rows = target.rows ?? insertRows(msg.payload);
    const job: InsertJob = {
      client,
      database: target.database,
      table: target.table,
      rows,
      weight: rows.length,
      timeoutMs,
      deadlineAt: Date.now() + timeoutMs,
    };
    msg.mindsdb = { operation: 'insert', database: target.database, table: target.table, rows: rows.length };
    try {
      await this.send(job);
    } catch (err) {
      insertFailed(msg, target, rows.length, err);
      throw err;
    }
    setOutput(this.RED, msg, this.config.outputProperty, insertedOutput(msg, job, rows.length, false));
    return 'sent';
  }

  async write(item: OutboxItem<TableTarget>): Promise<void> {
    const client = clientFor(this.RED, this.config, item.msg);
    const rows = item.target.rows ?? insertRows(item.msg.payload);
    const timeoutMs = timeoutFrom(item.msg) ?? client.requestTimeoutMs;
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
    await this.send(job);
    if (job.takenOver) throw new TakenOver();
    setOutput(this.RED, item.msg, this.config.outputProperty, insertedOutput(item.msg, job, job.weight, item.restored));
  }

  flush(): void {
    this.batcher?.flushNow();
  }

  /** A message in doubt can be looked up when every one of its rows carries a value for the key column. */
  canCheck(item: OutboxItem<TableTarget>): boolean {
    const key = this.config.keyColumn;
    if (key === '') return false;
    try {
      const rows = item.target.rows ?? insertRows(item.msg.payload);
      return rows.every((r) => r[key] !== undefined && r[key] !== null);
    } catch {
      return false;
    }
  }

  failed(item: OutboxItem<TableTarget>, err: Error): Error {
    insertFailed(item.msg, item.target, rowCount(item.msg.payload), err, item.inDoubt);
    return err;
  }

  /** One message's rows: with its micro-batch (one per server and table), or alone. */
  private async send(job: InsertJob): Promise<void> {
    if (this.batcher) {
      await this.batcher.add(`${clientKey(job.client)}\u0000${job.database}\u0000${job.table}`, job, job.rows.length);
      return;
    }
    this.status.set(this.texts.busy('requesting'));
    await insertJobs([job], job, this.outbox, this.config.keyColumn);
    this.inserted(job.rows.length);
  }

  /** A batch: its soonest deadline is the batch's. */
  private async insertBatch(jobs: InsertJob[]): Promise<RowUnit[]> {
    let soonest = jobs[0];
    for (const j of jobs) if (j.deadlineAt < soonest.deadlineAt) soonest = j;
    const units = await insertJobs(
      jobs,
      { timeoutMs: soonest.timeoutMs, deadlineAt: soonest.deadlineAt },
      this.outbox,
      this.config.keyColumn,
    );
    this.inserted(units.length);
    return units;
  }

  private inserted(rows: number): void {
    this.insertedRows += rows;
    this.status.set(this.texts.ok('inserted', { count: this.insertedRows }));
  }
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

/** What the table node's output says of its message, once its rows are stored. */
function insertedOutput(
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
 * What a failed insert says of its message: whether its rows may be in the table after all, by the
 * verdict of its request (a lost answer is never re-sent); `inDoubt`: an earlier attempt may have
 * stored them and no lookup has said otherwise.
 */
function insertFailed(
  msg: Msg,
  target: { database: string; table: string },
  rows: number,
  err: unknown,
  inDoubt = false,
): void {
  const stored = storedAfter(err, inDoubt);
  msg.mindsdb = { operation: 'insert', database: target.database, table: target.table, rows, stored };
}
