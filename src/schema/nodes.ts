/**
 * Every node type's saved configuration, declared once. From this table:
 * - the runtime reads each node's config typed, with the declared defaults for what a flow lacks
 *   (`readConfig` in src/runtime/node/config.ts), so node files never restate a fallback;
 * - the build writes each type's editor `defaults` and `credentials` to
 *   resources/mindsdb-defaults.js (scripts/editor-defaults.mjs); every dialog registers those
 *   and builds its rows from them (src/editor/form.ts), and
 *   test/unit/node-schema.test.js runs each nodes/<type>.html and fails when a dialog and the
 *   runtime disagree.
 *
 * To add a node type:
 * 1. declare it here, fields in dialog order (`...head()` first and `outputProperty` last, as the
 *    other action nodes do), and add it to SCHEMAS;
 * 2. in its node file: `const config = startNode(RED, this, ITS_NODE, saved)` (typed by
 *    `ConfigOf<typeof ITS_NODE>`) and `registerNodeType(RED, ITS_NODE, ctor)`, which takes the
 *    type's name and credentials from here;
 * 3. in nodes/<type>.html (copy nodes/mindsdb-job.html): the literal registerType (category,
 *    color, icon, inputs, outputs: the Flow Library indexes the node from it) spreading in
 *    `...MindsDBEditor.definition("<type>")`, its entry in src/editor/node-types.ts being
 *    `resourceNode(type, { itemIcon: "<fa icon>" })` for a node whose operation acts on a named item
 *    (the field declared with `item()`; its noun, plural and the list its picker suggests from follow
 *    the type's name: "knowledge base", "knowledge_bases"; `collection: "…"` when the dialog's list
 *    route names it otherwise), else `actionNode(type, {…})` (a config node: `configNode`); then
 *    `MindsDBEditor.buildForm("<type>")` and a template of only the node's own rows.
 *    buildForm adds the rows every action dialog has: server, operation, project and the item
 *    first; outputProperty, name and the catalogue's `label.tip` last (src/editor/form.ts
 *    says what a row may add). Its catalogue has `label.<field>` for each row;
 * 4. `npm run build`: the node-schema test then checks the new type like the others.
 * When a field changes meaning later: raise the declaration's version and add a step in
 * src/runtime/node/migrations.ts.
 */
import {
  configNode,
  configNodeChoices,
  flag,
  msgProperty,
  number,
  oneOf,
  optionalNumber,
  password,
  plainCredential,
  text,
  typed,
} from './fields';
import { defineNode, type NodeSchema } from './node-schema';
import { STATE_STORE_NODE } from './state-store-node';

/**
 * The fields every action node starts with: the server it uses, the other servers a message may
 * choose by name (msg.server; none unless the user lists them), and its own name.
 */
const head = () => ({
  server: configNode('mindsdb-server', true),
  servers: configNodeChoices('mindsdb-server'),
  name: text(),
});
/** A whole number from 1 (sizes, counts, times). */
const count = (value: number) => number(value, { integer: true, min: 1 });
/**
 * The project MindsDB puts records in unless told otherwise: a new node's Project, and what a blank one and a blank
 * msg.project mean.
 */
export const DEFAULT_PROJECT = 'mindsdb';
/** A record's project (a TypedInput: msg, flow, global or env may say it). */
const project = () => typed(DEFAULT_PROJECT, 'str');
/**
 * How a node that answers SQL rows sends them (the sql node, and the view node's query): rows as
 * objects or arrays, split into a sequence of rowsPerMsg, msg.tick flow control with partsAhead
 * parts ahead. Their dialog rows are the group `sql-rows-out` (src/editor/form.ts).
 */
const sqlRowsOut = () => ({
  rowFormat: oneOf(['objects', 'arrays'], 'objects', { optional: true }),
  split: flag(false),
  rowsPerMsg: count(100),
  flowControl: flag(false),
  partsAhead: count(1),
});
const outbox = () => ({
  outbox: flag(false),
  outboxSizeMB: number(100, { above: 0 }),
  outboxMaxAgeH: number(24, { above: 0 }),
}); // docs/outbox.md
/**
 * Incremental mode of the sql and view nodes: each run sends only the rows after the last
 * (watermark, key) it sent on, kept in the store (src/runtime/incremental/incremental.ts). The
 * watermark grows for new rows (a timestamp, a serial number); the key orders rows that share one.
 */
const incremental = () => ({ incremental: flag(false), watermarkColumn: text(), keyColumn: text() });
/**
 * The agent's completions with memory (src/runtime/agent/agent-answers.ts): the msg property
 * that names a conversation, the turns kept, the idle minutes before one is forgotten, and whether
 * the turns go out as msg.mindsdb.conversation.
 */
const agentMemory = () => ({
  memory: flag(false),
  conversationKey: msgProperty('topic'),
  maxTurns: count(20),
  idleMinutes: count(60),
  historyOut: flag(false),
});
/** A name the node may leave blank for msg.<name> to fill. */
const name = () => typed('', 'str');
/**
 * The name of what the node's operation acts on (the dialog labels the node with it and suggests names for it), blank
 * for msg to fill.
 */
const item = () => typed('', 'str', { item: true });

// MindsDB's scheduler and dates as the job dialog checks them (the client checks them again when it sends).
const SCHEDULE = '^every\\s+(\\d+\\s+)?(minute|minutes|min|hour|hours|day|days|week|weeks|month|months)$';
const DATE =
  '^(\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?|now|\\$\\{[^}]+\\})$';

// A tenant header's value: visible ASCII, no spaces (the client checks it again).
const TENANT = '^[\\x21-\\x7e]*$';

export const SERVER_NODE = defineNode(
  'mindsdb-server',
  1,
  {
    name: text(),
    url: text('http://127.0.0.1:47334', { required: true, check: { url: true } }),
    apiPrefix: text('/api', { check: { apiPrefix: true } }),
    authMode: oneOf(['none', 'session', 'login', 'token'], 'none'),
    /** A multi-tenant MindsDB's tenant: the company-id / user-id headers on every request to this server. */
    companyId: text('', { check: { pattern: TENANT }, error: 'tenant' }),
    userId: text('', { check: { pattern: TENANT }, error: 'tenant' }),
    timeout: number(60_000, { integer: true, min: 1 }, { required: true }),
    retries: number(2, { integer: true, min: 0 }, { required: true }),
    retryPost: flag(false),
    maxInFlight: number(8, { integer: true, min: 1 }, { required: true }),
    maxQueue: number(1000, { integer: true, min: 1 }, { required: true }),
    maxResponseMB: number(64, { above: 0 }, { required: true }),
    tls: configNode('tls-config', false),
    /**
     * Where requests go through a proxy: the environment (HTTP_PROXY …, as core does), core's http proxy node, or never
     * (runtime/node/proxy.ts); optional in the dialog check, because flows saved before it lack it (they get env).
     */
    proxyMode: oneOf(['env', 'none', 'node'], 'env', { optional: true }),
    proxy: configNode('http proxy', false),
    /** Where the nodes on this server keep their state: a mindsdb-state-store node, blank for this Node-RED's file. */
    stateStore: configNode('mindsdb-state-store', false),
  },
  {
    session: password(),
    username: plainCredential(),
    password: password(),
    token: password(),
  },
);

export const SQL_NODE = defineNode('mindsdb-sql', 1, {
  ...head(),
  query: text(),
  database: typed('', 'str'),
  /** The statement goes unparsed to the Database's data source (context.native_query, MindsDB 26.0.1 and 26.2+). */
  nativeQuery: flag(false),
  ...sqlRowsOut(),
  ...incremental(),
  ...outbox(),
  outputProperty: msgProperty(),
});

export const PREDICT_NODE = defineNode('mindsdb-predict', 1, {
  ...head(),
  project: project(),
  model: name(),
  params: typed('', 'json', { jsonObject: true }),
  batch: flag(false),
  batchSize: count(100),
  batchWindow: count(50),
  keepExplainString: flag(false),
  outputProperty: msgProperty(),
});

export const DATABASE_NODE = defineNode(
  'mindsdb-database',
  1,
  {
    ...head(),
    operation: oneOf(['create', 'list', 'get', 'update', 'delete', 'msg'], 'create'),
    dbName: item(),
    engine: text(),
    host: text(),
    port: optionalNumber('', { integer: true, min: 1, max: 65535 }),
    user: text(),
    database: text(),
    extraParams: text('', { check: { jsonObject: true } }),
    checkConnection: flag(false),
    updateCreates: flag(false),
    outputProperty: msgProperty(),
  },
  {
    password: password(),
  },
);

const CRUD = ['list', 'get', 'create', 'update', 'delete'] as const;

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

export const FILE_NODE = defineNode('mindsdb-file', 1, {
  ...head(),
  operation: oneOf(['upload', 'list', 'delete', 'msg'], 'upload'),
  // MindsDB refuses a name with an extension: the file becomes the table files.<name>.
  fileName: typed('', 'str', { noExtension: true, error: 'extension', item: true }),
  format: oneOf(['csv', 'json'], 'csv', { optional: true }),
  replace: flag(false),
  maxSizeMB: count(100),
  outputProperty: msgProperty(),
});

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

export const MODEL_NODE = defineNode('mindsdb-model', 1, {
  ...head(),
  operation: oneOf(
    ['train', 'get', 'describe', 'retrain', 'finetune', 'list', 'versions', 'activate', 'delete', 'msg'],
    'train',
  ),
  project: project(),
  model: item(),
  modelVersion: optionalNumber('', { integer: true, min: 1 }),
  statement: text(),
  database: text(),
  select: text(),
  predict: text(),
  engine: text(),
  using: text('', { check: { jsonObject: true } }),
  wait: flag(true),
  waitTimeout: count(600),
  outputProperty: msgProperty(),
});

export const KNOWLEDGE_BASE_NODE = defineNode(
  'mindsdb-knowledge-base',
  1,
  {
    ...head(),
    operation: oneOf(['create', 'insert', 'search', 'list', 'get', 'delete', 'msg'], 'list'),
    project: project(),
    itemName: item(),
    provider: text('openai'),
    embeddingModel: text('text-embedding-3-small'),
    baseUrl: text(),
    storageDatabase: text(),
    storageTable: text(),
    contentColumns: text(),
    metadataColumns: text(),
    idColumn: text(),
    insertQuery: text(),
    ...outbox(),
    limit: optionalNumber(10, { integer: true, min: 1, max: 100 }),
    threshold: optionalNumber('', { min: 0, max: 1 }),
    /** search: metadata conditions ({column: value | [values] | {op: value}}; msg.filter adds its own). */
    filter: typed('', 'json', { jsonObject: true }),
    hybrid: flag(false),
    alpha: optionalNumber('', { min: 0, max: 1 }),
    reranking: oneOf(['default', 'on', 'off'], 'default', { optional: true }),
    outputProperty: msgProperty(),
  },
  {
    apiKey: password(),
  },
);

export const TABLE_NODE = defineNode('mindsdb-table', 1, {
  ...head(),
  operation: oneOf(['insert', 'list', 'create', 'delete', 'msg'], 'insert'),
  /** The data source (msg.database fills a blank). */
  database: typed('', 'str'),
  /** The table (msg.table fills a blank); not used by list. */
  table: name(),
  /** create: the SELECT whose rows make the table (msg.payload as a string fills a blank). */
  select: text(),
  replace: flag(false),
  /** insert: many messages, one INSERT (src/runtime/message/micro-batcher.ts). */
  batch: flag(false),
  batchSize: count(100),
  batchWindow: count(50),
  /**
   * insert, with the outbox: a column that identifies a row, looked up before a write whose answer was lost goes again.
   */
  keyColumn: text('', { check: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } }),
  ...outbox(),
  outputProperty: msgProperty(),
});

export const PROJECT_NODE = defineNode('mindsdb-project', 1, {
  ...head(),
  operation: oneOf(['list', 'get', 'create', 'delete', 'msg'], 'list'),
  itemName: item(),
  outputProperty: msgProperty(),
});

export const VIEW_NODE = defineNode('mindsdb-view', 1, {
  ...head(),
  operation: oneOf(['list', 'get', 'create', 'update', 'delete', 'query', 'msg'], 'list'),
  project: project(),
  itemName: item(),
  /** create, update: the view's SELECT (msg.query or a string msg.payload fills a blank). */
  query: text(),
  /** query: the rows sent out as the sql node sends them. */
  ...sqlRowsOut(),
  ...incremental(),
  outputProperty: msgProperty(),
});

export const ML_ENGINE_NODE = defineNode(
  'mindsdb-ml-engine',
  1,
  {
    ...head(),
    operation: oneOf(['list', 'handlers', 'create', 'delete', 'msg'], 'list'),
    engineName: name(),
    handler: text(),
    /** The USING key the stored API key goes under; blank: `<handler>_api_key`, as MindsDB's handlers read it. */
    apiKeyParam: text('', { check: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } }),
    settings: text('', { check: { jsonObject: true } }),
    outputProperty: msgProperty(),
  },
  {
    apiKey: password(),
  },
);

/** Every node type of the package, by type. */
export const SCHEMAS: Readonly<Record<string, NodeSchema>> = Object.fromEntries(
  [
    SERVER_NODE,
    SQL_NODE,
    PREDICT_NODE,
    DATABASE_NODE,
    CHATBOT_NODE,
    SKILL_NODE,
    AGENT_NODE,
    FILE_NODE,
    JOB_NODE,
    MODEL_NODE,
    KNOWLEDGE_BASE_NODE,
    TABLE_NODE,
    PROJECT_NODE,
    VIEW_NODE,
    ML_ENGINE_NODE,
    STATE_STORE_NODE,
  ].map((s) => [s.type, s]),
);
