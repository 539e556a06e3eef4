'use strict';
/**
 * A PostgreSQL cluster of a test's own (Debian's binaries, /usr/lib/postgresql/<version>/bin), so that
 * restarting or stopping it touches nothing else on the machine: its data in a temporary directory owned by
 * the postgres user (initdb refuses root; every server command runs as postgres through `runuser`), its
 * socket in that directory, TCP on 127.0.0.1 only, on a port of its own (PG_CLUSTER_PORT, default 25432).
 * Local connections (the test's psql, as postgres) are trusted; TCP asks for a password (scram-sha-256),
 * as a user's server does, so a client must send the credentials it was given.
 *
 *   const pg = await startPgCluster();        // { port, dir, psql(sql, db), restart(mode), stop() }
 *   pg.psql("CREATE ROLE app LOGIN PASSWORD 'secret'");
 *   await pg.restart('immediate');            // a crash and recovery: connections cut mid-transaction
 *   await pg.stop();                          // also at process exit, if a test forgot or failed before
 *
 * Test support only. Beside test/support/pg-cluster.js (the unit suite's, on 25433), because `npm test` runs the
 * chaos suite in the other lane at the same time: this one has a port of its own, and its commands do not block the
 * event loop (a feed goes on while the store restarts).
 */
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const VERSION = process.env.PG_CLUSTER_VERSION || '15';
const BIN = `/usr/lib/postgresql/${VERSION}/bin`;

/** Runs a PostgreSQL program as the postgres user; resolves with its output, rejects with its stderr. */
function asPostgres(program, args, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    execFile(
      'runuser',
      ['-u', 'postgres', '--', path.join(BIN, program), ...args],
      { encoding: 'utf8', timeout: timeoutMs },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${program} ${args.join(' ')} failed: ${stderr || err.message}`)) : resolve(stdout),
    );
  });
}

/** The postmaster's pid from its pid file, or undefined when it is not running. */
function postmasterPid(dir) {
  try {
    const pid = Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

async function startPgCluster({ port = Number(process.env.PG_CLUSTER_PORT) || 25432 } = {}) {
  if (!fs.existsSync(path.join(BIN, 'initdb')))
    throw new Error(`this test needs PostgreSQL ${VERSION}'s server binaries in ${BIN} (apt-get install postgresql)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-pg-cluster-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  execFileSync('chown', ['postgres:postgres', dir]);
  fs.chmodSync(dir, 0o700);
  let stopped = false;
  // A test that fails before its after hook, or a mocha that exits at once, still stops the server.
  const atExit = () => {
    const pid = postmasterPid(dir);
    if (pid) process.kill(pid, 'SIGQUIT'); // PostgreSQL's immediate shutdown
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', atExit);
  const pgCtl = (...args) => asPostgres('pg_ctl', ['-D', data, ...args]);
  const start = () =>
    pgCtl(
      '-l',
      log,
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=100`,
      'start',
    );
  try {
    await asPostgres('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--no-instructions',
    ]);
    await start();
  } catch (err) {
    const pid = postmasterPid(dir);
    if (pid) process.kill(pid, 'SIGQUIT');
    process.removeListener('exit', atExit);
    let tail = '';
    try {
      tail = fs.readFileSync(log, 'utf8').slice(-2000);
    } catch {
      /* no log yet */
    }
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`the test's PostgreSQL on port ${port} did not start: ${err.message}\n${tail}`);
  }

  return {
    port,
    dir,
    /** The server's log, for a failed test's report. */
    log: () => {
      try {
        return fs.readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    },
    /** Runs SQL as the postgres superuser over the socket; the rows as `a|b` lines. */
    psql(sql, db = 'postgres') {
      return execFileSync(
        'psql',
        ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql],
        { encoding: 'utf8', timeout: 60_000 },
      );
    },
    /**
     * Stops and starts the server. `immediate`: as a crash (every backend quits at once, the next start
     * recovers from the WAL); `fast`: open transactions rolled back, clients disconnected.
     */
    async restart(mode = 'immediate') {
      await pgCtl('-m', mode, '-w', 'stop');
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        if (postmasterPid(dir)) await pgCtl('-m', 'fast', '-w', '-t', '30', 'stop');
      } catch {
        const pid = postmasterPid(dir);
        if (pid) process.kill(pid, 'SIGKILL');
      }
      process.removeListener('exit', atExit);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startPgCluster };
