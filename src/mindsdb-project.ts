// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { inputError, ProjectsApi } from './client';
import { PROJECT_NODE } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput } from './runtime/message/output';
import { nameFrom } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';

const OPERATIONS = operationsOf(PROJECT_NODE.fields.operation);
type Operation = (typeof OPERATIONS)[number];

/**
 * The project node: list, get, create (CREATE PROJECT), delete (DROP PROJECT, projects only); see
 * src/client/resources/projects.ts.
 */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-project', ['requesting', 'list', 'get', 'create', 'delete'] as const);
  function MindsDBProjectNode(this: Node, saved: SavedConfig): void {
    const config = startNode(RED, this, PROJECT_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      describe(msg, { resource: 'project' });
      const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'project');
      describe(msg, { operation });
      const name = await nameFrom(RED, node, config.itemName, msg, 'name');
      describe(msg, { name });
      const api = new ProjectsApi(clientFor(RED, config, msg));
      if (operation !== 'list' && !name) throw inputError('no project name: set it in the node or in msg.name');
      const timeoutMs = timeoutFrom(msg);
      status.set(texts.busy('requesting'));
      let result: unknown;
      switch (operation) {
        case 'list':
          result = await api.list({ timeoutMs });
          break;
        case 'get':
          result = await api.get(name as string, { timeoutMs });
          break;
        case 'create':
          result = await api.create(name as string, { timeoutMs });
          break;
        case 'delete':
          result = await api.delete(name as string, { timeoutMs });
          break;
      }
      setOutput(RED, msg, config.outputProperty, result);
      msg.mindsdb = {
        resource: 'project',
        operation,
        name: operation === 'list' ? undefined : ((result as { name?: string }).name ?? name),
      };
      send(msg);
      status.set(
        operation === 'list'
          ? texts.ok('list', { count: Array.isArray(result) ? result.length : 0 })
          : texts.ok(operation),
      );
    });
  }

  registerNodeType(RED, PROJECT_NODE, MindsDBProjectNode);
};
