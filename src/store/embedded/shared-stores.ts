import type { StoreLease } from '../api';
import { EmbeddedStore } from './embedded-store';
import { StateStore } from './state-store';

/** One user of an embedded store's file, at the level of its SQLite connection (tests read the tables through it). */
export interface FileLease {
  readonly store: StateStore;
  release(): void;
}

interface Open {
  state: StateStore;
  embedded: EmbeddedStore | undefined;
  users: number;
}

const open = new Map<string, Open>();
/** Rows of a node that no copy has run for this long are forgotten (docs/state-store.md). */
const FORGET_MS = 7 * 24 * 3_600_000;

/**
 * The SQLite connection to `file`, shared by everything in this process that asks for it: one
 * connection per file (SQLite serialises writers per connection, and prepared statements are kept
 * per connection), closed when its last user releases it (a redeploy opens it again).
 */
export function leaseStore(file: string): FileLease {
  let entry = open.get(file);
  if (!entry) {
    entry = { state: StateStore.open(file), embedded: undefined, users: 0 };
    open.set(file, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    store: held.state,
    release(): void {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (open.get(file) === held) open.delete(file);
      held.embedded?.close();
      held.state.close();
    },
  };
}

/**
 * The embedded store at `file` for a node that keeps state there (`description`: what the start-up
 * log line says of it; `node`: recorded as seen while the lease is held).
 */
export function leaseEmbeddedStore(file: string, description: string, node: string): StoreLease {
  const lease = leaseStore(file);
  const entry = open.get(file) as Open;
  entry.embedded ??= new EmbeddedStore(entry.state, description, FORGET_MS);
  const store = entry.embedded;
  let unuse: () => void;
  try {
    unuse = store.use(node);
  } catch (err) {
    lease.release();
    throw err;
  }
  return {
    store,
    release(): void {
      unuse();
      lease.release();
    },
  };
}
