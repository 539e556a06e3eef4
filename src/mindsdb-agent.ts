import { AGENT_NODE } from './schema';
import { registerResourceNode } from './runtime/agent';
import type { NodeAPI } from './runtime/node/red';

/**
 * The agent node: list, get, create, update, delete and completions (see RESOURCES.agent in
 * src/client/resources/records.ts).
 */
export = function register(RED: NodeAPI): void {
  registerResourceNode(RED, AGENT_NODE, 'agent');
};
