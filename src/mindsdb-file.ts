// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { FilesApi, fileContent, inputError } from './client';
import { FILE_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput, writing } from './runtime/message/output';
import { describeType, nameFrom, nonEmptyString } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(FILE_NODE.fields.operation);
type Operation = (typeof OPERATIONS)[number];

/** The file node: uploads msg.payload as the table files.<name>, lists and deletes files. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-file', ['requesting', 'files', 'deleted', 'uploading', 'uploaded'] as const);
  function MindsDBFileNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, FILE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty, format } = config;
    const maxBytes = config.maxSizeMB * 1024 * 1024;

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'file');
      describe(msg, { operation });
      if (operation === 'upload') writing(msg);
      const name = operation === 'list' ? undefined : await nameFrom(RED, node, config.fileName, msg, 'name');
      if (operation !== 'list') describe(msg, { name });
      const api = new FilesApi(clientFor(RED, config, msg));
      const timeoutMs = timeoutFrom(msg);
      let result: unknown;
      let stored: Record<string, unknown> = {};
      if (operation === 'list') {
        status.set(texts.busy('requesting'));
        result = await api.list({ timeoutMs });
        status.set(texts.ok('files', { count: Array.isArray(result) ? result.length : 0 }));
      } else {
        if (!name) throw inputError('no file name: set it in the node or in msg.name (the table will be files.<name>)');
        if (operation === 'delete') {
          status.set(texts.busy('requesting'));
          const deleted = await api.delete(name, { timeoutMs });
          result = deleted;
          stored = { name: deleted.name };
          status.set(texts.ok('deleted', { name: deleted.name }));
        } else {
          if (msg.filename !== undefined && typeof msg.filename !== 'string')
            throw inputError(`msg.filename must be a string, not ${describeType(msg.filename)}`);
          const content = fileContent(msg.payload, name, format, nonEmptyString(msg.filename));
          status.set(texts.busy('uploading', { kb: Math.ceil(content.data.length / 1024) }));
          const uploaded = await api.upload(name, content, config.replace, maxBytes, { timeoutMs });
          result = uploaded;
          stored = { name: uploaded.name, stored: true };
          status.set(texts.ok('uploaded', { name: uploaded.name }));
        }
      }
      setOutput(RED, msg, outputProperty, result);
      // The name as MindsDB stored it (an upload's is lower-cased).
      msg.mindsdb = { operation, name, ...stored };
      send(msg);
    });
  }

  registerNodeType(RED, FILE_NODE, MindsDBFileNode);
};
