/**
 * MindsDBClient, the facade over one server (requests, SQL, streams, status and version), with
 * what it asks once and keeps (the server's version, models' target columns). Imports
 * ../exchange, ../answers and ../shared.
 */
export { MindsDBClient, checkSqlAnswer, nativeQueryRefusal, supportsJsonLines } from './client';
export { versionAtLeast } from './versions';
export { ServerHealth, ServerUnreachableError, DEFAULT_HEALTH } from './health';
export type { HealthState, HealthView, HealthSettings, Probe } from './health';
export type {
  ClientOptions,
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
