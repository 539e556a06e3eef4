import { StoreError } from '../api';
import type { Database } from './database';

/**
 * The package's tables in the shared store, as numbered steps per feature (as the embedded store's
 * `StateStore.migrate`), each step the SQL that moves a feature from version i to i + 1. `s` is the
 * quoted schema. Leases and epochs are the store's: `now()` and one sequence, never a copy's clock.
 */
const FEATURES: ReadonlyArray<[feature: string, steps: ReadonlyArray<(s: string) => string>]> = [
  [
    'copies',
    [
      (s) => `CREATE SEQUENCE ${s}.epoch_seq;
        CREATE TABLE ${s}.copy (
          id text PRIMARY KEY,
          host text NOT NULL,
          started_at timestamptz NOT NULL DEFAULT now(),
          lease_until timestamptz NOT NULL
        );
        CREATE TABLE ${s}.node_seen (node text PRIMARY KEY, seen_at timestamptz NOT NULL);`,
    ],
  ],
  [
    'outbox',
    [
      (s) => `CREATE TABLE ${s}.outbox (
          id bigserial PRIMARY KEY,
          uid text NOT NULL UNIQUE,
          node text NOT NULL,
          accepted_at bigint NOT NULL,
          sending boolean NOT NULL DEFAULT false,
          in_doubt boolean NOT NULL DEFAULT false,
          bytes integer NOT NULL,
          msg text NOT NULL,
          holder text,
          epoch bigint NOT NULL
        );
        CREATE INDEX outbox_by_node ON ${s}.outbox (node, id);`,
    ],
  ],
  [
    'incremental',
    [
      (s) => `CREATE TABLE ${s}.incremental_position (
          node text PRIMARY KEY,
          watermark_column text,
          key_column text,
          watermark text,
          tie_key text,
          rows_sent bigint NOT NULL DEFAULT 0,
          updated_at timestamptz,
          holder text,
          lease_until timestamptz,
          epoch bigint NOT NULL DEFAULT 0
        );`,
    ],
  ],
  [
    'conversations',
    [
      (s) => `CREATE TABLE ${s}.agent_turn (
          id bigserial PRIMARY KEY,
          uid text NOT NULL UNIQUE,
          node text NOT NULL,
          conversation text NOT NULL,
          question text NOT NULL,
          answer text NOT NULL,
          at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX agent_turn_by_conversation ON ${s}.agent_turn (node, conversation, id);`,
    ],
  ],
];

/** The tables the janitor cleans per node, once their features exist. */
export const NODE_TABLES = ['outbox', 'incremental_position', 'agent_turn'] as const;

/**
 * Creates the schema and brings every feature's tables up to date, in one transaction under an
 * advisory lock, so copies that start at once take turns (the second finds the work done). A
 * store written by a newer release of the package is refused, never guessed at.
 */
export async function migrate(db: Database, schemaName: string): Promise<void> {
  const s = db.connection.schema;
  await db.transaction('create or update its tables', async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`node-red-mindsdb:${schemaName}`]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await c.query(`CREATE TABLE IF NOT EXISTS ${s}.store_schema (feature text PRIMARY KEY, version integer NOT NULL)`);
    const rows = (await c.query<{ feature: string; version: number }>(`SELECT feature, version FROM ${s}.store_schema`))
      .rows;
    const at = new Map(rows.map((r) => [r.feature, Number(r.version)]));
    for (const [feature, steps] of FEATURES) {
      const from = at.get(feature) ?? 0;
      if (from > steps.length)
        throw new StoreError(
          `${db.where} holds ${feature} version ${from}, newer than this package knows (${steps.length}): it was ` +
            'written by a newer release of @mindsdb-flows/node-red-mindsdb; update the package on this copy',
          'other',
          db.where,
        );
      for (let v = from; v < steps.length; v++) await c.query(steps[v](s));
      if (from < steps.length)
        await c.query(
          `INSERT INTO ${s}.store_schema (feature, version) VALUES ($1, $2)
           ON CONFLICT (feature) DO UPDATE SET version = excluded.version`,
          [feature, steps.length],
        );
    }
  });
}
