import type { Database } from './database';
import { NODE_TABLES } from './schema';

/** Records `nodes` as run by a copy now (docs/state-store.md: what the janitor keeps). */
export async function markSeen(db: Database, nodes: readonly string[]): Promise<void> {
  if (nodes.length === 0) return;
  const s = db.connection.schema;
  await db.query(
    'record the nodes that keep state',
    `INSERT INTO ${s}.node_seen (node, seen_at) SELECT unnest($1::text[]), now()
     ON CONFLICT (node) DO UPDATE SET seen_at = excluded.seen_at`,
    [nodes],
  );
}

/**
 * The janitor, run by one copy at a time (an advisory lock; a copy that finds it taken does
 * nothing): deletes the rows of nodes no copy has run for `forgetDays` (a node deleted from the
 * flows), and the copy rows whose lease ended more than a day ago. A node with rows but never
 * recorded is adopted as seen now. Resolves with the rows deleted, or undefined when another copy
 * holds the lock.
 */
export function clean(db: Database, schemaName: string, forgetDays: number): Promise<number | undefined> {
  const s = db.connection.schema;
  return db.transaction('forget the state of nodes no longer run', async (c) => {
    const lock = await c.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [
      `node-red-mindsdb:${schemaName}:janitor`,
    ]);
    if (!lock.rows[0]?.got) return undefined;
    let deleted = 0;
    for (const table of NODE_TABLES) {
      await c.query(
        `INSERT INTO ${s}.node_seen (node, seen_at) SELECT DISTINCT node, now() FROM ${s}.${table}
         ON CONFLICT (node) DO NOTHING`,
      );
      const gone = await c.query(
        `DELETE FROM ${s}.${table} WHERE node IN
           (SELECT node FROM ${s}.node_seen WHERE seen_at < now() - $1::float8 * interval '1 day')`,
        [forgetDays],
      );
      deleted += gone.rowCount ?? 0;
    }
    await c.query(`DELETE FROM ${s}.node_seen WHERE seen_at < now() - $1::float8 * interval '1 day'`, [forgetDays]);
    await c.query(`DELETE FROM ${s}.copy WHERE lease_until < now() - interval '1 day'`);
    return deleted;
  });
}
