import { randomBytes } from 'node:crypto';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { ambiguousNameError, foldCase, ident, isPlainObject, matchName, MindsDBError, segment } from '../shared';
import { recordNotFound } from './gone';

/**
 * `CREATE [OR REPLACE] TABLE db.t (SELECT …)` in a data source (REST's POST /databases/{db}/tables),
 * leaving the data source as it was when it fails. What MindsDB 25.14.1 and 26.1.0 do there
 * (docs/real-mindsdb.md, "What a failed operation leaves"):
 * - the table is made first, then filled: rows the data source refuses leave an **empty table**
 *   (400 "invalid byte sequence …"), and a create of the same name is then refused;
 * - a name with capitals: PostgreSQL makes the table lower-case, MindsDB fills it under the name as
 *   given and fails (400 `relation "T" does not exist`), leaving the empty lower-case table;
 * - with replace, MindsDB drops the old table before it makes and fills the new one, so a replace
 *   whose rows are refused leaves an empty table where the old one was: its rows are lost.
 * So the node lists the tables first. After a failure, a table that was not there before and has
 * the name asked for (in any case) is what the failed create made, and it is dropped again. A table
 * that PostgreSQL (or any data source that folds names) made under the lower-cased name is made again
 * under that name, the name the data source keeps. A replace of an existing table fills a new table
 * first and replaces the old one from it only once the data source took the rows.
 */

type Json = Record<string, unknown>;

export interface CreatedTable extends Json {
  database: string;
  /** The table as the data source stored it. */
  name: string;
  /** A temporary table a replace could not drop at its end (the replace itself succeeded). */
  leftover?: string;
}

const path = (db: string, table?: string): string =>
  `/databases/${segment(db, 'database')}/tables${table === undefined ? '' : `/${segment(table, 'table')}`}`;

/** The data source's table names as listed (the stored spellings). */
async function tableNames(client: MindsDBClient, db: string, opts: RequestOptions): Promise<string[]> {
  const listed = await client.request<unknown>('GET', path(db), undefined, opts);
  return Array.isArray(listed)
    ? listed.flatMap((t) => (isPlainObject(t) && typeof t.name === 'string' ? [t.name] : []))
    : [];
}

export class TableCreation {
  constructor(
    private readonly client: MindsDBClient,
    private readonly db: string,
    private readonly opts: RequestOptions,
  ) {}

  /**
   * Creates `table` from `select` (a replace when asked and the table exists), or fails leaving the data source as it
   * was.
   */
  async run(table: string, select: string, replace: boolean): Promise<CreatedTable> {
    const before = await tableNames(this.client, this.db, this.opts);
    const existing = matchName(table, before);
    if (existing.found === 'ambiguous')
      throw ambiguousNameError('table', table, `database \`${this.db}\``, existing.names);
    if (replace && existing.found !== 'none') return this.replace(existing.name, select, before);
    return this.fresh(table, select, replace, before);
  }

  /**
   * A create of a table that is not there: a failure drops what it made; a name the data source folded is used as
   * folded.
   */
  private async fresh(
    table: string,
    select: string,
    replace: boolean,
    before: readonly string[],
  ): Promise<CreatedTable> {
    try {
      return await this.post(table, select, replace);
    } catch (err) {
      const made = await this.madeSince(table, before);
      if (made === undefined) throw err;
      const dropped = await this.drop(made);
      if (!dropped.ok)
        throw withLeftover(
          err,
          `MindsDB made the table ${this.db}.${made} before it failed, and dropping it failed too (${dropped.why})`,
          `table ${this.db}.${made}: delete it with the table node, or DROP TABLE \`${this.db}\`.\`${made}\``,
        );
      // The data source keeps the name another way (PostgreSQL folds it to lower case): made under its spelling.
      if (made !== table && foldCase(made) === foldCase(table) && foldsTheName(err, table)) {
        return this.fresh(made, select, replace, before);
      }
      throw said(
        err,
        `the node dropped the empty table ${this.db}.${made} that MindsDB made before it failed, so the data source ` +
          `is as it was`,
      );
    }
  }

  /**
   * Replaces `table` (stored so) with what `select` answers, without losing its rows when the new
   * ones are refused: they go into a new table first, the old table is replaced from it, then the
   * new table is dropped.
   */
  private async replace(table: string, select: string, before: readonly string[]): Promise<CreatedTable> {
    const temporary = `${foldCase(table).slice(0, 45)}__replacing_${randomBytes(3).toString('hex')}`;
    // Written before anything is made: a name MindsDB's SQL cannot take is refused with the data source untouched.
    const from = `SELECT * FROM ${ident(this.db, 'the database')}.${ident(temporary, 'the table')}`;
    try {
      await this.fresh(temporary, select, false, before);
    } catch (err) {
      throw said(err, `${this.db}.${table} is as it was`);
    }
    let result: CreatedTable;
    try {
      result = await this.post(table, from, true);
    } catch (err) {
      throw withLeftover(
        err,
        `replacing ${this.db}.${table} from the new rows failed after they were stored in ${this.db}.${temporary}: ` +
          `MindsDB drops the old table before it fills the new one, so ${this.db}.${table} may be empty or gone; the ` +
          `new rows are in ${this.db}.${temporary}`,
        `table ${this.db}.${temporary} (the new rows): delete it with the table node once they are safe`,
      );
    }
    const dropped = await this.drop(temporary);
    return dropped.ok ? result : { ...result, leftover: `${this.db}.${temporary}` };
  }

  /** One POST; never repeated once sent (the table could be made or filled twice). */
  private async post(table: string, select: string, replace: boolean): Promise<CreatedTable> {
    const body = { table: { name: table, select, ...(replace ? { replace: true } : {}) } };
    const made = await this.client.request<Json>('POST', path(this.db), body, { ...this.opts, repeat: 'never' });
    return {
      ...(isPlainObject(made) ? made : {}),
      name: isPlainObject(made) && typeof made.name === 'string' ? made.name : table,
      database: this.db,
    };
  }

  /** The table a failed create of `table` made: listed now, not before, named `table` in any case. */
  private async madeSince(table: string, before: readonly string[]): Promise<string | undefined> {
    let now: string[];
    try {
      now = await tableNames(this.client, this.db, this.opts);
    } catch {
      return undefined;
    }
    const had = new Set(before);
    const made = now.filter((n) => !had.has(n) && foldCase(n) === foldCase(table));
    return made.length === 1 ? made[0] : undefined;
  }

  private async drop(table: string): Promise<{ ok: true } | { ok: false; why: string }> {
    try {
      await this.client.request('DELETE', path(this.db, table), undefined, { ...this.opts, gone: recordNotFound });
      return { ok: true };
    } catch (err) {
      return { ok: false, why: err instanceof Error ? err.message : String(err) };
    }
  }
}

/**
 * MindsDB filled the table under the name as given and the data source, which folded it, had none: `relation "T" does
 * not exist`.
 */
function foldsTheName(err: unknown, table: string): boolean {
  return err instanceof MindsDBError && (err.serverMessage ?? '').includes(`"${table}" does not exist`);
}

function said(err: unknown, what: string): unknown {
  return err instanceof MindsDBError ? new MindsDBError(`${err.message} (${what})`, err) : err;
}

function withLeftover(err: unknown, what: string, leftover: string): unknown {
  if (!(err instanceof MindsDBError)) return err;
  return new MindsDBError(`${err.message} (${what})`, { ...err, leftover: [...(err.leftover ?? []), leftover] });
}
