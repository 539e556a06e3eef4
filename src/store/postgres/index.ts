/** The shared store: the package's tables in a PostgreSQL schema, through pg, loaded only when one is configured. */
export type { SharedStoreOptions } from './options';
export { PgStore } from './pg-store';
