// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { inputError, isPlainObject, plainJson, positionalToNamed, type SqlRequest } from './client';
import { SQL_NODE, type SqlNodeConfig } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { CLOSE_GRACE_MS, handleInputWith, timeoutFrom, type Outcome } from './runtime/message/input';
import { describeType, evaluateProperty, nonEmptyString } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { controlOf } from './runtime/message/control';
import { IncrementalMode } from './runtime/incremental';
import { SqlOutput } from './runtime/sql-answers';
import { sqlControl } from './runtime/sql-answers';
import { startOutbox } from './runtime/outbox';
import { SqlWriter } from './runtime/writers';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

/** The query: the node's own SQL wins, then msg.query, then a string msg.payload. */
function queryFrom(configured: string, msg: Msg): string {
  if (configured && configured.trim() !== '') return configured;
  if (msg.query !== undefined && msg.query !== null && msg.query !== '') {
    if (typeof msg.query !== 'string')
      throw inputError(`msg.query must be a string of SQL (got ${describeType(msg.query)})`);
    return msg.query;
  }
  if (typeof msg.payload === 'string' && msg.payload.trim() !== '') return msg.payload;
  throw inputError('no SQL query: set it in the node, in msg.query, or as a string msg.payload');
}

/**
 * The context database: the node's own Database wins, then msg.database. msg.database is checked
 * only when it is used, so a stray non-string msg.database never fails a node that has its own.
 */
function databaseFrom(
  RED: NodeAPI,
  node: Node,
  config: SqlNodeConfig,
  msg: Msg,
): Promise<string | undefined> | string | undefined {
  const evaluated = evaluateProperty(RED, node, config.database, msg);
  // Only JSONata and context stores answer later; a plain string is used at once (no await per message).
  if (evaluated instanceof Promise) return evaluated.then((v) => fromOwnOrMsg(nonEmptyString(v), msg));
  return fromOwnOrMsg(nonEmptyString(evaluated), msg);
}

function fromOwnOrMsg(own: string | undefined, msg: Msg): string | undefined {
  if (own) return own;
  if (msg.database !== undefined && msg.database !== null && typeof msg.database !== 'string') {
    throw inputError(`msg.database must be a string (got ${describeType(msg.database)})`);
  }
  return nonEmptyString(msg.database);
}

/**
 * The query and its bound parameters. msg.params is an object for `:name` placeholders, or an
 * array for `?` placeholders; either way the server binds the values: they are never spliced
 * into the SQL text.
 */
function withParams(query: string, msg: Msg): { query: string; params?: Record<string, unknown> } {
  const p = msg.params;
  if (p === undefined || p === null) return { query };
  if (typeof p !== 'object') {
    throw inputError(
      `msg.params must be an object ({"min": 5} for ":min") or an array (for "?" placeholders), not ${describeType(p)}`,
    );
  }
  // The values by the one rule for what is not plain JSON (a Date as its ISO text …), named by their place in
  // msg.params.
  const values = plainJson(p, 'msg.params');
  if (Array.isArray(values)) return positionalToNamed(query, values);
  if (!isPlainObject(values))
    throw inputError(
      `msg.params must be an object ({"min": 5} for ":min") or an array (for "?" placeholders), not ` +
        `${describeType(values)}`,
    );
  return { query, params: values };
}

/**
 * A msg.tick for a node whose flow control is off: not a query either, so it is refused where
 * Catch sees it, rather than vanish without output, error or status.
 */
const TICK_WITHOUT_FLOW_CONTROL_TEXT =
  'msg.tick came to a sql node whose flow control ("Wait for a msg.tick back") is off: it is not a query, and there ' +
  'is no sequence for it to acknowledge; turn flow control on, or do not wire the tick back to this node';

export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-sql', [
    'requesting',
    'ok',
    'rows',
    'streaming',
    'start',
    'position',
    'newRows',
  ] as const);
  function MindsDBSqlNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, SQL_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const output = new SqlOutput(RED, node, status, texts, config);
    const incremental = config.incremental
      ? new IncrementalMode(
          RED,
          node,
          { watermark: config.watermarkColumn, key: config.keyColumn },
          texts,
          config.split && config.flowControl,
          config.nativeQuery
            ? 'incremental mode cannot be used with a native query: the node adds MindsDB SQL around the query, ' +
                'which a native query would hand to the data source unparsed'
            : undefined,
        )
      : undefined;
    if (incremental) {
      status.now(incremental.status());
      void incremental.ready.then(() => status.now(incremental.status()));
    }
    // A statement marked as a write, answered whole: kept in the outbox while MindsDB is away, sent by the writer.
    const writer = config.outbox && !config.split && !incremental ? new SqlWriter(RED, config, output) : undefined;

    const ring = handleInputWith(
      node,
      status,
      texts,
      (msg: Msg, send: Send, outcome: Outcome) => {
        // A tick coming back from the flow: it acknowledges a part and is never a query. It is taken
        // before anything else, so it never waits for a connection slot or anything else.
        if (output.tookTick(msg, TICK_WITHOUT_FLOW_CONTROL_TEXT)) {
          outcome.ok();
          return;
        }
        const control = controlOf(msg);
        if (control) {
          sqlControl(control, output, incremental, status).then(
            () => outcome.ok(),
            (err: unknown) => outcome.fail(err),
          );
          return;
        }
        // Any statement may write: an error says what it left stored (stored, set on failure: message/input.ts).
        (msg.mindsdb as Record<string, unknown>).stored = false;
        const client = clientFor(
          RED,
          config,
          msg,
          incremental ? 'its incremental position' : writer ? 'its outbox' : undefined,
        );
        const { query, params } = withParams(queryFrom(config.query, msg), msg);
        const timeoutMs = timeoutFrom(msg);
        const run = (database: string | undefined): void => {
          const context = database ? { db: database } : undefined;
          if (incremental) {
            // The rows after the kept position, one run at a time; the gate keeps the position as they leave.
            incremental
              .run(
                (statement, gate) =>
                  output.run(
                    msg,
                    send,
                    client,
                    timeoutMs,
                    (start) => start({ ...statement(query, params), context }),
                    gate,
                  ),
                timeoutMs ?? client.requestTimeoutMs,
              )
              .then(
                () => outcome.ok(),
                (err: unknown) => outcome.fail(err),
              );
            return;
          }
          const request: SqlRequest = { query, params, context, native: config.nativeQuery || undefined };
          const kept = writer?.accept(msg, request);
          if (kept) {
            kept.then(
              (how) => {
                if (how === 'sent') send(msg);
                outcome.ok();
              },
              (err: unknown) => outcome.fail(err),
            );
            return;
          }
          output.runTo(msg, send, client, timeoutMs, request, outcome);
        };
        const database = databaseFrom(RED, node, config, msg);
        if (database instanceof Promise) database.then(run).catch((err: unknown) => outcome.fail(err));
        else run(database);
      },
      () => {
        output.close();
        return Promise.all([incremental?.close(CLOSE_GRACE_MS), writer?.close()]).then(() => undefined);
      },
    );
    incremental?.watchStore(ring);
    if (writer) writer.useOutbox(startOutbox(RED, node, status, texts, ring, writer, { ...config, window: 8 }));
  }

  registerNodeType(RED, SQL_NODE, MindsDBSqlNode);
};
