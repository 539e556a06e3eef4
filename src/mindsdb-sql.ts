import { inputError, positionalToNamed, rowsToObjects, type MindsDBClient, type MindsDBError, type SqlAnswer, type SqlRequest } from './client';
import { SQL_NODE, type SqlNodeConfig } from './schema';
import { startNode, type SavedConfig } from './runtime/config';
import { handleInputWith, timeoutFrom, type Outcome } from './runtime/input';
import { setOutput } from './runtime/output';
import { describeType, evaluateProperty, nonEmptyString } from './runtime/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/red';
import { clientFor } from './runtime/server';
import { sendSequence } from './runtime/sql-sequence';
import { ThrottledStatus } from './runtime/status';
import { StatusTexts } from './runtime/status-texts';
import { TickWindow } from './runtime/tick-window';

/** The query: the node's own SQL wins, then msg.query, then a string msg.payload. */
function queryFrom(configured: string, msg: Msg): string {
  if (configured && configured.trim() !== '') return configured;
  if (msg.query !== undefined && msg.query !== null && msg.query !== '') {
    if (typeof msg.query !== 'string') throw inputError(`msg.query must be a string of SQL (got ${describeType(msg.query)})`);
    return msg.query;
  }
  if (typeof msg.payload === 'string' && msg.payload.trim() !== '') return msg.payload;
  throw inputError('no SQL query: set it in the node, in msg.query, or as a string msg.payload');
}

/**
 * The context database: the node's own Database wins, then msg.database. msg.database is checked
 * only when it is used, so a stray non-string msg.database never fails a node that has its own.
 */
function databaseFrom(RED: NodeAPI, node: Node, config: SqlNodeConfig, msg: Msg): Promise<string | undefined> | string | undefined {
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
  if (Array.isArray(p)) return positionalToNamed(query, p);
  if (typeof p !== 'object') {
    throw inputError(`msg.params must be an object ({"min": 5} for ":min") or an array (for "?" placeholders), not ${describeType(p)}`);
  }
  return { query, params: p as Record<string, unknown> };
}

/**
 * A msg.tick for a node whose flow control is off: not a query either, so it is refused where
 * Catch sees it, rather than vanish without output, error or status.
 */
const TICK_WITHOUT_FLOW_CONTROL_TEXT = 'msg.tick came to a sql node whose flow control ("Wait for a msg.tick back") is off: it is not a query, and there is no sequence for it to acknowledge; turn flow control on, or do not wire the tick back to this node';

export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-sql', ['requesting', 'ok', 'rows', 'streaming'] as const);
  function MindsDBSqlNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, SQL_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const asArrays = config.rowFormat === 'arrays';
    const rowsPerMsg = config.split ? config.rowsPerMsg : 0;
    const window = rowsPerMsg > 0 && config.flowControl ? new TickWindow(config.partsAhead) : undefined;
    // The convention's marker (node-red-contrib-postgresql): this node takes msg.tick back.
    if (window) (node as Node & { tickConsumer?: boolean }).tickConsumer = true;

    const metadata = (answer: SqlAnswer): Record<string, unknown> => {
      const meta: Record<string, unknown> = { type: answer.type, columns: answer.column_names, context: answer.context };
      if (answer.type === 'ok') meta.affectedRows = answer.affected_rows ?? null;
      if (asArrays) meta.data = answer.data;
      return meta;
    };

    /** With split on: the answer is read as it arrives and sent as a message sequence. */
    const streamed = async (msg: Msg, send: Send, request: SqlRequest, timeoutMs: number | undefined, client: MindsDBClient): Promise<void> => {
      const stream = await client.sqlStream(request, { timeoutMs, flowControl: window !== undefined });
      try {
        if (stream.type === 'ok') {
          const f = stream.fields;
          msg.mindsdb = { type: 'ok', columns: [], context: f.context, affectedRows: (f.affected_rows as number | null | undefined) ?? null, ...(asArrays ? { data: [] } : {}) };
          setOutput(RED, msg, outputProperty, []);
          send(msg);
          status.set(texts.ok('ok'));
          return;
        }
        const rows = await sendSequence(RED, msg, stream, send, {
          rowsPerMsg, asArrays, outputProperty, window,
          tickTimeoutMs: timeoutMs ?? client.requestTimeoutMs,
          progress: (n) => status.set(texts.busy('streaming', { count: n })),
        });
        status.set(texts.ok('rows', { count: rows }));
      } finally {
        stream.close();
      }
    };

    /** The status after a whole answer, made only when the throttled status is written. */
    const answeredStatus = (rows: number) => (rows < 0 ? texts.ok('ok') : texts.ok('rows', { count: rows }));

    /**
     * Split off: one request, one message. This is the per-message hot path: no promise from the
     * msg to its answer (client.sqlTo); the answer is shaped and sent in the callback.
     */
    const whole = (msg: Msg, send: Send, request: SqlRequest, timeoutMs: number | undefined, client: MindsDBClient, outcome: Outcome): void => {
      client.sqlTo(request, timeoutMs === undefined ? undefined : { timeoutMs }, (err: MindsDBError | null, answer?: SqlAnswer) => {
        if (err || !answer) { outcome.fail(err); return; }
        try {
          msg.mindsdb = metadata(answer);
          setOutput(RED, msg, outputProperty, answer.type === 'table' ? shape(answer) : []);
          send(msg);
          status.setWith(answeredStatus, answer.type === 'table' ? answer.data.length : -1);
        } catch (e) {
          outcome.fail(e);
          return;
        }
        outcome.ok();
      });
    };

    const requesting = texts.busy('requesting');
    handleInputWith(node, status, texts, (msg: Msg, send: Send, outcome: Outcome) => {
      // A tick coming back from the flow: it acknowledges a part and is never a query. It is taken
      // before anything else, so it never waits for a connection slot or anything else.
      if (msg.tick) {
        if (!window) throw inputError(TICK_WITHOUT_FLOW_CONTROL_TEXT);
        window.tick(msg.parts);
        outcome.ok();
        return;
      }
      const client = clientFor(RED, config.server);
      const { query, params } = withParams(queryFrom(config.query, msg), msg);
      const timeoutMs = timeoutFrom(msg);
      const run = (database: string | undefined): void => {
        const request: SqlRequest = { query, params, context: database ? { db: database } : undefined };
        status.set(requesting);
        if (rowsPerMsg > 0) streamed(msg, send, request, timeoutMs, client).then(() => outcome.ok(), (err: unknown) => outcome.fail(err));
        else whole(msg, send, request, timeoutMs, client, outcome);
      };
      const database = databaseFrom(RED, node, config, msg);
      if (database instanceof Promise) database.then(run).catch((err: unknown) => outcome.fail(err));
      else run(database);
    }, () => window?.close());

    const shape = (answer: SqlAnswer): unknown[] => (asArrays ? answer.data : rowsToObjects(answer.column_names, answer.data));
  }

  registerNodeType(RED, SQL_NODE, MindsDBSqlNode);
};
