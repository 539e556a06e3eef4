import { inputError, insertMayHaveLanded, insertRows, MindsDBError, TablesApi, type InsertRow, type MindsDBClient } from './client';
import { TABLE_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { controlBatch, controlOf } from './runtime/message/control';
import { MicroBatcher } from './runtime/message/micro-batcher';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput } from './runtime/message/output';
import { describeType, isPlainObject, nameFrom } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor, clientKey } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(TABLE_NODE.fields.operation);

/** One message's rows, as the batcher sees them. */
interface InsertJob {
  client: MindsDBClient;
  database: string;
  table: string;
  rows: InsertRow[];
  /** The message's time budget, and when it runs out: counted from its arrival, batch wait included. */
  timeoutMs: number;
  deadlineAt: number;
  /** The names as MindsDB stored them, once the INSERT answered. */
  stored?: { database: string; table: string };
}

/** One INSERT for the rows of `jobs` (one message's, or a batch's for the same table), in arrival order. */
async function insertJobs(jobs: readonly InsertJob[], deadline: { timeoutMs: number; deadlineAt: number }): Promise<true[]> {
  const { client, database, table } = jobs[0];
  const rows = jobs.length === 1 ? jobs[0].rows : jobs.flatMap((j) => j.rows);
  const result = await new TablesApi(client).insert(database, table, rows, deadline);
  for (const job of jobs) job.stored = { database: result.database, table: result.table };
  return rows.map(() => true as const);
}

/**
 * A batch MindsDB answered with an SQL error: it ran the statement and the data source refused
 * it whole (nothing stored), so each message is sent again on its own and only the bad ones fail.
 * Anything else (a lost answer above all) fails the batch's messages without sending them again,
 * as does a statement refused for its table (no such table or data source).
 */
const refusedWhole = (err: Error): boolean => err instanceof MindsDBError && err.kind === 'sql' && !noSuchTable(err);

/** A statement refused for its table, not for a row (PostgreSQL's words): every message alone would fail the same way. */
function noSuchTable(err: MindsDBError): boolean {
  return /^relation "[^"]*" does not exist|^Database not found/i.test(err.serverMessage ?? '');
}

/** The SELECT of a create: the node's, else msg.payload as text, else msg.payload.select. */
function selectFrom(nodeSelect: string, payload: unknown): string {
  if (nodeSelect.trim() !== '') return nodeSelect;
  if (typeof payload === 'string' && payload.trim() !== '') return payload;
  if (isPlainObject(payload) && typeof payload.select === 'string' && payload.select.trim() !== '') return payload.select;
  if (isPlainObject(payload) && payload.select !== undefined) throw inputError(`msg.payload.select must be a string, not ${describeType(payload.select)}`);
  throw inputError('no SELECT to create the table from: set it in the node, as a string msg.payload or in msg.payload.select');
}

/** The table node: insert rows (micro-batched if asked), list a data source's tables, create a table from a SELECT, drop one. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-table', ['requesting', 'inserted', 'queued', 'tables', 'created', 'deleted'] as const);
  function MindsDBTableNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, TABLE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    let insertedRows = 0;

    const batcher = config.batch
      ? new MicroBatcher<InsertJob, true>(
        config.batchSize,
        config.batchWindow,
        (_key, items) => {
          // The batch ends no later than its most impatient message must (its wait in the batch included).
          let soonest = items[0].input;
          for (const i of items) if (i.input.deadlineAt < soonest.deadlineAt) soonest = i.input;
          return insertJobs(items.map((i) => i.input), { timeoutMs: soonest.timeoutMs, deadlineAt: soonest.deadlineAt })
            .then((units) => { insertedRows += units.length; return units; });
        },
        (depth) => status.set(depth > 0 ? texts.waiting('queued', { count: depth }) : texts.ok('inserted', { count: insertedRows })),
        refusedWhole,
      )
      : undefined;

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      // msg.flush sends the open micro-batch now, msg.reset drops it: a control message, not a request.
      const control = controlOf(msg);
      if (control) { controlBatch(batcher, control); return; }
      const operation = operationOf(config.operation, msg, OPERATIONS, 'table');
      describe(msg, { operation });
      const database = await nameFrom(RED, node, config.database, msg, 'database');
      describe(msg, { database });
      if (!database) throw inputError('no database: set the data source in the node or in msg.database');
      const table = operation === 'list' ? undefined : await nameFrom(RED, node, config.table, msg, 'table');
      if (operation !== 'list') describe(msg, { table });
      const client = clientFor(RED, config, msg);
      if (operation !== 'list' && !table) throw inputError('no table: set it in the node or in msg.table');
      const timeoutMs = timeoutFrom(msg) ?? client.requestTimeoutMs;
      const api = new TablesApi(client);
      let result: unknown;
      switch (operation) {
        case 'list': {
          status.set(texts.busy('requesting'));
          const tables = await api.list(database, { timeoutMs });
          result = tables;
          msg.mindsdb = { operation, database };
          status.set(texts.ok('tables', { count: tables.length }));
          break;
        }
        case 'create': {
          const select = selectFrom(config.select, msg.payload);
          status.set(texts.busy('requesting'));
          const created = await api.create(database, table as string, select, config.replace, { timeoutMs });
          result = created;
          msg.mindsdb = { operation, database: created.database, table: created.name };
          status.set(texts.ok('created', { name: created.name }));
          break;
        }
        case 'delete': {
          status.set(texts.busy('requesting'));
          const deleted = await api.delete(database, table as string, { timeoutMs });
          result = deleted;
          msg.mindsdb = { operation, database: deleted.database, table: deleted.table };
          status.set(texts.ok('deleted', { name: deleted.table }));
          break;
        }
        case 'insert': {
          const rows = insertRows(msg.payload);
          const job: InsertJob = { client, database, table: table as string, rows, timeoutMs, deadlineAt: Date.now() + timeoutMs };
          msg.mindsdb = { operation, database, table, rows: rows.length };
          try {
            if (batcher) {
              // One batch, one INSERT: into one table on one server (msg.server may choose another).
              await batcher.add(`${clientKey(client)}\u0000${database}\u0000${table as string}`, job, rows.length);
            } else {
              status.set(texts.busy('requesting'));
              await insertJobs([job], job);
            }
          } catch (err) {
            // Whether this message's rows may be in the table after all: a lost answer is never re-sent.
            msg.mindsdb = { operation, database, table, rows: rows.length, stored: insertMayHaveLanded(err) ? 'unknown' : false };
            throw err;
          }
          if (!batcher) insertedRows += rows.length;
          const stored = job.stored ?? { database, table: table as string };
          result = { inserted: rows.length, database: stored.database, table: stored.table };
          msg.mindsdb = { operation, database: stored.database, table: stored.table, rows: rows.length, stored: true };
          if (!batcher) status.set(texts.ok('inserted', { count: insertedRows }));
          break;
        }
      }
      setOutput(RED, msg, outputProperty, result);
      send(msg);
    }, () => { batcher?.flushNow(); });
  }

  registerNodeType(RED, TABLE_NODE, MindsDBTableNode);
};
