/**
 * MindsDBClient: the facade over one MindsDB server (requests, SQL, streams, status and version).
 * Imports ../exchange, ../answers and ../shared.
 */
export { MindsDBClient, checkSqlAnswer, supportsJsonLines } from './client';
export type { ClientOptions, RequestOptions, ServerStatus, SqlRequest, SqlAnswer } from './client';
