// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { STATE_STORE_NODE, type StateStoreNodeCredentials } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { registerNodeType, type NodeAPI } from './runtime/node/red';
import { startSharedStore, type StateStoreNode } from './runtime/node/shared-store';

/**
 * The state store config node: a PostgreSQL database where the nodes of every server that chooses
 * it keep their state, shared by every copy of the flows (docs/state-store.md).
 */
export = function register(RED: NodeAPI): void {
  function MindsDBStateStoreNode(this: StateStoreNode, saved: SavedConfig): void {
    const config = startNode(RED, this, STATE_STORE_NODE, saved);
    startSharedStore(RED, this, config, (this.credentials ?? {}) as StateStoreNodeCredentials);
  }

  registerNodeType(RED, STATE_STORE_NODE, MindsDBStateStoreNode);
};
