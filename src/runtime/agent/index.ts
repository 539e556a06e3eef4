/** The chatbot, skill and agent nodes: their records, and the agent's answers and conversations. */
export { registerResourceNode } from './resource-node';
