/**
 * The nodes that ask MindsDB and send its answer on: SQL, a model's predictions, a view's query.
 */
import { flag, msgProperty, oneOf, text, typed } from './fields';
import { head, count, project, sqlRowsOut, outbox, incremental, name, item } from './field-groups';
import { defineNode } from './node-schema';

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
