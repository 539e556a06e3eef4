/** The store's contract (imports nothing): what features ask of a store, and how it fails. */
export type {
  Held,
  Kept,
  KeptRow,
  NewRow,
  OutboxRows,
  PositionLease,
  PositionRows,
  StoredPosition,
  Turn,
  TurnRows,
} from './features';
export type { Store, StoreHealthView, StoreLease } from './store';
export { asStoreError, StoreError, type StoreErrorKind } from './store-error';
