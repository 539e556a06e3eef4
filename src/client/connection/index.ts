/**
 * ServerConnection, the facade over one server (requests, SQL, streams, status and version, its
 * health), with what it asks once and keeps (the server's version); MindsDB's routes come from
 * client/resources (whose MindsDBClient is the one to use). Imports ../exchange, ../answers and ../shared.
 */
export { ServerConnection, checkSqlAnswer, nativeQueryRefusal, supportsJsonLines } from './client';
export { versionAtLeast } from './versions';
/** An answer that is not what the route gives (kind invalid-response). */
export { invalid as invalidAnswer } from './sql-answer';
export { ServerHealth, ServerUnreachableError, DEFAULT_HEALTH } from './health';
export type { HealthState, HealthView, HealthSettings, Probe } from './health';
export type {
  ClientOptions,
  ServerRoutes,
  RequestOptions,
  SqlStreamOptions,
  ServerStatus,
  SqlRequest,
  SqlAnswer,
  SqlDone,
  OpenedAnswer,
} from './client';
export type { Repeat } from '../exchange';
/** What a failed request means (not sent, refused, may have been done, final) and what a failed write left stored. */
export { answerLost, storedAfter, verdictOf } from '../exchange';
export type { Stored, Verdict } from '../exchange';
