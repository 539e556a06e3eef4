import type { MindsDBError } from '../shared';

/**
 * How each MindsDB route says "not there" to a DELETE (25.14.1 and 26.1.0, docs/real-mindsdb.md).
 * A DELETE that carries one of these may be repeated (client/exchange/policy.ts); its "not there"
 * answer after an attempt that may have deleted the record means the delete succeeded.
 */

/** A 404 for a record or its project (a route the server lacks is kind 'unsupported', not this). */
export function recordNotFound(err: MindsDBError): boolean {
  return err.kind === 'http' && err.status === 404;
}

/** DELETE /api/files/{name} of a missing file: 400 "Error deleting file". */
export function fileNotFound(err: MindsDBError): boolean {
  return err.kind === 'http' && err.status === 400 && /error deleting file/i.test(err.serverMessage ?? '');
}

/** DELETE …/jobs/{name} of a missing job: 500 "EntityNotExistsError: Job does not exist". */
export function jobNotFound(err: MindsDBError): boolean {
  return err.kind === 'http' && err.status === 500 && /does not exist/i.test(err.serverMessage ?? '');
}
