import type { PoolConfig } from 'pg';
import { StoreError } from '../api';

/** A shared store as its config node says it (docs/state-store.md); `password` never leaves this module's texts. */
export interface SharedStoreOptions {
  /** The config node's name (texts name the store by it). */
  name: string;
  /** `postgres://host:5432/database` (user and password may be in it; they are taken out). */
  url: string;
  schema: string;
  user?: string;
  password?: string;
  /** TLS options from core's tls-config node; none: the URL's `sslmode`. */
  tls?: Record<string, unknown>;
  leaseSeconds: number;
  forgetDays: number;
}

/** What the package connects with: pg's options (never a connection string) and how texts name the store. */
export interface Connection {
  pool: PoolConfig;
  /** `db.example:5432/nodered, schema node_red_mindsdb`. */
  place: string;
  /** The quoted schema, for SQL text. */
  schema: string;
  /** Takes the password out of a text (pg's or a socket's error), wherever it appears. */
  redact(text: string): string;
}

/** A schema the package creates and names unquoted in the docs: lowercase letters, digits and _. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The connection from a shared store's options, or a StoreError that says what is wrong with them (no password). */
export function connectionOf(o: SharedStoreOptions): Connection {
  const where = `the PostgreSQL store "${o.name || 'unnamed'}"`;
  const refuse = (why: string): StoreError => new StoreError(`${where}: ${why}`, 'refused', where);
  let url: URL;
  try {
    url = new URL(o.url.trim());
  } catch {
    throw refuse(
      'its URL is not a URL: write postgres://host:5432/database (user and password go in the fields for them)',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw refuse(`its URL must start with postgres:// (it starts with ${url.protocol}//)`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!url.hostname || !database)
    throw refuse('its URL must name a host and a database: postgres://host:5432/database');
  if (!SCHEMA_NAME.test(o.schema))
    throw refuse(`its schema "${o.schema}" must be lowercase letters, digits and _ (a plain PostgreSQL name)`);
  const password = o.password || decodeURIComponent(url.password) || undefined;
  const user = o.user || decodeURIComponent(url.username) || undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : 5432;
  const place = `${url.hostname}:${port}/${database}, schema ${o.schema}`;
  const secrets = [password, url.password, encodeURIComponent(password ?? '')].filter((s): s is string => !!s);
  return {
    pool: {
      host,
      port,
      database,
      user,
      password,
      ssl: o.tls ?? sslOf(url.searchParams.get('sslmode'), refuse),
      application_name: 'node-red-mindsdb',
      connectionTimeoutMillis: 5000,
      // A request the store does not answer within two lease periods is treated as lost (looked up or retried).
      query_timeout: o.leaseSeconds * 2000,
      keepAlive: true,
      max: 4,
      idleTimeoutMillis: 30_000,
    },
    place,
    schema: `"${o.schema}"`,
    redact: (text) => secrets.reduce((t, s) => t.split(s).join('***'), text),
  };
}

/** libpq's sslmode as pg's `ssl`: require encrypts without checking the certificate, verify-* check it. */
function sslOf(mode: string | null, refuse: (why: string) => StoreError): PoolConfig['ssl'] {
  switch (mode) {
    case null:
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true };
    default:
      throw refuse(
        `its URL's sslmode=${mode} is not one the store knows: use disable, require, verify-ca or ` +
          'verify-full (or a TLS config node)',
      );
  }
}
