// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { MindsDBClient } from './client';
import { registerAdminRoutes } from './runtime/editor/admin-routes';
import { SERVER_NODE, type ServerNodeCredentials } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { registerNodeType, type NodeAPI } from './runtime/node/red';
import type { ServerNode } from './runtime/node/server';
import { clientOptionsFrom } from './runtime/node/server-options';

export = function register(RED: NodeAPI): void {
  function MindsDBServerNode(this: ServerNode, saved: SavedConfig): void {
    const config = startNode(RED, this, SERVER_NODE, saved);
    const node = this;
    node.resolvedUrl = config.url;
    node.stateStore = config.stateStore;
    try {
      node.client = new MindsDBClient(
        clientOptionsFrom(RED, config, (node.credentials ?? {}) as ServerNodeCredentials),
      );
    } catch (err) {
      node.configError = err instanceof Error ? err.message : String(err);
      node.error(`MindsDB server "${config.name || config.url}": ${node.configError}`);
    }
    node.on('close', (_removed: boolean, done: () => void) => {
      const client = node.client;
      node.client = undefined;
      // Requests in flight finish (or fail) before the sockets close; Node-RED waits 15 s at most.
      (client ? client.close(10_000) : Promise.resolve()).catch(() => undefined).finally(done);
    });
  }

  registerNodeType(RED, SERVER_NODE, MindsDBServerNode);
  registerAdminRoutes(RED);
};
