/**
 * The writers that send a node's writes, through the outbox when it is on: the table node's inserts
 * (`TableWriter`, micro-batched), the knowledge-base node's inserts and the sql node's statements
 * (`KnowledgeBaseWriter`, `SqlWriter`: one request each). A node builds its writer from values and
 * hands it each write; nothing here calls back into the node. The room's one door.
 */
export { TableTarget, TableWriter } from './table-writer';
export { KnowledgeBaseWriter, type KbInsert } from './kb-writer';
export { SqlWriter } from './sql-writer';
