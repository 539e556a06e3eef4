import type { RequestOptions, SqlAnswer, SqlRequest } from '../connection';
import type { MindsDBClient } from './client';

/**
 * One SQL statement awaited. The client's `sql` has one face, a callback: it is the sql node's
 * per-message path, which makes no promise from the msg to its answer (a promise there cost 0.55 µs
 * of the client's 27 µs per request, docs/architecture.md). Everything that awaits a statement (the
 * resources' operations of several steps, an outbox's write, incremental reads) does it through
 * this one wrapper, never a promise of its own.
 */
export function sqlOf(client: MindsDBClient, req: SqlRequest, opts?: RequestOptions): Promise<SqlAnswer> {
  return new Promise((resolve, reject) => {
    client.sql(req, opts, (err, answer) => (err ? reject(err) : resolve(answer as SqlAnswer)));
  });
}
