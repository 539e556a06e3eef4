/**
 * The fields several node types share, declared once: every action node's head, a project, a
 * name the message may fill, the SQL answer's rows, the outbox, incremental mode, an agent's memory.
 */
import { configNode, configNodeChoices, flag, msgProperty, number, oneOf, text, typed } from './fields';

/**
 * The fields every action node starts with: the server it uses, the other servers a message may
 * choose by name (msg.server; none unless the user lists them), and its own name.
 */
export const head = () => ({
  server: configNode('mindsdb-server', true),
  servers: configNodeChoices('mindsdb-server'),
  name: text(),
});
/** A whole number from 1 (sizes, counts, times). */
export const count = (value: number) => number(value, { integer: true, min: 1 });
/**
 * The project MindsDB puts records in unless told otherwise: a new node's Project, and what a blank one and a blank
 * msg.project mean.
 */
export const DEFAULT_PROJECT = 'mindsdb';
/** A record's project (a TypedInput: msg, flow, global or env may say it). */
export const project = () => typed(DEFAULT_PROJECT, 'str');
/**
 * How a node that answers SQL rows sends them (the sql node, and the view node's query): rows as
 * objects or arrays, split into a sequence of rowsPerMsg, msg.tick flow control with partsAhead
 * parts ahead. Their dialog rows are the group `sql-rows-out` (src/editor/form.ts).
 */
export const sqlRowsOut = () => ({
  rowFormat: oneOf(['objects', 'arrays'], 'objects', { optional: true }),
  split: flag(false),
  rowsPerMsg: count(100),
  flowControl: flag(false),
  partsAhead: count(1),
});
export const outbox = () => ({
  outbox: flag(false),
  outboxSizeMB: number(100, { above: 0 }),
  outboxMaxAgeH: number(24, { above: 0 }),
}); // docs/outbox.md
/**
 * Incremental mode of the sql and view nodes: each run sends only the rows after the last
 * (watermark, key) it sent on, kept in the store (src/runtime/incremental/incremental.ts). The
 * watermark grows for new rows (a timestamp, a serial number); the key orders rows that share one.
 */
export const incremental = () => ({ incremental: flag(false), watermarkColumn: text(), keyColumn: text() });
/**
 * The agent's completions with memory (src/runtime/agent/agent-answers.ts): the msg property
 * that names a conversation, the turns kept, the idle minutes before one is forgotten, and whether
 * the turns go out as msg.mindsdb.conversation.
 */
export const agentMemory = () => ({
  memory: flag(false),
  conversationKey: msgProperty('topic'),
  maxTurns: count(20),
  idleMinutes: count(60),
  historyOut: flag(false),
});
/** A name the node may leave blank for msg.<name> to fill. */
export const name = () => typed('', 'str');
/**
 * The name of what the node's operation acts on (the dialog labels the node with it and suggests names for it), blank
 * for msg to fill.
 */
export const item = () => typed('', 'str', { item: true });

/** The operations of a record in a project (chatbots, skills, agents). */
export const CRUD = ['list', 'get', 'create', 'update', 'delete'] as const;
