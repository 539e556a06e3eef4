// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
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
