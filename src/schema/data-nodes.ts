/**
 * The nodes of data in MindsDB: data sources, their tables, uploaded files, knowledge bases.
 */
import { flag, msgProperty, oneOf, optionalNumber, password, text, typed } from './fields';
import { head, count, project, outbox, name, item } from './field-groups';
import { defineNode } from './node-schema';

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
