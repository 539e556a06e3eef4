/** An SQL answer sent on from the sql and view nodes: whole, or as a sequence of parts under msg.tick flow control. */
export { SqlOutput, type RowGate } from './sql-output';
export { sqlControl } from './sql-control';
