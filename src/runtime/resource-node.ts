import {
  completeAgent, inputError, redactSecretFields, ResourcesApi, streamAgent, toAgentMessages,
  type ResourceKind, type ResourceOperation,
} from '../client';
import { handleInput, timeoutFrom } from './input';
import { migrateConfig } from './migrations';
import type { ResourceNodeConfig } from './node-configs';
import { outputPropertyOf, setOutput } from './output';
import { evaluateProperty, isPlainObject, nonEmptyString } from './properties';
import type { Msg, Node, NodeAPI, Send } from './red';
import { clientFor } from './server';
import { STATUS, ThrottledStatus } from './status';

type Operation = ResourceOperation | 'completions';
const CRUD: readonly ResourceOperation[] = ['list', 'get', 'create', 'update', 'delete'];

/**
 * The one Node-RED implementation behind mindsdb-chatbot, mindsdb-skill and mindsdb-agent: the
 * msg → request mapping is the same for all; what differs lives in the client's RESOURCES table.
 */
export function registerResourceNode(RED: NodeAPI, type: string, kind: ResourceKind): void {
  const operations: readonly Operation[] = kind === 'agent' ? [...CRUD, 'completions'] : CRUD;

  function MindsDBResourceNode(this: Node, config: ResourceNodeConfig): void {
    RED.nodes.createNode(this, config);
    migrateConfig(type, config);
    const node = this;
    const status = new ThrottledStatus(node);
    const outputProperty = outputPropertyOf(config.outputProperty);

    const operationOf = (msg: Msg): Operation => {
      const op = config.operation === 'msg' || !config.operation ? msg.operation : config.operation;
      if (typeof op !== 'string' || !operations.includes(op as Operation)) {
        throw inputError(`the ${kind} operation must be one of ${operations.join(', ')} (got ${JSON.stringify(op) ?? 'nothing'})`);
      }
      return op as Operation;
    };

    handleInput(node, status, async (msg: Msg, send: Send) => {
      const client = clientFor(RED, config.server);
      const operation = operationOf(msg);
      const project = nonEmptyString(await evaluateProperty(RED, node, config.project, config.projectType, msg)) ?? nonEmptyString(msg.project) ?? 'mindsdb';
      const name = nonEmptyString(await evaluateProperty(RED, node, config.itemName, config.itemNameType, msg)) ?? nonEmptyString(msg.name);
      const timeoutMs = timeoutFrom(msg);
      if (operation !== 'list' && !name) throw inputError(`no ${kind} name: set it in the node or in msg.name`);
      msg.mindsdb = { resource: kind, operation, project, name };
      status.set(STATUS.requesting);

      if (operation === 'completions') {
        const messages = toAgentMessages(msg.payload);
        if (config.streamMode === 'chunks') {
          // One message per streamed chunk, then the final answer, as a Join-compatible sequence.
          const id = RED.util.generateId();
          let index = 0;
          const result = await streamAgent(client, project, name as string, messages, (chunk) => {
            send({ ...msg, payload: chunk, parts: { id, index: index++, type: 'array' } } as Msg);
          }, { timeoutMs });
          (msg as Record<string, unknown>).parts = { id, index, count: index + 1, type: 'array' };
          msg.complete = true;
          (msg.mindsdb as Record<string, unknown>).response = result.response;
          setOutput(RED, msg, outputProperty, result.answer);
        } else {
          const result = await completeAgent(client, project, name as string, messages, { timeoutMs });
          (msg.mindsdb as Record<string, unknown>).response = redactSecretFields(result.response);
          setOutput(RED, msg, outputProperty, result.answer);
        }
        send(msg);
        status.set(STATUS.ok('answered'));
        return;
      }

      if ((operation === 'create' || operation === 'update') && msg.payload !== undefined && !isPlainObject(msg.payload)) {
        throw inputError(`msg.payload must be an object of the ${kind}'s settings for ${operation}`);
      }
      const agent = kind === 'skill' && operation === 'list'
        ? nonEmptyString(config.agent) ?? nonEmptyString(msg.agent)
        : undefined;
      const result = await new ResourcesApi(client).run(kind, operation, {
        project, name, agent,
        payload: isPlainObject(msg.payload) ? msg.payload : undefined,
      }, { timeoutMs });
      setOutput(RED, msg, outputProperty, redactSecretFields(result));
      send(msg);
      status.set(STATUS.ok(operation === 'list' && Array.isArray(result) ? `${result.length} ${kind}s` : `${operation} ok`));
    });
  }

  RED.nodes.registerType(type, MindsDBResourceNode as unknown as Parameters<NodeAPI['nodes']['registerType']>[1]);
}
