import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { StoreError } from '../api';
import { storeError } from './sqlite-error';

/**
 * The package's one embedded store: a SQLite file through Node's built-in `node:sqlite` (no
 * dependency to install or compile, on every platform Node runs on, ARM included). SQLite was
 * made for exactly this (durable writes to one local file, atomic transactions, recovery after a
 * crash or a power cut from its write-ahead log), so nothing here has crash recovery of its own.
 * docs/state-store.md says what lives in it and why this store.
 *
 * Each feature that keeps state (the outbox, a query's position, agent conversations) declares
 * its tables as a list of schema steps (`migrate`) and reads and writes them with prepared
 * statements. Calls are synchronous: a write that returned is on disk (synchronous = FULL: the
 * write-ahead log is synced at every commit), so a caller may acknowledge what it stored.
 */
export class StateStore {
  private readonly statements = new Map<string, StatementSync>();
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly db: DatabaseSync,
  ) {}

  /** Opens (or creates) the store at `file`, its folder included. */
  static open(file: string): StateStore {
    let db: DatabaseSync | undefined;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      db = new (sqlite().DatabaseSync)(file);
      // WAL: readers never block the writer, and a commit is one append to the log. FULL: that
      // append is synced before the commit returns, so what a node acknowledged survives a power
      // cut too, not only a killed process. busy_timeout: a second process on the same file
      // (a second Node-RED on one user directory) waits a little before its write fails as busy.
      db.exec(
        'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 2000; PRAGMA foreign_keys = ON;',
      );
      db.exec('CREATE TABLE IF NOT EXISTS store_schema (feature TEXT PRIMARY KEY, version INTEGER NOT NULL)');
      return new StateStore(file, db);
    } catch (err) {
      try {
        db?.close();
      } catch {
        /* already failing */
      }
      throw storeError(err, file, 'be opened');
    }
  }

  /**
   * Brings a feature's tables up to date: `steps[i]` is the SQL that moves its schema from version
   * i to i + 1. Steps already applied (as the file records) are skipped; all new ones run in one
   * transaction. A file written by a newer version of the package is refused, not guessed at.
   */
  migrate(feature: string, steps: readonly string[]): void {
    this.transaction(() => {
      const row = this.statement('SELECT version FROM store_schema WHERE feature = ?').get(feature) as
        | { version: number }
        | undefined;
      const at = row?.version ?? 0;
      if (at > steps.length) {
        throw new StoreError(
          `the MindsDB nodes' store (${this.file}) holds ${feature} version ${at}, newer than this package knows ` +
            `(${steps.length}): it was written by a newer release of @mindsdb-flows/node-red-mindsdb`,
          'other',
          this.file,
        );
      }
      for (let v = at; v < steps.length; v++) this.db.exec(steps[v]);
      if (at < steps.length)
        this.statement(
          'INSERT INTO store_schema (feature, version) VALUES (?, ?) ON CONFLICT (feature) DO UPDATE SET version = ' +
            'excluded.version',
        ).run(feature, steps.length);
    }, `update the tables of ${feature}`);
  }

  /**
   * A prepared statement, made once per SQL text and kept (a feature's statements are few and
   * fixed). Errors while running it are the caller's to word (`attempt`).
   */
  statement(sql: string): StatementSync {
    this.ensureOpen();
    let s = this.statements.get(sql);
    if (!s) {
      try {
        s = this.db.prepare(sql);
      } catch (err) {
        throw storeError(err, this.file, 'prepare a statement');
      }
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * Runs `fn` in one write transaction (taken up front, so it never fails half-way for a lock):
   * all of its writes are on disk when this returns, or none of them. A transaction inside
   * another one joins it. Any error rolls back and comes out as a StoreError saying what failed.
   */
  transaction<T>(fn: () => T, doing = 'write'): T {
    this.ensureOpen();
    if (this.db.isTransaction) return fn();
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      throw storeError(err, this.file, doing);
    }
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      if (this.db.isTransaction) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          /* the connection is gone: nothing was committed */
        }
      }
      throw storeError(err, this.file, doing);
    }
  }

  /** Runs `fn` (reads or a single write) and words any error as a StoreError. */
  attempt<T>(fn: () => T, doing: string): T {
    this.ensureOpen();
    try {
      return fn();
    } catch (err) {
      throw storeError(err, this.file, doing);
    }
  }

  /** Closes the file (the write-ahead log is checkpointed into it). Later calls fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    try {
      this.db.close();
    } catch {
      /* closing anyway */
    }
  }

  private ensureOpen(): void {
    if (this.closed)
      throw new StoreError(`the MindsDB nodes' store (${this.file}) is closed`, 'unavailable', this.file);
  }
}

type Sqlite = typeof import('node:sqlite');
let loaded: Sqlite | undefined;

/**
 * node:sqlite, loaded on first use only: on Node 22 loading it prints an ExperimentalWarning
 * once, which a flow that keeps no state should never see.
 */
function sqlite(): Sqlite {
  loaded ??= require('node:sqlite') as Sqlite;
  return loaded;
}
