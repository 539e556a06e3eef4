'use strict';
/**
 * The machine's PostgreSQL (127.0.0.1:5432, trust auth, database `test`) for the shared state
 * store's tests: each test gets a schema of its own (`freshSchema`), dropped after (`dropSchema`).
 * `sql` runs one statement on a connection of its own.
 */
const crypto = require('node:crypto');
const { Client } = require('pg');

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
const URL = `postgres://${PG.host}:${PG.port}/${PG.database}`;

async function sql(text, values = [], conn = PG) {
  const c = new Client(conn);
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** A schema name no other test uses (it does not exist yet: the store creates it). */
const freshSchema = (prefix = 'st') => `${prefix}_${crypto.randomBytes(6).toString('hex')}`;

const dropSchema = (schema, conn = PG) => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, [], conn);

/** Options of a shared store on the machine's PostgreSQL. */
const storeOptions = (schema, extra = {}) => ({
  name: 'test store',
  url: URL,
  schema,
  user: PG.user,
  leaseSeconds: 2,
  forgetDays: 7,
  ...extra,
});

module.exports = { PG, URL, sql, freshSchema, dropSchema, storeOptions };
