/**
 * Reading answers: SQL answers as JSON or jsonlines, read whole or as they arrive; server-sent
 * events; rows as objects; prediction columns. Imports only ../shared.
 */
export type { AnswerParser, AnswerHead } from './answer-parser';
export { JsonAnswerParser } from './json-answer-parser';
export { JsonLinesParser, sqlError } from './jsonlines-parser';
export { SqlResultStream } from './sql-stream';
export { RowSpool } from './row-spool';
export type { SpoolOptions } from './row-spool';
export type { ChunkSource, StreamHold } from './sql-stream';
export { SseParser } from './sse';
export { rowsToObjects } from './rows';
export { parseExplainColumns, targetFromRows } from './predictions';
