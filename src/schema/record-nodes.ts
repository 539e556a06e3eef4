/**
 * The nodes of a project's records: projects, chatbots, skills, agents, jobs.
 */
import { msgProperty, oneOf, text } from './fields';
import { head, project, agentMemory, item, CRUD } from './field-groups';
import { defineNode } from './node-schema';

export const PROJECT_NODE = defineNode('mindsdb-project', 1, {
  ...head(),
  operation: oneOf(['list', 'get', 'create', 'delete', 'msg'], 'list'),
  itemName: item(),
  outputProperty: msgProperty(),
});

export const CHATBOT_NODE = defineNode('mindsdb-chatbot', 1, {
  ...head(),
  operation: oneOf([...CRUD, 'msg'], 'list'),
  project: project(),
  itemName: item(),
  outputProperty: msgProperty(),
});

export const SKILL_NODE = defineNode('mindsdb-skill', 1, {
  ...head(),
  operation: oneOf([...CRUD, 'msg'], 'list'),
  project: project(),
  itemName: item(),
  /** list: keep only the skills this agent uses (msg.agent fills a blank). */
  agent: text(),
  outputProperty: msgProperty(),
});

export const AGENT_NODE = defineNode('mindsdb-agent', 1, {
  ...head(),
  operation: oneOf([...CRUD, 'completions', 'msg'], 'list'),
  project: project(),
  itemName: item(),
  /** completions: one message with the answer, or a message sequence of the streamed chunks. */
  streamMode: oneOf(['final', 'chunks'], 'final', { optional: true }),
  /** create, update: the agent's data (comma-separated) and its mode (26.x); msg.payload fills what is blank. */
  knowledgeBases: text(),
  tables: text(),
  mode: oneOf(['default', 'text', 'sql'], 'default', { optional: true }),
  ...agentMemory(),
  outputProperty: msgProperty(),
});

// MindsDB's scheduler and dates as the job dialog checks them (the client checks them again when it sends).
const SCHEDULE = '^every\\s+(\\d+\\s+)?(minute|minutes|min|hour|hours|day|days|week|weeks|month|months)$';
const DATE =
  '^(\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?|now|\\$\\{[^}]+\\})$';

export const JOB_NODE = defineNode('mindsdb-job', 1, {
  ...head(),
  operation: oneOf(['create', 'list', 'get', 'history', 'delete', 'msg'], 'list'),
  project: project(),
  itemName: item(),
  query: text(),
  schedule: text('', { check: { pattern: SCHEDULE } }),
  startAt: text('', { check: { pattern: DATE }, error: 'date' }),
  endAt: text('', { check: { pattern: DATE }, error: 'date' }),
  ifQuery: text(),
  outputProperty: msgProperty(),
});
