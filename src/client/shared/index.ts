/**
 * What every layer of the client shares: errors, small value types, path segments, redaction of
 * secrets, the rule for a name MindsDB stored in another case, and SQL text (quoting for MindsDB's
 * lexer, bound parameters). Imports nothing else of the client.
 */
export { MindsDBError, inputError } from './errors';
export type { MindsDBErrorKind, MindsDBErrorInit } from './errors';
export { isPlainObject, describeType, sizeText, MAX_TIMER_MS } from './values';
export type { Row } from './values';
export { plainJson, jsonText, isRawJson, pathOf } from './json-value';
export type { RawJson } from './json-value';
export { segment, normalisePrefix } from './paths';
export {
  Redactor,
  redactSecretFields,
  refuseMaskedValues,
  maskedValuePaths,
  isSecretKey,
  maskUriPasswords,
  MASK,
} from './redact';
export { positionalToNamed } from './sql-params';
export { ident, sqlLiteral, sqlUsing, sqlSubquery } from './sql-text';
export { incrementalQuery, positionValue, POSITION_PARAMS } from './incremental-sql';
export type { Position, PositionValue, IncrementalColumns } from './incremental-sql';
export { sqlPieces } from './sql-lexer';
export { readOnlyStatement } from './sql-read-only';
export type { ReadOnlyVerdict } from './sql-read-only';
export type { SqlPiece, SqlPieceKind } from './sql-lexer';
export { RawBody } from './raw-body';
export { NO_OBSERVER } from './observer';
export type { ExchangeObserver } from './observer';
export { matchName, foldCase, storedNameText, ambiguousNameError } from './names';
export type { NameMatch } from './names';
// The tree of a server's items, as the editor shows it too (declared once, in src/common/).
export type { TreeItem, TreeKind } from '../../common/tree-item';
