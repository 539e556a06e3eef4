/** The writers that send a node's rows: the table node's inserts, micro-batched, through the outbox when it is on. */
export * from './table-writer';
