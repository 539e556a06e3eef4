// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import {
  inputError,
  plainJson,
  ModelsApi,
  type AbortLike,
  type TrainingRun,
  type TrainSpec,
  type UpdateSpec,
} from './client';
import { MODEL_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput, writing } from './runtime/message/output';
import { describeType, isPlainObject, jsonObjectText, nameFrom, projectFrom } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(MODEL_NODE.fields.operation);
type Operation = (typeof OPERATIONS)[number];

/** A node text field, else the message's value (a string), else undefined. */
function field(nodeValue: string | undefined, msgValue: unknown, what: string): string | undefined {
  if (nodeValue !== undefined && nodeValue.trim() !== '') return nodeValue.trim();
  if (msgValue === undefined || msgValue === null || msgValue === '') return undefined;
  if (typeof msgValue !== 'string')
    throw inputError(`msg.payload.${what} must be a string, not ${describeType(msgValue)}`);
  return msgValue;
}

/** A version number from msg.version (when the node has none); undefined when it says nothing. */
function versionFrom(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
    throw inputError(`the model version must be a whole number from 1 (got ${JSON.stringify(raw) ?? typeof raw})`);
  return n;
}

/**
 * Lets a wait in progress end when the node closes (redeploy): the poll loop checks `aborted`
 * and its pause is cut short, so the message ends with a clear error instead of hanging.
 */
class Closing implements AbortLike {
  aborted = false;
  private readonly listeners = new Set<() => void>();
  onAbort(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
  abort(): void {
    this.aborted = true;
    for (const l of [...this.listeners]) l();
    this.listeners.clear();
  }
}

/** The model node: train (then optionally wait), get, describe, retrain, finetune, list, versions, activate, delete. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-model', [
    'requesting',
    'progress',
    'trained',
    'version',
    'models',
    'versions',
    'get',
    'describe',
    'activate',
    'delete',
  ] as const);
  function MindsDBModelNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, MODEL_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const waitMs = config.waitTimeout * 1000;
    const closing = new Closing();
    let nodeUsing: Record<string, unknown> | Error;
    try {
      nodeUsing = jsonObjectText(config.using, "the node's USING options");
    } catch (err) {
      nodeUsing = err as Error;
    }

    /** Node USING options win; msg.payload.using fills the keys the node leaves out. */
    const usingFrom = (payload: Record<string, unknown>): Record<string, unknown> => {
      if (nodeUsing instanceof Error) throw nodeUsing;
      const using = plainJson(payload.using, 'msg.payload.using');
      if (using !== undefined && !isPlainObject(using))
        throw inputError('msg.payload.using must be an object of USING options');
      return { ...(using as Record<string, unknown> | undefined), ...nodeUsing };
    };

    handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'model');
        describe(msg, { operation });
        if (operation === 'train' || operation === 'retrain' || operation === 'finetune') writing(msg);
        const project = await projectFrom(RED, node, config.project, msg);
        describe(msg, { project });
        const model = await nameFrom(RED, node, config.model, msg, 'model');
        describe(msg, { model });
        const version = config.modelVersion ?? versionFrom(msg.version);
        describe(msg, { version });
        const api = new ModelsApi(clientFor(RED, config, msg));
        const timeoutMs = timeoutFrom(msg);
        const opts = { timeoutMs };
        const payload = isPlainObject(msg.payload) ? msg.payload : {};
        const needsModel = operation !== 'list' && !(operation === 'train' && statementOf(msg, payload) !== undefined);
        if (needsModel && !model) throw inputError('no model name: set it in the node or in msg.model');
        const m = model as string;

        let result: unknown;
        let run: TrainingRun | undefined;
        status.set(texts.busy('requesting'));
        switch (operation) {
          case 'list':
            result = await api.list(project, opts);
            break;
          case 'versions':
            result = await api.versions(project, m, opts);
            break;
          case 'get':
            result = await api.get(project, m, version, opts);
            break;
          case 'describe':
            result = await api.describe(project, m, version, opts);
            break;
          case 'activate':
            if (version === undefined)
              throw inputError('activate needs a version: set it in the node or in msg.version');
            result = await api.activate(project, m, version, opts);
            break;
          case 'delete':
            result = await api.delete(project, m, version, opts);
            break;
          case 'train': {
            const statement = statementOf(msg, payload);
            run = await api.train(project, statement !== undefined ? { statement } : trainSpec(m, payload), opts);
            break;
          }
          case 'retrain':
            run = await api.retrain(project, m, updateSpec(payload), opts);
            break;
          case 'finetune':
            run = await api.finetune(project, m, updateSpec(payload), opts);
            break;
        }

        if (run) {
          const { model: trained, version: newVersion } = run;
          describe(msg, { project: run.project, model: run.model, version: run.version });
          const started = Date.now();
          result = config.wait
            ? await api.waitFor(run, {
                deadlineMs: waitMs,
                signal: closing,
                timeoutMs,
                onProgress: (state, seconds) =>
                  status.set(texts.waiting('progress', { state, model: trained, version: newVersion, seconds })),
              })
            : await api.record(run, opts);
          const record = result as Record<string, unknown>;
          msg.mindsdb = {
            operation,
            project: run.project,
            model: run.model,
            version: run.version,
            status: record?.status,
            waitedSeconds: config.wait ? Math.round((Date.now() - started) / 1000) : undefined,
            stored: true,
          };
          setOutput(RED, msg, outputProperty, result);
          send(msg);
          const state = String(record?.status ?? '');
          status.set(
            state
              ? texts.ok('trained', { model: trained, version: newVersion, state })
              : texts.ok('version', { model: trained, version: newVersion }),
          );
          return;
        }
        msg.mindsdb = { operation, project, model, version };
        setOutput(RED, msg, outputProperty, result);
        send(msg);
        const count = Array.isArray(result) ? result.length : 0;
        if (operation === 'list' || operation === 'versions')
          status.set(texts.ok(operation === 'list' ? 'models' : 'versions', { count }));
        else if (operation !== 'train' && operation !== 'retrain' && operation !== 'finetune')
          status.set(texts.ok(operation));
      },
      () => {
        closing.abort();
      },
    );

    /**
     * A whole CREATE MODEL: the node's, else (when the node has no fields for it) msg.payload as a string or
     * msg.payload.statement.
     */
    function statementOf(msg: Msg, payload: Record<string, unknown>): string | undefined {
      if (config.statement.trim() !== '') return config.statement;
      if (config.predict.trim() !== '') return undefined;
      if (typeof msg.payload === 'string' && msg.payload.trim() !== '') return msg.payload;
      return field(undefined, payload.statement, 'statement');
    }

    function trainSpec(model: string, payload: Record<string, unknown>): TrainSpec {
      return {
        model,
        database: field(config.database, payload.database, 'database'),
        select: field(config.select, payload.select, 'select'),
        predict: field(config.predict, payload.predict, 'predict'),
        engine: field(config.engine, payload.engine, 'engine'),
        using: usingFrom(payload),
      };
    }

    function updateSpec(payload: Record<string, unknown>): UpdateSpec {
      const using = usingFrom(payload);
      const engine = field(config.engine, payload.engine, 'engine');
      return {
        database: field(config.database, payload.database, 'database'),
        select: field(config.select, payload.select, 'select'),
        using: engine ? { ...using, engine } : using,
      };
    }
  }

  registerNodeType(RED, MODEL_NODE, MindsDBModelNode);
};
