'use strict';
/**
 * MindsDB's own SQL parser (the PyPI package `mindsdb_sql_parser`, at the version each pinned
 * MindsDB uses) for the tests: the quoting tests parse every statement the package builds with
 * it, and the MindsDB stand-in (fake-mindsdb.js) parses every SQL it receives with it, so both see
 * exactly what the real server's lexer and grammar see.
 *
 * - The versions come from ci/mindsdb/constraints-*.txt (`mindsdb-sql-parser==X`); both pinned
 *   MindsDB versions use 0.13.8 today, so there is one parser. Should they differ, `versions()`
 *   lists both and the quoting tests run against each.
 * - Each version lives in a small venv of its own, `.cache/sql-parser-venv-<version>` (about 30 MB,
 *   mostly pip; the parser has no dependency, sly is inside its wheel), made on first use the way
 *   scripts/mindsdb-local.sh makes MindsDB's: built in a scratch directory and renamed into place,
 *   so an interrupted install is never trusted and two test runs never share a half-made one.
 *   `npm test` and .ci/run make it before the unit suites (scripts/test-all.mjs), so only a
 *   focused run on a fresh clone pays for it inside mocha.
 * - One long-lived python process per version and per node process, JSON lines over stdin/stdout
 *   (mindsdb_sql_parser_server.py): under half a second to start, then 0.4-2 ms per statement.
 *   It is started on first use and does not keep node alive.
 */
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const ROOT = path.resolve(__dirname, '..', '..');
const SERVER = path.join(__dirname, 'mindsdb_sql_parser_server.py');

/** The mindsdb_sql_parser versions of the pinned MindsDB versions, each once: ['0.13.8']. */
function versions() {
  const dir = path.join(ROOT, 'ci', 'mindsdb');
  const found = new Set();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /^constraints-.*\.txt$/.test(f))
    .sort()) {
    const m = /^mindsdb[-_]sql[-_]parser==(\S+)\s*$/im.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (!m) throw new Error(`ci/mindsdb/${file} pins no mindsdb-sql-parser version`);
    found.add(m[1]);
  }
  if (found.size === 0) throw new Error('no ci/mindsdb/constraints-*.txt names a mindsdb-sql-parser version');
  return [...found];
}

const venvDir = (version) => path.join(ROOT, '.cache', `sql-parser-venv-${version}`);
const pythonOf = (dir) => path.join(dir, 'bin', 'python');

/** What the venv was made for: another version makes a new one. */
function marker(version) {
  return crypto.createHash('sha256').update(`mindsdb-sql-parser==${version}`).digest('hex');
}

/**
 * The venv's python for `version`, installing it on first use (synchronously: pip from PyPI, a few
 * seconds). Throws with the reason when python3 or PyPI is missing.
 */
function ensureVenv(version, log = (line) => process.stderr.write(`${line}\n`)) {
  const dir = venvDir(version);
  const stamp = path.join(dir, '.installed');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === marker(version)) return pythonOf(dir);
  const python = process.env.PYTHON || 'python3';
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  log(
    `[setup] installing mindsdb_sql_parser ${version} (MindsDB's SQL parser, for the quoting tests and the stand-in) into .cache/sql-parser-venv-${version}...`,
  );
  const started = Date.now();
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.error || r.status !== 0) {
      throw new Error(
        `${path.basename(cmd)} ${args.join(' ')} failed: ${r.error?.message || (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`,
      );
    }
  };
  try {
    run(python, ['-m', 'venv', partial]);
    run(pythonOf(partial), [
      '-m',
      'pip',
      'install',
      '-q',
      '--disable-pip-version-check',
      `mindsdb-sql-parser==${version}`,
    ]);
    run(pythonOf(partial), [
      '-c',
      `from mindsdb_sql_parser.__about__ import __version__ as v; assert v == ${JSON.stringify(version)}, v`,
    ]);
    fs.writeFileSync(path.join(partial, '.installed'), marker(version));
    if (fs.existsSync(stamp)) {
      fs.rmSync(partial, { recursive: true, force: true }); // another run finished first
    } else {
      fs.rmSync(dir, { recursive: true, force: true });
      try {
        fs.renameSync(partial, dir);
      } catch (err) {
        if (!fs.existsSync(stamp)) throw err;
        fs.rmSync(partial, { recursive: true, force: true });
      }
    }
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(
      `could not install mindsdb_sql_parser ${version} (needs python3 with venv, and PyPI): ${err.message}`,
    );
  }
  log(`[setup] mindsdb_sql_parser ${version} ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return pythonOf(dir);
}

/** One python process answering parse/tokens requests in order. */
class ParserProcess {
  constructor(version) {
    this.version = version;
    this.nextId = 1;
    this.pending = new Map();
    this.child = spawn(ensureVenv(version), [SERVER], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    this.stderr = '';
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line);
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.child.stdout.unref();
      waiter.resolve(reply);
    });
    const fail = (why) => {
      const err = new Error(
        `the mindsdb_sql_parser ${version} helper ${why}${this.stderr ? `: ${this.stderr.trim()}` : ''}`,
      );
      for (const w of this.pending.values()) w.reject(err);
      this.pending.clear();
      this.dead = err;
    };
    this.child.on('error', (err) => fail(`could not start (${err.message})`));
    this.child.on('exit', (code, signal) => fail(`exited (${signal || code})`));
    this.child.stdin.on('error', () => undefined);
    // Keeps the test process alive only while an answer is awaited; the helper ends when its
    // stdin closes with us.
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) s.unref();
  }

  /** CPU seconds the helper has used so far (Linux /proc; undefined elsewhere). */
  cpuSeconds() {
    try {
      const fields = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
    } catch {
      return undefined;
    }
  }

  request(op, sql) {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.child.stdout.ref();
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, op, sql })}\n`);
    });
  }
}

const processes = new Map();
// SQL_PARSER_STATS=1: say at exit how many statements the helper parsed and the CPU it used (to
// measure what parsing costs a suite, whatever else loads the machine).
if (process.env.SQL_PARSER_STATS) {
  process.on('exit', () => {
    for (const p of processes.values())
      process.stderr.write(`[sql-parser ${p.version}] ${p.nextId - 1} requests, ${p.cpuSeconds()} s CPU\n`);
  });
}
function processFor(version) {
  const v = version || versions()[0];
  let p = processes.get(v);
  if (!p || p.dead) {
    p = new ParserProcess(v);
    processes.set(v, p);
  }
  return p;
}

/**
 * Parses one statement as MindsDB does: {ok: true, ast} or {ok: false, error, type} (type is
 * ParsingException for a grammar error, LexError for a character the lexer refuses).
 */
const parse = (sql, version) => processFor(version).request('parse', sql);
/** MindsDB's tokens for `sql`: {ok: true, tokens: [[type, value, index], …]} or {ok: false, error, type}. */
const tokens = (sql, version) => processFor(version).request('tokens', sql);
/** Every lower-case word MindsDB's lexer reads as a keyword, not a name: {ok: true, keywords: [...]}. */
const keywords = (version) => processFor(version).request('keywords');
/** Starts the helper now (it takes about a second), so the first parse does not wait for it. */
const warmUp = (version) => {
  processFor(version);
};

module.exports = { versions, ensureVenv, parse, tokens, keywords, warmUp };
