// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { inputError, insertRows, TablesApi } from './client';
import { TABLE_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { controlOf } from './runtime/message/control';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput, writing } from './runtime/message/output';
import { describeType, isPlainObject, nameFrom, rowCount } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';
import { TableTarget, TableWriter } from './runtime/writers';
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
    // Inserts go through the writer (micro-batched, through the outbox when it is on); this node only reads the msg.
    const writer = new TableWriter(RED, config, status, texts);

    const ring = handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        // msg.flush sends the open micro-batch now, msg.reset drops it: a control message, not a request.
        const control = controlOf(msg);
        if (control) {
          writer.control(control);
          return;
        }
        const operation = operationOf(config.operation, msg, OPERATIONS, 'table');
        describe(msg, { operation });
        if (operation === 'insert') writing(msg, { rows: rowCount(msg.payload) });
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
            const target = new TableTarget(database, table as string, insertRows(msg.payload));
            // 'kept': on disk, its output or error comes when MindsDB is back; this input ends now.
            if ((await writer.insert(msg, target, client, timeoutMs)) === 'sent') send(msg);
            return;
          }
        }
        setOutput(RED, msg, outputProperty, result);
        send(msg);
      },
      () => writer.close(),
    );
    if (config.outbox)
      writer.useOutbox(
        startOutbox(RED, node, status, texts, ring, writer, {
          ...config,
          // 16 batches: twice what the server node sends at once by default (8), so the next ones are ready
          // while the store claims and marks more (bench, replay_shared_vs_live: 0.74 with 8, 1.08 with 16)
          window: config.batch ? config.batchSize * 16 : 8,
        }),
      );
  }

  registerNodeType(RED, TABLE_NODE, MindsDBTableNode);
};
