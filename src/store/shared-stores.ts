import { StateStore } from './state-store';

/** One user of a shared store: `release()` once when done (a node's close). */
export interface StoreLease {
  readonly store: StateStore;
  release(): void;
}

interface Open {
  store: StateStore;
  users: number;
}

const open = new Map<string, Open>();

/**
 * The store at `file`, shared by everything in this process that asks for it: one connection per
 * file (SQLite serialises writers per connection, and prepared statements are kept per
 * connection), closed when its last user releases it (a redeploy opens it again).
 */
export function leaseStore(file: string): StoreLease {
  let entry = open.get(file);
  if (!entry) {
    entry = { store: StateStore.open(file), users: 0 };
    open.set(file, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    store: held.store,
    release(): void {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      if (open.get(file) === held) open.delete(file);
      held.store.close();
    },
  };
}
