import { FilesApi, fileContent, inputError } from './client';
import { handleInput, timeoutFrom } from './runtime/input';
import { operationOf } from './runtime/operation';
import { migrateConfig } from './runtime/migrations';
import type { FileNodeConfig, FileOperation } from './runtime/node-configs';
import { outputPropertyOf, setOutput } from './runtime/output';
import { configNumber, describeType, nameFrom, nonEmptyString } from './runtime/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/red';
import { clientFor } from './runtime/server';
import { ThrottledStatus } from './runtime/status';
import { StatusTexts } from './runtime/status-texts';

type Operation = Exclude<FileOperation, 'msg'>;
const OPERATIONS: readonly Operation[] = ['upload', 'list', 'delete'];

/** The file node: uploads msg.payload as the table files.<name>, lists and deletes files. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-file', ['requesting', 'files', 'deleted', 'uploading', 'uploaded'] as const);
  function MindsDBFileNode(this: Node, config: FileNodeConfig): void {
    RED.nodes.createNode(this, config);
    migrateConfig('mindsdb-file', config);
    const node = this;
    const status = new ThrottledStatus(node);
    const outputProperty = outputPropertyOf(config.outputProperty);
    const format = config.format === 'json' ? 'json' : 'csv';
    const maxBytes = configNumber(config.maxSizeMB, 100) * 1024 * 1024;


    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      const api = new FilesApi(clientFor(RED, config.server));
      const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'file');
      const timeoutMs = timeoutFrom(msg);
      let result: unknown;
      let name: string | undefined;
      if (operation === 'list') {
        status.set(texts.busy('requesting'));
        result = await api.list({ timeoutMs });
        status.set(texts.ok('files', { count: Array.isArray(result) ? result.length : 0 }));
      } else {
        name = await nameFrom(RED, node, config.fileName, config.fileNameType, msg, 'name');
        if (!name) throw inputError('no file name: set it in the node or in msg.name (the table will be files.<name>)');
        if (operation === 'delete') {
          status.set(texts.busy('requesting'));
          const deleted = await api.delete(name, { timeoutMs });
          result = deleted;
          status.set(texts.ok('deleted', { name: deleted.name }));
        } else {
          if (msg.filename !== undefined && typeof msg.filename !== 'string') throw inputError(`msg.filename must be a string, not ${describeType(msg.filename)}`);
          const content = fileContent(msg.payload, name, format, nonEmptyString(msg.filename));
          status.set(texts.busy('uploading', { kb: Math.ceil(content.data.length / 1024) }));
          const uploaded = await api.upload(name, content, config.replace === true, maxBytes, { timeoutMs });
          result = uploaded;
          status.set(texts.ok('uploaded', { name: uploaded.name }));
        }
      }
      setOutput(RED, msg, outputProperty, result);
      msg.mindsdb = { operation, name };
      send(msg);
    });
  }

  registerNodeType(RED, 'mindsdb-file', MindsDBFileNode);
};
