import {
  completeAgent, inputError, plainJson, redactSecretFields, ResourcesApi, streamAgent, toAgentMessages,
  type AgentMessage, type Completion, type MindsDBClient, type ResourceKind, type ResourceOperation,
} from '../../client';
import type { AgentNodeConfig, AGENT_NODE, CHATBOT_NODE, ConfigOf, SkillNodeConfig, SKILL_NODE } from '../../schema';
import { startNode, type SavedConfig } from '../node/config';
import { handleInput, timeoutFrom } from './input';
import { setOutput } from './output';
import { projectItemOf } from './project-item';
import { operationsOf } from './operation';
import { isPlainObject, msgText, nonEmptyString } from './properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type NodeMessageParts, type Send } from '../node/red';

/** msg.parts as Node-RED's split node writes it (the typings know only id, index and count). */
type SequenceParts = NodeMessageParts & { type: 'array'; parts?: unknown };
import { clientFor } from '../node/server';
import { ThrottledStatus } from '../status/status';
import { StatusTexts } from '../status/status-texts';

type ResourceSchema = typeof CHATBOT_NODE | typeof SKILL_NODE | typeof AGENT_NODE;
/** What the three nodes save alike, and what one of them adds (a skill's agent, an agent's stream mode). */
type ResourceConfig = ConfigOf<ResourceSchema> & Partial<Pick<SkillNodeConfig, 'agent'> & Pick<AgentNodeConfig, 'streamMode'>>;

/**
 * The one Node-RED implementation behind mindsdb-chatbot, mindsdb-skill and mindsdb-agent: the
 * msg → request mapping is the same for all; what differs lives in the client's RESOURCES table.
 */
export function registerResourceNode(RED: NodeAPI, schema: ResourceSchema, kind: ResourceKind): void {
  const operations = operationsOf<ResourceConfig['operation']>(schema.fields.operation);
  // "answered" is the agent's only (completions); the list's count has the resource's own noun.
  const crud = operations.filter((op): op is ResourceOperation => op !== 'completions');
  const texts = new StatusTexts<'requesting' | ResourceOperation | 'answered'>(schema.type, ['requesting', ...crud, ...(kind === 'agent' ? ['answered' as const] : [])]);

  function MindsDBResourceNode(this: Node, saved: SavedConfig): void {
    const config: ResourceConfig = startNode(RED, this, schema, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      const { operation, project, name } = await projectItemOf(RED, node, msg, kind, { configured: config.operation, allowed: operations, what: kind }, config);
      const client = clientFor(RED, config, msg);
      const timeoutMs = timeoutFrom(msg);
      if (operation !== 'list' && !name) throw inputError(`no ${kind} name: set it in the node or in msg.name`);
      status.set(texts.busy('requesting'));

      if (operation === 'completions') {
        const messages = toAgentMessages(plainJson(msg.payload, 'msg.payload'));
        const result = config.streamMode === 'chunks'
          ? await streamInChunks(msg, send, client, project, name as string, messages, timeoutMs)
          : await completeAgent(client, project, name as string, messages, { timeoutMs });
        (msg.mindsdb as Record<string, unknown>).response = redactSecretFields(result.response);
        setOutput(RED, msg, outputProperty, result.answer);
        send(msg);
        status.set(texts.ok('answered'));
        return;
      }

      // Settings by the one rule for values that are not plain JSON (a Date as its ISO text …), named by their place in msg.payload.
      const settings = (operation === 'create' || operation === 'update') && msg.payload !== undefined ? plainJson(msg.payload, 'msg.payload') : undefined;
      if (settings !== undefined && !isPlainObject(settings)) {
        throw inputError(`msg.payload must be an object of the ${kind}'s settings for ${operation}`);
      }
      const agent = kind === 'skill' && operation === 'list'
        ? nonEmptyString(config.agent) ?? msgText(msg, 'agent')
        : undefined;
      const result = await new ResourcesApi(client).run(kind, operation, {
        project, name, agent,
        payload: isPlainObject(settings) ? settings : undefined,
      }, { timeoutMs });
      setOutput(RED, msg, outputProperty, redactSecretFields(result));
      send(msg);
      status.set(operation === 'list' ? texts.ok('list', { count: Array.isArray(result) ? result.length : 0 }) : texts.ok(operation));
    });

    /**
     * Chunk mode: one message per streamed event, each a part of a Join-compatible sequence
     * (parts.id/index, an incoming msg.parts nested as parts.parts, the event at the Output
     * property); the final answer is the input msg itself as the last part (parts.count,
     * msg.complete). A stream that breaks after N events: the N messages already sent stay sent,
     * and the input msg ends with one error to Catch, with msg.mindsdb.sequence = {id, chunks: N}
     * naming the unfinished sequence; it never gets a last part.
     */
    async function streamInChunks(msg: Msg, send: Send, client: MindsDBClient, project: string, agent: string,
      messages: AgentMessage[], timeoutMs: number | undefined): Promise<Completion> {
      const id = RED.util.generateId();
      const outer = msg.parts;
      const partsAt = (index: number, count?: number): SequenceParts => ({
        id, index, type: 'array', ...(count === undefined ? {} : { count }), ...(outer === undefined ? {} : { parts: outer }),
      });
      let index = 0;
      try {
        const result = await streamAgent(client, project, agent, messages, (event) => {
          const part = RED.util.cloneMessage(msg) as Msg;
          part.parts = partsAt(index++);
          delete part.complete;
          setOutput(RED, part, outputProperty, redactSecretFields(event));
          send(part);
        }, { timeoutMs });
        msg.parts = partsAt(index, index + 1);
        msg.complete = true;
        return result;
      } catch (err) {
        if (index > 0) (msg.mindsdb as Record<string, unknown>).sequence = { id, chunks: index };
        throw err;
      }
    }
  }

  registerNodeType(RED, schema, MindsDBResourceNode);
}
