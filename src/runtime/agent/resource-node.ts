import {
  AgentsApi,
  inputError,
  plainJson,
  redactSecretFields,
  ResourcesApi,
  type ResourceKind,
  type ResourceOperation,
} from '../../client';
import type { AgentNodeConfig, AGENT_NODE, CHATBOT_NODE, ConfigOf, SkillNodeConfig, SKILL_NODE } from '../../schema';
import { startNode, type SavedConfig } from '../node/config';
import { CLOSE_GRACE_MS, handleInput, timeoutFrom } from '../message/input';
import { setOutput } from '../message/output';
import { projectItemOf } from '../message/project-item';
import { operationsOf } from '../message/operation';
import { isPlainObject, msgText, nonEmptyString } from '../message/properties';
import { AgentAnswers } from './agent-answers';
import { withNodeData } from './agent-settings';
import { controlOf } from '../message/control';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from '../node/red';
import { clientFor } from '../node/server';
import { ThrottledStatus } from '../status/status';
import { StatusTexts } from '../status/status-texts';

type ResourceSchema = typeof CHATBOT_NODE | typeof SKILL_NODE | typeof AGENT_NODE;
/** What the three nodes save alike, and what one of them adds (a skill's agent, an agent's answers and memory). */
type ResourceConfig = ConfigOf<ResourceSchema> & Partial<Pick<SkillNodeConfig, 'agent'>> & Partial<AgentNodeConfig>;

/**
 * The one Node-RED implementation behind mindsdb-chatbot, mindsdb-skill and mindsdb-agent: the
 * msg → request mapping is the same for all; what differs lives in the client's RESOURCES table.
 */
export function registerResourceNode(RED: NodeAPI, schema: ResourceSchema, kind: ResourceKind): void {
  const operations = operationsOf<ResourceConfig['operation']>(schema.fields.operation);
  // "answered" is the agent's only (completions); the list's count has the resource's own noun.
  const crud = operations.filter((op): op is ResourceOperation => op !== 'completions');
  const texts = new StatusTexts<'requesting' | ResourceOperation | 'answered'>(schema.type, [
    'requesting',
    ...crud,
    ...(kind === 'agent' ? ['answered' as const] : []),
  ]);

  function MindsDBResourceNode(this: Node, saved: SavedConfig): void {
    const config: ResourceConfig = startNode(RED, this, schema, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const answers = kind === 'agent' ? new AgentAnswers(RED, node, config as AgentNodeConfig) : undefined;

    const ring = handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        // The agent node's msg.reset stops answers under way (and forgets a conversation): a control message, not a
        // request.
        const control = answers ? controlOf(msg) : undefined;
        if (answers && control) {
          await answers.control(msg, control);
          return;
        }
        const { operation, project, name } = await projectItemOf(
          RED,
          node,
          msg,
          kind,
          { configured: config.operation, allowed: operations, what: kind },
          config,
        );
        const client = clientFor(
          RED,
          config,
          msg,
          operation === 'completions' && (config as AgentNodeConfig).memory ? 'its conversations' : undefined,
        );
        const timeoutMs = timeoutFrom(msg);
        if (operation !== 'list' && !name) throw inputError(`no ${kind} name: set it in the node or in msg.name`);
        status.set(texts.busy('requesting'));

        if (operation === 'completions') {
          // Only the agent node has completions, and so its answers.
          const result = await (answers as AgentAnswers).ask(msg, send, client, project, name as string, timeoutMs);
          (msg.mindsdb as Record<string, unknown>).response = redactSecretFields(result.response);
          setOutput(RED, msg, outputProperty, result.answer);
          send(msg);
          status.set(texts.ok('answered'));
          return;
        }

        // Settings by the one rule for values that are not plain JSON (a Date as its ISO text …), named by their place
        // in msg.payload.
        const settings =
          (operation === 'create' || operation === 'update') && msg.payload !== undefined
            ? plainJson(msg.payload, 'msg.payload')
            : undefined;
        if (settings !== undefined && !isPlainObject(settings)) {
          throw inputError(`msg.payload must be an object of the ${kind}'s settings for ${operation}`);
        }
        const agent =
          kind === 'skill' && operation === 'list'
            ? (nonEmptyString(config.agent) ?? msgText(msg, 'agent'))
            : undefined;
        const payload = isPlainObject(settings) ? settings : undefined;
        const request = { project, name, agent, payload };
        // An agent's create and update carry its data (the node's lists fill it), checked by AgentsApi.
        const result =
          kind === 'agent' && (operation === 'create' || operation === 'update')
            ? await new AgentsApi(client).save(
                operation,
                { ...request, payload: withNodeData(config as AgentNodeConfig, payload) },
                { timeoutMs },
              )
            : await new ResourcesApi(client).run(kind, operation, request, { timeoutMs });
        setOutput(RED, msg, outputProperty, redactSecretFields(result));
        send(msg);
        status.set(
          operation === 'list'
            ? texts.ok('list', { count: Array.isArray(result) ? result.length : 0 })
            : texts.ok(operation),
        );
      },
      () => answers?.close(CLOSE_GRACE_MS),
    );
    answers?.watchStore(ring);
  }

  registerNodeType(RED, schema, MindsDBResourceNode);
}
