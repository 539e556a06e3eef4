import path from 'node:path';
import { leaseEmbeddedStore, StoreError, type StoreLease } from '../../store';
import type { Node, NodeAPI } from './red';
import { serverNodeOf } from './server';
import { leaseShared } from './shared-store';

/** The embedded store's file name (docs/state-store.md). */
export const STORE_FILE = 'node-red-mindsdb.sqlite';
/** The environment variable that names the embedded store's folder (after settings.js `mindsdb.stateDir`). */
export const STATE_DIR_ENV = 'NODE_RED_MINDSDB_STATE_DIR';

/** Where this Node-RED keeps the embedded store, and which setting said so (for the start-up log line). */
export function embeddedPlace(RED: NodeAPI): { file: string; from: string } {
  const settings = RED.settings as { userDir?: unknown; mindsdb?: { stateDir?: unknown } };
  const fromSettings = settings.mindsdb?.stateDir;
  if (typeof fromSettings === 'string' && fromSettings.trim() !== '')
    return { file: path.join(fromSettings.trim(), STORE_FILE), from: 'settings.js mindsdb.stateDir' };
  const fromEnv = process.env[STATE_DIR_ENV];
  if (typeof fromEnv === 'string' && fromEnv.trim() !== '')
    return { file: path.join(fromEnv.trim(), STORE_FILE), from: STATE_DIR_ENV };
  const userDir = settings.userDir;
  if (typeof userDir !== 'string' || userDir === '') {
    throw new StoreError(
      'Node-RED did not say its user directory (settings.userDir), where the MindsDB nodes keep their state: set ' +
        `mindsdb.stateDir in settings.js or ${STATE_DIR_ENV}`,
      'unavailable',
      STORE_FILE,
    );
  }
  return { file: path.join(userDir, STORE_FILE), from: 'the Node-RED user directory' };
}

/** The embedded files this process has said it keeps state in (said once each). */
const told = new Set<string>();

/**
 * The store a node that keeps state uses: the state store its server node chose (a PostgreSQL
 * store shared by every copy of the flows), else this Node-RED's embedded file. The node releases
 * its lease once, at the end of its close (after its last write). Throws a StoreError saying why
 * the store cannot be used; the node then says so on its ring, and each message that needs the
 * store ends at Catch with it.
 */
export function leaseNodeStore(RED: NodeAPI, node: Node): StoreLease {
  const chosen = serverNodeOf(node)?.stateStore;
  if (chosen) return leaseShared(RED, chosen, node.id);
  const { file, from } = embeddedPlace(RED);
  const lease = leaseEmbeddedStore(file, `${file} (embedded SQLite; ${from})`, node.id);
  if (!told.has(file)) {
    told.add(file);
    RED.log.info(`[mindsdb] state is kept in ${lease.store.description}`);
  }
  return lease;
}
