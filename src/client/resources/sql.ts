import type { MindsDBClient, RequestOptions, SqlAnswer, SqlRequest } from '../connection';

/**
 * One SQL statement awaited, for the resources' operations of several steps. The client's `sql`
 * hands its answer to a callback (the per-message path makes no promise); this is the one place
 * the resources turn it into one.
 */
export function sqlOf(client: MindsDBClient, req: SqlRequest, opts?: RequestOptions): Promise<SqlAnswer> {
  return new Promise((resolve, reject) => {
    client.sql(req, opts, (err, answer) => (err ? reject(err) : resolve(answer as SqlAnswer)));
  });
}
