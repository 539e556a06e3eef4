/**
 * The outbox (docs/outbox.md): a node's writes kept in the package's store while MindsDB is away,
 * sent in arrival order when it is back. The room's one door; it imports nothing from the rooms that use it.
 */
export { Outbox } from './outbox';
export { singleWriter, startOutbox } from './outbox-node';
export { TakenOver } from './outbox-policy';
export type { OutboxItem, OutboxWriter } from './outbox-writer';
