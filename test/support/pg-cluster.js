'use strict';
/**
 * A PostgreSQL cluster of a test's own (Debian's PostgreSQL 15 binaries, run as the `postgres` user
 * because initdb refuses root), on a port of its own (25433), its data in a temporary folder: so a
 * test can stop and restart it, and ask for a password, without touching the machine's PostgreSQL.
 * The user `store` signs in with PASSWORD (scram-sha-256); `postgres` is trusted (the test's admin).
 * Stopped by its own pg_ctl, never by a name.
 */
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');

const BIN = '/usr/lib/postgresql/15/bin';
const PORT = 25433;
const PASSWORD = 'sw0rdfish-Secret-38';

const asPostgres = (cmd, args) =>
  execFileSync('runuser', ['-u', 'postgres', '--', path.join(BIN, cmd), ...args], { encoding: 'utf8', stdio: 'pipe' });

/** Creates and starts the cluster, with the user `store` and its database `store`. */
async function startCluster() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-store38-'));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'log');
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    `\nport = ${PORT}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = on\n`,
  );
  fs.writeFileSync(
    path.join(data, 'pg_hba.conf'),
    'host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\nlocal all all trust\n',
  );
  const ctl = (...args) => asPostgres('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', ...args]);
  ctl('start');
  const admin = new Client({ host: '127.0.0.1', port: PORT, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE USER store PASSWORD '${PASSWORD}'`);
  await admin.query('CREATE DATABASE store OWNER store');
  await admin.end();
  return {
    port: PORT,
    url: `postgres://127.0.0.1:${PORT}/store`,
    /**
     * Stops it at once (as a crash or a failover would: clients are cut mid-statement) and starts it
     * again; resolves once it answers. The test's process goes on meanwhile (messages keep coming).
     */
    restart: () =>
      new Promise((resolve, reject) =>
        execFile(
          'runuser',
          [
            '-u',
            'postgres',
            '--',
            path.join(BIN, 'pg_ctl'),
            '-D',
            data,
            '-l',
            log,
            '-w',
            '-t',
            '60',
            'restart',
            '-m',
            'immediate',
          ],
          (err) => (err ? reject(err) : resolve()),
        ),
      ),
    stop: () => ctl('stop', '-m', 'immediate'),
    start: () => ctl('start'),
    async sql(text, values = []) {
      const c = new Client({ host: '127.0.0.1', port: PORT, user: 'postgres', database: 'store' });
      await c.connect();
      try {
        return (await c.query(text, values)).rows;
      } finally {
        await c.end();
      }
    },
    remove() {
      try {
        ctl('stop', '-m', 'immediate');
      } catch {
        /* already stopped */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startCluster, PASSWORD, PORT };
