/**
 * The shared state store (docs/state-store.md): a config node that names a PostgreSQL database
 * where the nodes of every server that chooses it keep their state (outbox, incremental positions,
 * agent conversations), shared by every Node-RED copy that runs the same flows.
 */
import { configNode, number, password, plainCredential, text } from './fields';
import { defineNode } from './node-schema';

/** A PostgreSQL URL (`postgres://host:5432/database`, `postgresql://…`), or `${VAR}`. */
const POSTGRES_URL = '^(postgres(ql)?://\\S+|\\$\\{[^}]+\\})$';
/** A schema name the package can use without quoting tricks: a plain SQL identifier. */
const SCHEMA_NAME = '^[a-z_][a-z0-9_]{0,62}$';

/** The schema the package's tables live in unless the config node names another. */
export const DEFAULT_STORE_SCHEMA = 'node_red_mindsdb';

export const STATE_STORE_NODE = defineNode(
  'mindsdb-state-store',
  1,
  {
    name: text(),
    /** Blank until the user names the database (the deploy then says the store has no URL). */
    url: text('', { check: { pattern: POSTGRES_URL } }),
    schema: text(DEFAULT_STORE_SCHEMA, { required: true, check: { pattern: SCHEMA_NAME } }),
    tls: configNode('tls-config', false),
    /** The lease period: a copy that has not renewed its lease for this long counts as dead. */
    leaseSeconds: number(15, { integer: true, min: 1, max: 3600 }, { required: true }),
    /** Rows of a node that no copy has run for this long are deleted (a node removed from the flows). */
    forgetDays: number(7, { above: 0 }, { required: true }),
  },
  {
    user: plainCredential(),
    password: password(),
  },
);
