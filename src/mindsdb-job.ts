// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { checkSchedule, inputError, JobsApi, jobDate, type JobSpec } from './client';
import { JOB_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationsOf } from './runtime/message/operation';
import { setOutput } from './runtime/message/output';
import { projectItemOf } from './runtime/message/project-item';
import { describeType, isPlainObject } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(JOB_NODE.fields.operation);

/** The first value that is set: a node field (text) wins over the message's. */
function pick(nodeValue: string, ...msgValues: unknown[]): unknown {
  if (nodeValue.trim() !== '') return nodeValue.trim();
  return msgValues.find((v) => v !== undefined && v !== null && v !== '');
}

function text(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw inputError(`the job's ${what} must be a string, not ${describeType(value)}`);
  return value;
}

/** The job node: create (query, schedule, start, end, condition), list, get, history, delete. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-job', ['requesting', 'jobs', 'runs', 'create', 'get', 'delete'] as const);
  function MindsDBJobNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, JOB_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    // A schedule typed in the node is checked once, so a typo shows at deploy, not at the first message.
    if (config.schedule.trim() !== '') {
      try {
        checkSchedule(config.schedule);
      } catch (err) {
        node.warn((err as Error).message);
      }
    }

    /**
     * Node fields win; msg.payload ({query, schedule, start_at, end_at, if_query} or the query as a string) fills
     * blanks.
     */
    const specFrom = (msg: Msg): JobSpec => {
      const p = isPlainObject(msg.payload) ? msg.payload : {};
      // With the query in the node, msg.payload may be anything (an inject's timestamp); otherwise it must say what to
      // run.
      const nodeHasQuery = config.query.trim() !== '';
      if (
        !nodeHasQuery &&
        msg.payload !== undefined &&
        msg.payload !== null &&
        !isPlainObject(msg.payload) &&
        typeof msg.payload !== 'string'
      ) {
        throw inputError(
          "msg.payload must be the job's query (a string) or an object {query, schedule, start_at, end_at, if_query}",
        );
      }
      const query = text(
        pick(config.query, p.query, !nodeHasQuery && typeof msg.payload === 'string' ? msg.payload : undefined),
        'query',
      );
      if (!query || query.trim() === '')
        throw inputError('no job query: set it in the node, in msg.payload.query, or as a string msg.payload');
      return {
        query,
        schedule_str: text(pick(config.schedule, p.schedule, p.schedule_str), 'schedule'),
        start_at: jobDate(pick(config.startAt, p.start_at, p.startAt), 'start'),
        end_at: jobDate(pick(config.endAt, p.end_at, p.endAt), 'end'),
        if_query: text(pick(config.ifQuery, p.if_query, p.ifQuery), 'condition (if_query)'),
      };
    };

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      const { operation, project, name } = await projectItemOf(
        RED,
        node,
        msg,
        'job',
        { configured: config.operation, allowed: OPERATIONS, what: 'job' },
        config,
      );
      const api = new JobsApi(clientFor(RED, config, msg));
      if (operation !== 'list' && !name) throw inputError('no job name: set it in the node or in msg.name');
      const timeoutMs = timeoutFrom(msg);
      const spec = operation === 'create' ? specFrom(msg) : undefined;
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
          result = await api.create(project, name as string, spec as JobSpec, { timeoutMs });
          break;
        case 'history':
          result = await api.history(project, name as string, { timeoutMs });
          break;
        case 'delete':
          result = await api.delete(project, name as string, { timeoutMs });
          break;
      }
      setOutput(RED, msg, outputProperty, result);
      msg.mindsdb = { resource: 'job', operation, project, name };
      send(msg);
      const count = Array.isArray(result) ? result.length : 0;
      status.set(
        operation === 'list'
          ? texts.ok('jobs', { count })
          : operation === 'history'
            ? texts.ok('runs', { count })
            : texts.ok(operation),
      );
    });
  }

  registerNodeType(RED, JOB_NODE, MindsDBJobNode);
};
