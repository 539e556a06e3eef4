/**
 * The MindsDB REST client: no Node-RED in here, so it can be used and tested on its own. This is
 * its one door for the node adapters (src/runtime, src/mindsdb-*.ts). Inside, the floors are
 * (docs/architecture.md): shared → exchange, answers → connection → resources.
 */
export * from './shared';
export { SqlResultStream, rowsToObjects, parseExplainColumns, targetFromRows, SseParser } from './answers';
export type { TlsOptions, ProxyOptions } from './exchange';
export type { AuthOptions, HttpAuthType } from './exchange';
export * from './connection';
export * from './resources';
