/** The embedded store: one SQLite file through node:sqlite (docs/state-store.md). */
export { EmbeddedStore, JANITOR_DELAY_MS } from './embedded-store';
export { leaseEmbeddedStore, leaseStore, type FileLease } from './shared-stores';
export { storeError } from './sqlite-error';
export { StateStore } from './state-store';
