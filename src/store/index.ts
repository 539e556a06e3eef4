/**
 * The package's one embedded store (docs/state-store.md): durable state that must survive a
 * restart and a kill -9, in one SQLite file. No Node-RED in here.
 */
export { StateStore } from './state-store';
export { leaseStore, type StoreLease } from './shared-stores';
export { StoreError, storeError, type StoreErrorKind } from './store-error';
