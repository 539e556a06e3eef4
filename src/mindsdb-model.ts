import { inputError, ModelsApi, type AbortLike, type TrainingRun, type TrainSpec, type UpdateSpec } from './client';
import { handleInput, timeoutFrom } from './runtime/input';
import { operationOf } from './runtime/operation';
import { migrateConfig } from './runtime/migrations';
import type { ModelNodeConfig, ModelOperation } from './runtime/node-configs';
import { outputPropertyOf, setOutput } from './runtime/output';
import { configNumber, describeType, isPlainObject, nameFrom } from './runtime/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/red';
import { clientFor } from './runtime/server';
import { STATUS, ThrottledStatus } from './runtime/status';

type Operation = Exclude<ModelOperation, 'msg'>;
const OPERATIONS: readonly Operation[] = ['train', 'get', 'describe', 'retrain', 'finetune', 'list', 'versions', 'activate', 'delete'];

/** A node text field, else the message's value (a string), else undefined. */
function field(nodeValue: string | undefined, msgValue: unknown, what: string): string | undefined {
  if (nodeValue !== undefined && nodeValue.trim() !== '') return nodeValue.trim();
  if (msgValue === undefined || msgValue === null || msgValue === '') return undefined;
  if (typeof msgValue !== 'string') throw inputError(`msg.payload.${what} must be a string, not ${describeType(msgValue)}`);
  return msgValue;
}

function usingOf(text: string | undefined): Record<string, unknown> {
  if (!text || text.trim() === '') return {};
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { throw inputError('the node\'s USING options are not valid JSON'); }
  if (!isPlainObject(parsed)) throw inputError('the node\'s USING options must be a JSON object');
  return parsed;
}

/** A version number from the node or msg.version; undefined when neither says. */
function versionOf(nodeValue: string | undefined, msgValue: unknown): number | undefined {
  const raw = nodeValue !== undefined && nodeValue.trim() !== '' ? nodeValue.trim() : msgValue;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw inputError(`the model version must be a whole number from 1 (got ${JSON.stringify(raw) ?? typeof raw})`);
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
    return () => { this.listeners.delete(listener); };
  }
  abort(): void {
    this.aborted = true;
    for (const l of [...this.listeners]) l();
    this.listeners.clear();
  }
}

/** The model node: train (then optionally wait), get, describe, retrain, finetune, list, versions, activate, delete. */
export = function register(RED: NodeAPI): void {
  function MindsDBModelNode(this: Node, config: ModelNodeConfig): void {
    RED.nodes.createNode(this, config);
    migrateConfig('mindsdb-model', config);
    const node = this;
    const status = new ThrottledStatus(node);
    const outputProperty = outputPropertyOf(config.outputProperty);
    const waitMs = configNumber(config.waitTimeout, 600) * 1000;
    const closing = new Closing();
    let nodeUsing: Record<string, unknown> | Error;
    try { nodeUsing = usingOf(config.using); } catch (err) { nodeUsing = err as Error; }


    /** Node USING options win; msg.payload.using fills the keys the node leaves out. */
    const usingFrom = (payload: Record<string, unknown>): Record<string, unknown> => {
      if (nodeUsing instanceof Error) throw nodeUsing;
      if (payload.using !== undefined && !isPlainObject(payload.using)) throw inputError('msg.payload.using must be an object of USING options');
      return { ...(payload.using as Record<string, unknown> | undefined), ...nodeUsing };
    };

    handleInput(node, status, async (msg: Msg, send: Send) => {
      const api = new ModelsApi(clientFor(RED, config.server));
      const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'model');
      const project = await nameFrom(RED, node, config.project, config.projectType, msg, 'project') ?? 'mindsdb';
      const model = await nameFrom(RED, node, config.model, config.modelType, msg, 'model');
      const timeoutMs = timeoutFrom(msg);
      const opts = { timeoutMs };
      const payload = isPlainObject(msg.payload) ? msg.payload : {};
      const version = versionOf(config.modelVersion, msg.version);
      const needsModel = operation !== 'list' && !(operation === 'train' && statementOf(msg, payload) !== undefined);
      if (needsModel && !model) throw inputError('no model name: set it in the node or in msg.model');
      const m = model as string;

      let result: unknown;
      let run: TrainingRun | undefined;
      status.set(STATUS.requesting);
      switch (operation) {
        case 'list': result = await api.list(project, opts); break;
        case 'versions': result = await api.versions(project, m, opts); break;
        case 'get': result = await api.get(project, m, version, opts); break;
        case 'describe': result = await api.describe(project, m, version, opts); break;
        case 'activate':
          if (version === undefined) throw inputError('activate needs a version: set it in the node or in msg.version');
          result = await api.activate(project, m, version, opts);
          break;
        case 'delete': result = await api.delete(project, m, version, opts); break;
        case 'train': {
          const statement = statementOf(msg, payload);
          run = await api.train(project, statement !== undefined ? { statement } : trainSpec(m, payload), opts);
          break;
        }
        case 'retrain': run = await api.retrain(project, m, updateSpec(payload), opts); break;
        case 'finetune': run = await api.finetune(project, m, updateSpec(payload), opts); break;
      }

      if (run) {
        const started = Date.now();
        result = config.wait
          ? await api.waitFor(run, {
            deadlineMs: waitMs,
            signal: closing,
            timeoutMs,
            onProgress: (s, seconds) => status.set({ fill: 'yellow', shape: 'ring', text: `${s}: ${run?.model} v${run?.version}, ${seconds} s` }),
          })
          : await api.record(run, opts);
        const record = result as Record<string, unknown>;
        msg.mindsdb = { operation, project: run.project, model: run.model, version: run.version, status: record?.status, waitedSeconds: config.wait ? Math.round((Date.now() - started) / 1000) : undefined };
        setOutput(RED, msg, outputProperty, result);
        send(msg);
        status.set(STATUS.ok(`${run.model} v${run.version} ${String(record?.status ?? '')}`.trim()));
        return;
      }
      msg.mindsdb = { operation, project, model, version };
      setOutput(RED, msg, outputProperty, result);
      send(msg);
      const count = Array.isArray(result) ? result.length : 0;
      status.set(STATUS.ok(operation === 'list' ? `${count} models` : operation === 'versions' ? `${count} versions` : `${operation} ok`));
    }, () => { closing.abort(); });

    /** A whole CREATE MODEL: the node's, else (when the node has no fields for it) msg.payload as a string or msg.payload.statement. */
    function statementOf(msg: Msg, payload: Record<string, unknown>): string | undefined {
      if (config.statement && config.statement.trim() !== '') return config.statement;
      if (config.predict && config.predict.trim() !== '') return undefined;
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

  registerNodeType(RED, 'mindsdb-model', MindsDBModelNode);
};
