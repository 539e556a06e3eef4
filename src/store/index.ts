/**
 * The package's state stores (docs/state-store.md): durable state that must survive a restart and
 * a kill -9 — the embedded one, a SQLite file of this Node-RED (store/embedded), and the shared
 * one, a PostgreSQL schema that copies of the same flows share (store/postgres) — behind one
 * contract per feature (store/api). No Node-RED in here.
 */
export {
  asStoreError,
  StoreError,
  type Held,
  type Kept,
  type KeptRow,
  type NewRow,
  type OutboxRows,
  type PositionLease,
  type PositionRows,
  type Store,
  type StoreErrorKind,
  type StoreHealthView,
  type StoreLease,
  type StoredPosition,
  type Turn,
  type TurnRows,
} from './api';
export { EmbeddedStore, JANITOR_DELAY_MS, leaseEmbeddedStore, leaseStore, StateStore, storeError } from './embedded';
export { PgStore, type SharedStoreOptions } from './postgres';
