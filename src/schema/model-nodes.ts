/**
 * The nodes of machine learning: models (train, retrain, finetune, versions) and ML engines.
 */
import { flag, msgProperty, oneOf, optionalNumber, password, text } from './fields';
import { head, count, project, name, item } from './field-groups';
import { defineNode } from './node-schema';

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
