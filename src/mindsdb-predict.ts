import { inputError, parseExplainColumns, targetFromRows, type MindsDBClient, type Row } from './client';
import { handleInput, timeoutFrom } from './runtime/input';
import { MicroBatcher, rowMayBeToBlame } from './runtime/micro-batcher';
import { migrateConfig } from './runtime/migrations';
import type { PredictNodeConfig } from './runtime/node-configs';
import { outputPropertyOf, setOutput } from './runtime/output';
import { configNumber, describeType, evaluateProperty, isPlainObject, nameFrom } from './runtime/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/red';
import { clientFor } from './runtime/server';
import { STATUS, ThrottledStatus } from './runtime/status';

/** One message's request, as the batcher sees it. */
interface PredictJob {
  client: MindsDBClient;
  project: string;
  model: string;
  params?: Record<string, unknown>;
  rows: Row[];
  /** The message's time budget, and when it runs out: counted from its arrival, batch wait included. */
  timeoutMs: number;
  deadlineAt: number;
}

/** msg.payload: an object is one row, an array of objects is many. */
function rowsFrom(payload: unknown): { rows: Row[]; single: boolean } {
  if (isPlainObject(payload)) return { rows: [payload], single: true };
  if (Array.isArray(payload)) {
    if (payload.length === 0) throw inputError('msg.payload is an empty array: there are no rows to predict');
    payload.forEach((row, i) => {
      if (!isPlainObject(row)) throw inputError(`msg.payload[${i}] must be an object of column values, not ${describeType(row)}`);
    });
    return { rows: payload as Row[], single: false };
  }
  throw inputError(`msg.payload must be an object (one row) or an array of objects (many rows), not ${describeType(payload)}`);
}

export = function register(RED: NodeAPI): void {
  function MindsDBPredictNode(this: Node, config: PredictNodeConfig): void {
    RED.nodes.createNode(this, config);
    migrateConfig('mindsdb-predict', config);
    const node = this;
    const status = new ThrottledStatus(node);
    const outputProperty = outputPropertyOf(config.outputProperty);
    const keepRaw = config.keepExplainString === true;

    // One HTTP request per batch: the rows of every message, in arrival order.
    const batcher = config.batch
      ? new MicroBatcher<PredictJob, Row>(
        Math.max(1, Math.floor(configNumber(config.batchSize, 100))),
        configNumber(config.batchWindow, 50),
        (_key, items) => {
          const first = items[0].input;
          const rows = items.length === 1 ? first.rows : items.flatMap((i) => i.input.rows);
          // The batch ends no later than its most impatient message must (its wait in the batch included).
          let soonest = first;
          for (const i of items) if (i.input.deadlineAt < soonest.deadlineAt) soonest = i.input;
          return first.client.predict(first.project, first.model, rows, first.params, { timeoutMs: soonest.timeoutMs, deadlineAt: soonest.deadlineAt });
        },
        (depth) => status.set(depth > 0 ? STATUS.queued(depth) : STATUS.ok('done')),
        rowMayBeToBlame,
      )
      : undefined;

    handleInput(node, status, async (msg: Msg, send: Send) => {
      const client = clientFor(RED, config.server);
      const project = await nameFrom(RED, node, config.project, config.projectType, msg, 'project') ?? 'mindsdb';
      const model = await nameFrom(RED, node, config.model, config.modelType, msg, 'model');
      if (!model) throw inputError('no model: set it in the node or in msg.model');
      const { rows, single } = rowsFrom(msg.payload);
      const configuredParams = await evaluateProperty(RED, node, config.params, config.paramsType || 'json', msg);
      const rawParams = configuredParams === undefined || configuredParams === '' ? msg.predictParams : configuredParams;
      if (rawParams !== undefined && rawParams !== null && !isPlainObject(rawParams)) {
        throw inputError(`the predict params must be an object, not ${describeType(rawParams)}`);
      }
      const params = rawParams === null ? undefined : rawParams as Record<string, unknown> | undefined;
      const timeoutMs = timeoutFrom(msg) ?? client.requestTimeoutMs;

      let predictions: Row[];
      if (batcher) {
        const key = params === undefined ? `${project}\u0000${model}` : `${project}\u0000${model}\u0000${JSON.stringify(params)}`;
        predictions = await batcher.add(key, { client, project, model, params, rows, timeoutMs, deadlineAt: Date.now() + timeoutMs }, rows.length);
      } else {
        status.set(STATUS.requesting);
        predictions = await client.predict(project, model, rows, params, { timeoutMs });
        status.set(STATUS.ok(`${predictions.length} predicted`));
      }
      parseExplainColumns(predictions, keepRaw);
      const target = targetFromRows(predictions) ?? await client.modelTarget(project, model);
      setOutput(RED, msg, outputProperty, single ? predictions[0] : predictions);
      msg.mindsdb = { project, model, target, rows: predictions.length };
      send(msg);
    }, () => { batcher?.flushNow(); });
  }

  registerNodeType(RED, 'mindsdb-predict', MindsDBPredictNode);
};
