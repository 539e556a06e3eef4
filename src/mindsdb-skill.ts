import { SKILL_NODE } from './schema';
import { registerResourceNode } from './runtime/agent';
import type { NodeAPI } from './runtime/node/red';

/** The skill node: list, get, create, update, delete (see RESOURCES.skill in src/client/resources/records.ts). */
export = function register(RED: NodeAPI): void {
  registerResourceNode(RED, SKILL_NODE, 'skill');
};
