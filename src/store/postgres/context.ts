import type { Database } from './database';
import type { SharedStoreOptions } from './options';

/** What each feature's rows use of the shared store they belong to (pg-store.ts holds it). */
export interface PgContext {
  /** This copy's id (the holder of its rows and leases). */
  readonly copy: string;
  readonly where: string;
  readonly leaseMs: number;
  readonly options: SharedStoreOptions;
  readonly database: Database;
  /** Times this copy's lease was found run out: another copy may have taken its rows over meanwhile. */
  readonly lapses: number;
}
