// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import {
  inputError,
  plainJson,
  parseExplainColumns,
  targetFromRows,
  withStoredName,
  type MindsDBClient,
  type RequestOptions,
  type Row,
} from './client';
import { PREDICT_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { controlBatch, controlOf } from './runtime/message/control';
import { MicroBatcher, rowMayBeToBlame } from './runtime/message/micro-batcher';
import { describe, setOutput } from './runtime/message/output';
import {
  describeType,
  evaluateProperty,
  isPlainObject,
  nameFrom,
  projectFrom,
  rowCount,
} from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor, clientKey } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

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
  /** The model's name as MindsDB stored it, once a prediction answered. */
  stored?: string;
}

/**
 * Predicts for `jobs` (one message's, or a batch's with the same project, model and params) with
 * the model as MindsDB stored its name: as typed, or (after a 404) the one spelling the project
 * lists that differs only in case (a model made by unquoted SQL as `MyModel` is stored as
 * `mymodel`). A name given exactly as stored costs nothing more. `opts` carries the deadline of
 * the most impatient message, which the lookup shares.
 */
async function predictStored(jobs: PredictJob[], rows: Row[], opts: RequestOptions): Promise<Row[]> {
  const { client, project, model, params } = jobs[0];
  let stored = model;
  const predictions = await withStoredName(
    client,
    { resource: 'model', project },
    model,
    (m) => {
      stored = m;
      return client.predict(project, m, rows, params, opts);
    },
    { request: opts },
  );
  for (const job of jobs) job.stored = stored;
  return predictions;
}

/** msg.payload: an object is one row, an array of objects is many. */
function rowsFrom(payload: unknown): { rows: Row[]; single: boolean } {
  if (isPlainObject(payload)) return { rows: [payload], single: true };
  if (Array.isArray(payload)) {
    if (payload.length === 0) throw inputError('msg.payload is an empty array: there are no rows to predict');
    payload.forEach((row, i) => {
      if (!isPlainObject(row))
        throw inputError(`msg.payload[${i}] must be an object of column values, not ${describeType(row)}`);
    });
    return { rows: payload as Row[], single: false };
  }
  throw inputError(
    `msg.payload must be an object (one row) or an array of objects (many rows), not ${describeType(payload)}`,
  );
}

export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-predict', ['requesting', 'done', 'predicted', 'queued'] as const);
  function MindsDBPredictNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, PREDICT_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const keepRaw = config.keepExplainString;

    // One HTTP request per batch: the rows of every message, in arrival order.
    const batcher = config.batch
      ? new MicroBatcher<PredictJob, Row>(
          config.batchSize,
          config.batchWindow,
          (_key, items) => {
            const first = items[0].input;
            const rows = items.length === 1 ? first.rows : items.flatMap((i) => i.input.rows);
            // The batch ends no later than its most impatient message must (its wait in the batch included).
            let soonest = first;
            for (const i of items) if (i.input.deadlineAt < soonest.deadlineAt) soonest = i.input;
            return predictStored(
              items.map((i) => i.input),
              rows,
              { timeoutMs: soonest.timeoutMs, deadlineAt: soonest.deadlineAt },
            );
          },
          (depth) => status.set(depth > 0 ? texts.waiting('queued', { count: depth }) : texts.ok('done')),
          rowMayBeToBlame,
        )
      : undefined;

    handleInput(
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
        describe(msg, { rows: rowCount(msg.payload) });
        const project = await projectFrom(RED, node, config.project, msg);
        describe(msg, { project });
        const model = await nameFrom(RED, node, config.model, msg, 'model');
        describe(msg, { model });
        const client = clientFor(RED, config, msg);
        if (!model) throw inputError('no model: set it in the node or in msg.model');
        // Values by the one rule for what is not plain JSON (a Date as its ISO text …), named by their place in the
        // msg.
        const { rows, single } = rowsFrom(plainJson(msg.payload, 'msg.payload'));
        const configuredParams = await evaluateProperty(RED, node, config.params, msg);
        const fromMsg = configuredParams === undefined || configuredParams === '';
        const rawParams = plainJson(
          fromMsg ? msg.predictParams : configuredParams,
          fromMsg ? 'msg.predictParams' : "the node's Params",
        );
        if (rawParams !== undefined && rawParams !== null && !isPlainObject(rawParams)) {
          throw inputError(`the predict params must be an object, not ${describeType(rawParams)}`);
        }
        const params = rawParams === null ? undefined : (rawParams as Record<string, unknown> | undefined);
        const timeoutMs = timeoutFrom(msg) ?? client.requestTimeoutMs;

        let predictions: Row[];
        const job: PredictJob = { client, project, model, params, rows, timeoutMs, deadlineAt: Date.now() + timeoutMs };
        if (batcher) {
          // One batch, one request: to one server (msg.server may choose another), model and params.
          const paramsKey = params === undefined ? '' : `\u0000${JSON.stringify(params)}`;
          const key = `${clientKey(client)}\u0000${project}\u0000${model}${paramsKey}`;
          predictions = await batcher.add(key, job, rows.length);
        } else {
          status.set(texts.busy('requesting'));
          predictions = await predictStored([job], rows, { timeoutMs, deadlineAt: job.deadlineAt });
          status.set(texts.ok('predicted', { count: predictions.length }));
        }
        parseExplainColumns(predictions, keepRaw);
        const target = targetFromRows(predictions) ?? (await client.modelTarget(project, job.stored ?? model));
        setOutput(RED, msg, outputProperty, single ? predictions[0] : predictions);
        msg.mindsdb = { project, model, target, rows: predictions.length };
        send(msg);
      },
      () => {
        batcher?.flushNow();
      },
    );
  }

  registerNodeType(RED, PREDICT_NODE, MindsDBPredictNode);
};
