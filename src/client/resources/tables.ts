import { sqlOf } from './sql';
import { verdictOf, type RequestOptions, type SqlAnswer } from '../connection';
import type { MindsDBClient } from './client';
import { ident, inputError, isRawJson, MindsDBError, segment } from '../shared';
import { bindsParameters, insertColumn, insertStatement, type InsertRow, type InsertValue } from './table-rows';
import { recordNotFound } from './gone';
import { withStoredName, withStoredNames } from './names';
import { TableCreation, type CreatedTable } from './table-create';

/**
 * A data source's tables (25.14.1 and 26.1.0, measured in test/e2e/table.e2e.js):
 * - list:   GET /databases/{db}/tables → [{name, type}]; an unknown database answers 500
 *           ("'NoneType' object has no attribute 'get_tables'"), said here as what it means;
 * - create: POST /databases/{db}/tables {table: {name, select, replace}} → 201 {name, type}: MindsDB
 *           runs `CREATE [OR REPLACE] TABLE db.t (SELECT …)`; 409 when it exists, 400 in a project;
 * - delete: DELETE /databases/{db}/tables/{t} → 204, 404 "Table not found";
 * - insert: there is no REST route for rows (docs/rest/tables/insert.mdx says "in progress"), so
 *           rows go as one `INSERT INTO db.t (cols) VALUES (:p1, …), (…)` through /sql/query.
 */

type Json = Record<string, unknown>;

export interface InsertResult {
  inserted: number;
  database: string;
  table: string;
  columns: string[];
}

export class TablesApi {
  constructor(private readonly client: MindsDBClient) {}

  private path(database: string, table?: string): string {
    const base = `/databases/${segment(database, 'database')}/tables`;
    return table === undefined ? base : `${base}/${segment(table, 'table')}`;
  }

  /** The data source's tables (and views), by the database's stored spelling. */
  list(database: string, options?: RequestOptions): Promise<Json[]> {
    const opts = this.client.withDeadline(options);
    return withStoredName(
      this.client,
      { resource: 'database' },
      database,
      async (db) => {
        try {
          const tables = await this.client.request<Json[]>('GET', this.path(db), undefined, opts);
          return Array.isArray(tables) ? tables : [];
        } catch (err) {
          throw noDatabase(err, db);
        }
      },
      { request: opts },
    );
  }

  /**
   * `CREATE [OR REPLACE] TABLE db.t (SELECT …)` through REST's POST: MindsDB checks the name and
   * parses the SELECT first. Never repeated once sent: the table could be made twice (409) or
   * filled twice. A create that fails leaves the data source as it was (./table-create.ts): a table
   * it made is dropped again, a replace keeps the old rows until the new ones are stored.
   */
  async create(
    database: string,
    table: string,
    select: string,
    replace: boolean,
    options?: RequestOptions,
  ): Promise<CreatedTable> {
    if (typeof select !== 'string' || select.trim() === '')
      throw inputError('no SELECT to create the table from: set it in the node or in msg.payload');
    const opts = this.client.withDeadline(options);
    return withStoredName(
      this.client,
      { resource: 'database' },
      database,
      async (db) => {
        try {
          return await new TableCreation(this.client, db, opts).run(table, select.trim().replace(/;\s*$/, ''), replace);
        } catch (err) {
          throw noDatabase(err, db);
        }
      },
      {
        request: opts,
        missing: (err) =>
          err instanceof MindsDBError &&
          err.kind === 'http' &&
          err.status === 404 &&
          /database/i.test(err.serverMessage ?? ''),
      },
    );
  }

  /** Drops the table (REST finds a table by its exact name, so a miss is tried with the stored spelling). */
  delete(
    database: string,
    table: string,
    options?: RequestOptions,
  ): Promise<{ deleted: true; database: string; table: string }> {
    const opts = this.client.withDeadline(options);
    return withStoredNames(
      this.client,
      { resource: 'table', database },
      table,
      async (db, t) => {
        await this.client.request('DELETE', this.path(db, t), undefined, { ...opts, gone: recordNotFound });
        return { deleted: true as const, database: db, table: t };
      },
      { request: opts },
    );
  }

  /**
   * Inserts rows with one statement, never repeated once it may have reached the server (not even
   * with the server node's *Retry POST*): an INSERT is not idempotent, and a lost answer cannot
   * tell whether its rows were stored. A statement MindsDB answers with an SQL error was not
   * stored (see docs/fault-matrix.md, "Inserts"); only then is the table's stored spelling
   * looked up and the statement sent again with it.
   */
  async insert(
    database: string,
    table: string,
    rows: readonly InsertRow[],
    options?: RequestOptions,
  ): Promise<InsertResult> {
    const opts = this.client.withDeadline(options);
    const version = await this.client.serverVersion(opts).catch(() => undefined);
    if (!bindsParameters(version)) {
      throw new MindsDBError(
        `inserting rows needs MindsDB 25.12 or later (it binds the values as parameters); this server is MindsDB ` +
          `${version}`,
        { kind: 'unsupported' },
      );
    }
    return withStoredNames(
      this.client,
      { resource: 'table', database },
      table,
      async (db, t) => {
        const { query, params, columns } = insertStatement(db, t, rows);
        let answer: SqlAnswer;
        try {
          answer = await sqlOf(this.client, { query, params }, { ...opts, repeat: 'never' });
        } catch (err) {
          if (verdictOf(err) !== 'may-have-landed' || !(err instanceof MindsDBError)) throw err;
          throw new MindsDBError(
            `the answer to the INSERT of ${rows.length} row(s) into ${db}.${t} was lost (${err.message}): they may ` +
              `or may not be stored, and were not sent again (an INSERT is not idempotent: look at the table before ` +
              `sending them again)`,
            { ...err },
          );
        }
        const affected = typeof answer.affected_rows === 'number' ? answer.affected_rows : rows.length;
        return { inserted: affected, database: db, table: t, columns };
      },
      {
        request: opts,
        missing: (err) =>
          err instanceof MindsDBError &&
          err.kind === 'sql' &&
          /does not exist|not found|unknown/i.test(err.serverMessage ?? ''),
      },
    );
  }
}

/**
 * Which of `values` are stored in `column` of the table: one `SELECT column FROM db.t WHERE column
 * IN (:p1, …)` through MindsDB, values bound (25.14.1 and 26.1.0 on PostgreSQL: the chaos test,
 * test/chaos/outbox-chaos.test.js, finds with it the rows of the requests Node-RED was killed in).
 * For an INSERT whose answer was lost: with a column that identifies a row, the rows found need not
 * be sent again. Values are compared as text.
 */
export async function storedKeys(
  client: MindsDBClient,
  database: string,
  table: string,
  column: string,
  values: ReadonlyArray<InsertValue>,
  opts?: RequestOptions,
): Promise<Set<string>> {
  const key = insertColumn(column);
  const params: Record<string, unknown> = {};
  const marks = values.map((v, i) => {
    params[`p${i + 1}`] = v;
    return `:p${i + 1}`;
  });
  // One value is `=`: MindsDB (25.14.1, 26.1.0) renders `IN (:p1)` as `IN 2`, which PostgreSQL refuses.
  const where = marks.length === 1 ? `${key} = ${marks[0]}` : `${key} IN (${marks.join(', ')})`;
  const answer = await sqlOf(
    client,
    {
      query: `SELECT ${key} FROM ${ident(database, 'the database')}.${ident(table, 'the table')} WHERE ${where}`,
      params,
    },
    opts,
  );
  const found = new Set<string>();
  for (const row of Array.isArray(answer.data) ? answer.data : [])
    found.add(keyText(Array.isArray(row) ? row[0] : row));
  return found;
}

/** A key as text, as storedKeys compares keys (a number beyond 2^53 by its exact digits). */
export function keyText(v: unknown): string {
  return isRawJson(v) ? v.rawJSON : String(v);
}

/** 25.14.1 and 26.1.0 answer a table listing of an unknown database with a 500 about get_tables. */
function noDatabase(err: unknown, database: string): unknown {
  if (
    err instanceof MindsDBError &&
    err.kind === 'http' &&
    err.status === 500 &&
    /get_tables/.test(err.serverMessage ?? '')
  ) {
    return new MindsDBError(`database "${database}" does not exist (MindsDB: ${err.serverMessage})`, {
      ...err,
      status: 404,
    });
  }
  return err;
}
