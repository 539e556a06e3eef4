// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { SKILL_NODE } from './schema';
import { registerResourceNode } from './runtime/agent';
import type { NodeAPI } from './runtime/node/red';

/** The skill node: list, get, create, update, delete (see RESOURCES.skill in src/client/resources/records.ts). */
export = function register(RED: NodeAPI): void {
  registerResourceNode(RED, SKILL_NODE, 'skill');
};
