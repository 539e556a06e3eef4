import { CHATBOT_NODE } from './schema';
import { registerResourceNode } from './runtime/agent';
import type { NodeAPI } from './runtime/node/red';

/** The chatbot node: list, get, create, update, delete (see RESOURCES.chatbot in src/client/resources/records.ts). */
export = function register(RED: NodeAPI): void {
  registerResourceNode(RED, CHATBOT_NODE, 'chatbot');
};
