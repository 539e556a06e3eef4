import { PgStore, StoreError, type Store, type StoreLease } from '../../store';
import type { StateStoreNodeConfig, StateStoreNodeCredentials } from '../../schema';
import type { Node, NodeAPI } from './red';
import { tlsOptionsOf } from './server-options';

/** What a node that keeps state sees of a mindsdb-state-store config node. */
export interface StateStoreNode extends Node {
  /** The shared store, opened at deploy; undefined when the node's settings are wrong (`configError` says why). */
  sharedStore?: PgStore;
  configError?: StoreError;
  /** A user of the store: recorded as seen while held; the config node closes the store after its last user. */
  leaseStore?(node: string): StoreLease;
}

/** The longest a closing state store node waits for the nodes that use it to finish their last writes. */
const USERS_GRACE_MS = 12_000;

/**
 * The state store config node's life: its PostgreSQL store opened at deploy (a wrong URL, host,
 * password or permission is logged at once, without the password, and every node that needs it
 * says it), leased by the nodes that keep state there, and closed after the last of them closed.
 */
export function startSharedStore(
  RED: NodeAPI,
  node: StateStoreNode,
  config: StateStoreNodeConfig,
  creds: StateStoreNodeCredentials,
): void {
  const label = config.name || 'unnamed';
  let store: PgStore;
  try {
    store = new PgStore({
      name: config.name,
      url: config.url,
      schema: config.schema.trim(),
      user: creds.user,
      password: creds.password,
      tls: tlsOptionsOf(RED, config.tls),
      leaseSeconds: config.leaseSeconds,
      forgetDays: config.forgetDays,
    });
  } catch (err) {
    node.configError =
      err instanceof StoreError ? err : new StoreError(String(err), 'refused', `the PostgreSQL store "${label}"`);
    node.error(`cannot open the state store: ${node.configError.message}`);
    return;
  }
  node.sharedStore = store;
  store.onOpen = (err) => {
    if (err) node.error(`cannot open the state store: ${err.message}`);
    else RED.log.info(`[mindsdb] state is kept in ${store.description}`);
  };
  let users = 0;
  let idle: (() => void) | undefined;
  node.leaseStore = (id) => {
    users++;
    const unuse = store.use(id);
    let released = false;
    return {
      store,
      release() {
        if (released) return;
        released = true;
        unuse();
        if (--users === 0) idle?.();
      },
    };
  };
  node.on('close', (_removed: boolean, done: () => void) => {
    const closing = (): void => {
      clearTimeout(timer);
      store
        .close()
        .catch(() => undefined)
        .finally(done);
    };
    const timer = setTimeout(closing, users > 0 ? USERS_GRACE_MS : 0);
    idle = closing;
  });
}

/** The shared store a state store config node gives a node, or the error that says why it cannot. */
export function leaseShared(RED: NodeAPI, storeNodeId: string, node: string): StoreLease {
  const storeNode = RED.nodes.getNode(storeNodeId) as StateStoreNode | null;
  if (!storeNode)
    throw new StoreError(
      "the server node's state store is not deployed (a missing mindsdb-state-store node): open the server node and " +
        'choose a state store, or none for this Node-RED’s own file',
      'refused',
      'the state store',
    );
  if (storeNode.configError || !storeNode.leaseStore)
    throw storeNode.configError ?? new StoreError('the state store is not usable', 'refused', 'the state store');
  return storeNode.leaseStore(node);
}

export type { Store };
