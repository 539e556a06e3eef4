// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { inputError, insertRows, TablesApi } from './client';
import { TABLE_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { controlBatch, controlOf } from './runtime/message/control';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput } from './runtime/message/output';
import { describeType, isPlainObject, nameFrom } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor, clientKey } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';
import {
  insertBatcher,
  insertedOutput,
  insertFailed,
  insertJobs,
  rememberRows,
  tableWriter,
  type InsertJob,
  type TableTarget,
} from './runtime/writers';
import { startOutbox } from './runtime/outbox';

const OPERATIONS = operationsOf(TABLE_NODE.fields.operation);

/** The SELECT of a create: the node's, else msg.payload as text, else msg.payload.select. */
function selectFrom(nodeSelect: string, payload: unknown): string {
  if (nodeSelect.trim() !== '') return nodeSelect;
  if (typeof payload === 'string' && payload.trim() !== '') return payload;
  if (isPlainObject(payload) && typeof payload.select === 'string' && payload.select.trim() !== '')
    return payload.select;
  if (isPlainObject(payload) && payload.select !== undefined)
    throw inputError(`msg.payload.select must be a string, not ${describeType(payload.select)}`);
  throw inputError(
    'no SELECT to create the table from: set it in the node, as a string msg.payload or in msg.payload.select',
  );
}

/**
 * The table node: insert rows (micro-batched if asked), list a data source's tables, create a table from a SELECT, drop
 * one.
 */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-table', [
    'requesting',
    'inserted',
    'queued',
    'tables',
    'created',
    'deleted',
  ] as const);
  function MindsDBTableNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, TABLE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    let insertedRows = 0;

    const batcher = config.batch
      ? insertBatcher(
          config.batchSize,
          config.batchWindow,
          (depth) =>
            status.set(
              depth > 0 ? texts.waiting('queued', { count: depth }) : texts.ok('inserted', { count: insertedRows }),
            ),
          () => outbox,
          config.keyColumn,
          (n) => {
            insertedRows += n;
          },
        )
      : undefined;
    // With the outbox on, every insert is written to the store first and sent from there (outbox.ts).
    const writer = tableWriter({
      client: (msg) => clientFor(RED, config, msg),
      batcher,
      outbox: () => outbox,
      keyColumn: config.keyColumn,
      timeoutOf: timeoutFrom,
      setResult: (msg, result) => setOutput(RED, msg, outputProperty, result),
      onInserted: (n) => {
        insertedRows += n;
        status.set(texts.ok('inserted', { count: insertedRows }));
      },
    });
    let outbox: ReturnType<typeof startOutbox<TableTarget>> | undefined;

    const ring = handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        // msg.flush sends the open micro-batch now, msg.reset drops it: a control message, not a request.
        const control = controlOf(msg);
        if (control) {
          controlBatch(batcher, control);
          return;
        }
        const operation = operationOf(config.operation, msg, OPERATIONS, 'table');
        describe(msg, { operation });
        const database = await nameFrom(RED, node, config.database, msg, 'database');
        describe(msg, { database });
        if (!database) throw inputError('no database: set the data source in the node or in msg.database');
        const table = operation === 'list' ? undefined : await nameFrom(RED, node, config.table, msg, 'table');
        if (operation !== 'list') describe(msg, { table });
        const client = clientFor(RED, config, msg, config.outbox && operation === 'insert' ? 'its outbox' : undefined);
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
            const target: TableTarget = { database, table: table as string };
            if (outbox) {
              rememberRows(msg, rows);
              // 'kept': on disk, its output or error comes when MindsDB is back; this input ends now.
              if ((await outbox.accept(msg, target)) === 'sent') send(msg);
              return;
            }
            const job: InsertJob = {
              client,
              ...target,
              rows,
              weight: rows.length,
              timeoutMs,
              deadlineAt: Date.now() + timeoutMs,
            };
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
              insertFailed(msg, target, rows.length, err);
              throw err;
            }
            if (!batcher) insertedRows += rows.length;
            result = insertedOutput(msg, job, rows.length, false);
            if (!batcher) status.set(texts.ok('inserted', { count: insertedRows }));
            break;
          }
        }
        setOutput(RED, msg, outputProperty, result);
        send(msg);
      },
      () => {
        batcher?.flushNow();
        return outbox?.close();
      },
    );
    if (config.outbox)
      outbox = startOutbox(RED, node, status, texts, ring, writer, {
        ...config,
        window: config.batch ? config.batchSize * 8 : 8,
      });
  }

  registerNodeType(RED, TABLE_NODE, MindsDBTableNode);
};
