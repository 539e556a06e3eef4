/**
 * The writers that send a node's rows: the table node's inserts (`TableWriter`), micro-batched,
 * through the outbox when it is on. The room's one door.
 */
export { TableTarget, TableWriter } from './table-writer';
