import { inputError, positionalToNamed, rowsToObjects, type SqlAnswer } from './client';
import { handleInput, timeoutFrom } from './runtime/input';
import { migrateConfig } from './runtime/migrations';
import type { SqlNodeConfig } from './runtime/node-configs';
import { outputPropertyOf, setOutput } from './runtime/output';
import { configNumber, describeType, evaluateProperty, nonEmptyString } from './runtime/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/red';
import { clientFor } from './runtime/server';
import { STATUS, ThrottledStatus } from './runtime/status';

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

export = function register(RED: NodeAPI): void {
  function MindsDBSqlNode(this: Node, config: SqlNodeConfig): void {
    RED.nodes.createNode(this, config);
    migrateConfig('mindsdb-sql', config);
    const node = this;
    const status = new ThrottledStatus(node);
    const outputProperty = outputPropertyOf(config.outputProperty);
    const asArrays = config.rowFormat === 'arrays';
    const rowsPerMsg = config.split ? Math.floor(configNumber(config.rowsPerMsg, 100)) : 0;

    const shape = (answer: SqlAnswer, start: number, end: number): unknown[] =>
      asArrays ? answer.data.slice(start, end) : rowsToObjects(answer.column_names, answer.data, start, end);

    const metadata = (answer: SqlAnswer): Record<string, unknown> => {
      const meta: Record<string, unknown> = { type: answer.type, columns: answer.column_names, context: answer.context };
      if (answer.type === 'ok') meta.affectedRows = answer.affected_rows ?? null;
      if (asArrays) meta.data = answer.data;
      return meta;
    };

    /** Sends the rows as a Join-compatible message sequence of `rowsPerMsg` rows each. */
    const sendSequence = (msg: Msg, answer: SqlAnswer, send: Send): void => {
      const total = answer.data.length;
      const count = Math.max(1, Math.ceil(total / rowsPerMsg));
      const id = RED.util.generateId();
      const meta = metadata(answer);
      for (let index = 0; index < count; index++) {
        const start = index * rowsPerMsg;
        const part: Msg = { ...msg, parts: { id, index, count, type: 'array', len: rowsPerMsg, ...(msg.parts ? { parts: msg.parts } : {}) } } as Msg;
        part.mindsdb = meta;
        setOutput(RED, part, outputProperty, shape(answer, start, Math.min(total, start + rowsPerMsg)));
        if (index === count - 1) part.complete = true;
        send(part);
      }
    };

    handleInput(node, status, async (msg: Msg, send: Send) => {
      const client = clientFor(RED, config.server);
      const { query, params } = withParams(queryFrom(config.query, msg), msg);
      const timeoutMs = timeoutFrom(msg);
      const database = nonEmptyString(await evaluateProperty(RED, node, config.database, config.databaseType, msg)) ?? nonEmptyString(msg.database);
      if (msg.database !== undefined && typeof msg.database !== 'string') throw inputError('msg.database must be a string');
      status.set(STATUS.requesting);
      const answer = await client.sql({ query, params, context: database ? { db: database } : undefined }, { timeoutMs });
      if (rowsPerMsg > 0 && answer.type === 'table') {
        sendSequence(msg, answer, send);
      } else {
        msg.mindsdb = metadata(answer);
        setOutput(RED, msg, outputProperty, answer.type === 'table' ? shape(answer, 0, answer.data.length) : []);
        send(msg);
      }
      status.set(answer.type === 'table' ? STATUS.ok(`${answer.data.length} rows`) : STATUS.ok('ok'));
    });
  }

  registerNodeType(RED, 'mindsdb-sql', MindsDBSqlNode);
};
