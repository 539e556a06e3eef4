// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { inputError, ViewsApi } from './client';
import { VIEW_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { CLOSE_GRACE_MS, handleInput, timeoutFrom } from './runtime/message/input';
import { operationsOf } from './runtime/message/operation';
import { setOutput } from './runtime/message/output';
import { projectItemOf } from './runtime/message/project-item';
import { describeType } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { controlOf } from './runtime/message/control';
import { IncrementalMode } from './runtime/incremental';
import { SqlOutput } from './runtime/sql-answers';
import { sqlControl } from './runtime/sql-answers';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(VIEW_NODE.fields.operation);

const TICK_WITHOUT_FLOW_CONTROL_TEXT =
  'msg.tick came to a view node whose flow control ("Wait for a msg.tick back") is off: it is not a request, and ' +
  'there is no sequence for it to acknowledge; turn flow control on, or do not wire the tick back to this node';

/** The view's SELECT for create and update: the node's Query wins, then msg.query, then a string msg.payload. */
function queryFrom(configured: string, msg: Msg): string {
  if (configured.trim() !== '') return configured;
  if (msg.query !== undefined && msg.query !== null && msg.query !== '') {
    if (typeof msg.query !== 'string')
      throw inputError(`msg.query must be the view's SELECT as a string (got ${describeType(msg.query)})`);
    return msg.query;
  }
  if (typeof msg.payload === 'string' && msg.payload.trim() !== '') return msg.payload;
  throw inputError('no view query: set the SELECT in the node, in msg.query, or as a string msg.payload');
}

/**
 * The view node: list, get, create, update (the query), delete (src/client/resources/views.ts),
 * and query: SELECT * FROM the view, sent out as the sql node sends rows (src/runtime/sql-answers/sql-output.ts).
 */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-view', [
    'requesting',
    'list',
    'get',
    'create',
    'update',
    'delete',
    'ok',
    'rows',
    'streaming',
    'start',
    'position',
    'newRows',
  ] as const);
  function MindsDBViewNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, VIEW_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const output = new SqlOutput(RED, node, status, texts, config);
    // Incremental mode applies to the query operation (the view's rows); a node set to "msg" may query too.
    const incremental =
      config.incremental && (config.operation === 'query' || config.operation === 'msg')
        ? new IncrementalMode(
            RED,
            node,
            { watermark: config.watermarkColumn, key: config.keyColumn },
            texts,
            config.split && config.flowControl,
          )
        : undefined;
    if (incremental) {
      status.now(incremental.status());
      void incremental.ready.then(() => status.now(incremental.status()));
    }

    const ring = handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        if (output.tookTick(msg, TICK_WITHOUT_FLOW_CONTROL_TEXT)) return;
        const control = controlOf(msg);
        if (control) {
          await sqlControl(control, output, incremental, status);
          return;
        }
        const { operation, project, name } = await projectItemOf(
          RED,
          node,
          msg,
          'view',
          { configured: config.operation, allowed: OPERATIONS, what: 'view' },
          config,
        );
        const client = clientFor(RED, config, msg, incremental ? 'its incremental position' : undefined);
        const api = new ViewsApi(client);
        if (operation !== 'list' && !name) throw inputError('no view name: set it in the node or in msg.name');
        const timeoutMs = timeoutFrom(msg);
        const query = operation === 'create' || operation === 'update' ? queryFrom(config.query, msg) : undefined;

        if (operation === 'query') {
          // msg.mindsdb is then the answer's (type, columns, context), as the sql node's.
          if (incremental) {
            // The view's rows after the kept position: its SELECT wrapped as the sql node wraps a query.
            return incremental.run(
              (statement, gate) =>
                output.run(
                  msg,
                  send,
                  client,
                  timeoutMs,
                  (start) => api.select(project, name as string, (sql) => start(statement(sql)), { timeoutMs }),
                  gate,
                ),
              timeoutMs ?? client.requestTimeoutMs,
            );
          }
          return output.run(msg, send, client, timeoutMs, (start) =>
            api.select(project, name as string, (sql) => start({ query: sql }), { timeoutMs }),
          );
        }
        status.set(texts.busy('requesting'));
        let result: unknown;
        switch (operation) {
          case 'list':
            result = await api.list(project, { timeoutMs });
            break;
          case 'get':
            result = await api.get(project, name as string, { timeoutMs });
            break;
          case 'create':
            result = await api.create(project, name as string, query as string, { timeoutMs });
            break;
          case 'update':
            result = await api.update(project, name as string, query as string, { timeoutMs });
            break;
          case 'delete':
            result = await api.delete(project, name as string, { timeoutMs });
            break;
        }
        setOutput(RED, msg, config.outputProperty, result);
        msg.mindsdb = { resource: 'view', operation, project, name };
        send(msg);
        status.set(
          operation === 'list'
            ? texts.ok('list', { count: Array.isArray(result) ? result.length : 0 })
            : texts.ok(operation),
        );
      },
      () => {
        output.close();
        return incremental?.close(CLOSE_GRACE_MS);
      },
    );
    incremental?.watchStore(ring);
  }

  registerNodeType(RED, VIEW_NODE, MindsDBViewNode);
};
