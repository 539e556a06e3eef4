/** The MindsDB REST client: no Node-RED in here, so it can be used and tested on its own. */
export { MindsDBClient, checkSqlAnswer } from './client';
export type { ClientOptions, RequestOptions, ServerStatus, SqlAnswer, SqlRequest, Row } from './client';
export type { AuthOptions } from './auth';
export { MindsDBError, inputError } from './errors';
export type { MindsDBErrorKind } from './errors';
export { segment, normalisePrefix } from './paths';
export { Redactor, redactSecretFields, refuseMaskedValues, isSecretKey, maskUriPasswords, MASK } from './redact';
export { rowsToObjects } from './rows';
export { parseExplainColumns, targetFromRows } from './predictions';
export type { TlsOptions } from './transport';
export { positionalToNamed } from './sql-params';
export { DatabasesApi } from './databases';
export type { DatabaseSpec, CreatedDatabase } from './databases';
export { ResourcesApi, RESOURCES } from './resources';
export type { ResourceKind, ResourceOperation, ResourceRequest, ResourceSpec, DeletedRecord } from './resources';
export { completeAgent, streamAgent, toAgentMessages } from './agent-completions';
export type { AgentMessage, Completion } from './agent-completions';
export { SseParser } from './sse';
