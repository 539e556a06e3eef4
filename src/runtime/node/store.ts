import path from 'node:path';
import { leaseStore, StoreError, type StoreLease } from '../../store';
import type { NodeAPI } from './red';

/** The store's file name in the Node-RED user directory (docs/state-store.md). */
export const STORE_FILE = 'node-red-mindsdb.sqlite';

/** Where this Node-RED keeps the package's store: its user directory, as the runtime says it. */
export function storeFile(RED: NodeAPI): string {
  const userDir = (RED.settings as { userDir?: unknown }).userDir;
  if (typeof userDir !== 'string' || userDir === '') {
    throw new StoreError(
      'Node-RED did not say its user directory (settings.userDir), where the MindsDB nodes keep their state',
      'unavailable',
      STORE_FILE,
    );
  }
  return path.join(userDir, STORE_FILE);
}

/**
 * The package's store for a node that keeps state: one connection per Node-RED, shared by its
 * nodes. The node releases its lease once, at the end of its close (after its last write: a close
 * waits for the messages in flight first). Throws a StoreError saying why the store cannot be
 * opened; the caller decides whether the node goes on without it, and says so.
 */
export function leaseNodeStore(RED: NodeAPI): StoreLease {
  return leaseStore(storeFile(RED));
}
