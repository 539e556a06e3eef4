import { inputError, redactSecretFields, ResourcesApi, type ResourceKind, type ResourceOperation } from '../../client';
import type { AgentNodeConfig, AGENT_NODE, CHATBOT_NODE, ConfigOf, SkillNodeConfig, SKILL_NODE } from '../../schema';
import { startNode, type SavedConfig } from '../node/config';
import { CLOSE_GRACE_MS, handleInput, timeoutFrom } from './input';
import { setOutput } from './output';
import { operationOf, operationsOf } from './operation';
import { isPlainObject, msgText, nameFrom, projectFrom, nonEmptyString } from './properties';
import { AgentAnswers } from './agent-answers';
import { controlOf } from './control';
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
  const texts = new StatusTexts<'requesting' | ResourceOperation | 'answered'>(schema.type, ['requesting', ...crud, ...(kind === 'agent' ? ['answered' as const] : [])]);

  function MindsDBResourceNode(this: Node, saved: SavedConfig): void {
    const config: ResourceConfig = startNode(RED, this, schema, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const answers = kind === 'agent' ? new AgentAnswers(RED, node, config as AgentNodeConfig) : undefined;

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      // The agent node's msg.reset stops answers under way (and forgets a conversation): a control message, not a request.
      const control = answers ? controlOf(msg) : undefined;
      if (answers && control) { answers.control(msg, control); return; }
      const client = clientFor(RED, config, msg);
      const operation = operationOf(config.operation, msg, operations, kind);
      // Node fields win; a msg field fills a blank one and must then be text (a number or object
      // silently becoming "mindsdb" could point a delete at the default project).
      const project = await projectFrom(RED, node, config.project, msg);
      const name = await nameFrom(RED, node, config.itemName, msg, 'name');
      const timeoutMs = timeoutFrom(msg);
      if (operation !== 'list' && !name) throw inputError(`no ${kind} name: set it in the node or in msg.name`);
      msg.mindsdb = { resource: kind, operation, project, name };
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

      if ((operation === 'create' || operation === 'update') && msg.payload !== undefined && !isPlainObject(msg.payload)) {
        throw inputError(`msg.payload must be an object of the ${kind}'s settings for ${operation}`);
      }
      const agent = kind === 'skill' && operation === 'list'
        ? nonEmptyString(config.agent) ?? msgText(msg, 'agent')
        : undefined;
      const result = await new ResourcesApi(client).run(kind, operation, {
        project, name, agent,
        payload: isPlainObject(msg.payload) ? msg.payload : undefined,
      }, { timeoutMs });
      setOutput(RED, msg, outputProperty, redactSecretFields(result));
      send(msg);
      status.set(operation === 'list' ? texts.ok('list', { count: Array.isArray(result) ? result.length : 0 }) : texts.ok(operation));
    }, () => answers?.close(CLOSE_GRACE_MS));
  }

  registerNodeType(RED, schema, MindsDBResourceNode);
}
