import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { ident, inputError, isPlainObject, MindsDBError } from '../shared';
import { ResourcesApi } from './records';
import { sqlOf } from './sql';
import { capitalsProjectText, isCapitalsProjectError, withStoredName } from './names';

/** A view as MindsDB answers it (25.14.1 and 26.1.0). */
export interface ViewRecord {
  id?: unknown;
  name: string;
  query: string;
}

/**
 * Views of a project: GET|POST /projects/{p}/views, GET|PUT|DELETE …/views/{v}, through the
 * RESOURCES table (./records.ts). MindsDB's GET of a view finds it in any case; its DELETE only by
 * the exact spelling (the table's name rule finds the stored one). Its PUT creates a view that is
 * missing, so update reads the view first: an update of a missing view is the server's 404, and
 * the PUT goes to the name as stored.
 */
export class ViewsApi {
  private readonly resources: ResourcesApi;

  constructor(private readonly client: MindsDBClient) {
    this.resources = new ResourcesApi(client);
  }

  list(project: string, opts?: RequestOptions): Promise<unknown> {
    return this.explained(this.resources.run('view', 'list', { project }, opts), opts);
  }

  get(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.explained(this.resources.run('view', 'get', { project, name }, opts), opts);
  }

  create(project: string, name: string, query: string, opts?: RequestOptions): Promise<unknown> {
    const q = checkQuery(query);
    return this.explained(
      this.resources.run('view', 'create', { project, name, payload: { query: q } }, opts),
      opts,
      (err) =>
        err.status === 409
          ? `view "${name}" already exists in project "${project}": update it, or delete it first`
          : capitalsInProject(err, project),
    );
  }

  /**
   * Sets the view's query, and reads the view once (`SELECT * … LIMIT 1`): MindsDB (25.14.1 and
   * 26.1.0) runs a view's query when it is created and refuses one that fails, but takes any query
   * on update, even one that does not parse, leaving a view that fails whenever it is read. A query
   * that fails there is replaced by the old one again, so a failed update leaves the view as it was.
   */
  async update(project: string, name: string, query: string, options?: RequestOptions): Promise<unknown> {
    const q = checkQuery(query);
    const opts = this.client.withDeadline(options);
    const found = await this.explained(this.resources.run('view', 'get', { project, name }, opts), opts);
    const stored = isPlainObject(found) && typeof found.name === 'string' ? found.name : name;
    const old = isPlainObject(found) && typeof found.query === 'string' ? found.query : undefined;
    const put = (text: string) =>
      this.explained(
        this.resources.run('view', 'update', { project, name: stored, payload: { query: text } }, opts),
        opts,
        (err) => capitalsInProject(err, project),
      );
    const result = await put(q);
    const failure = await this.select(
      project,
      stored,
      (sql) => sqlOf(this.client, { query: `${sql} LIMIT 1` }, opts),
      opts,
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    // Only MindsDB's own answer that the view fails counts; an answer lost on the way says nothing about the query.
    if (!(failure instanceof MindsDBError) || failure.kind !== 'sql') return result;
    const why =
      `the new query of view ${project}.${stored} fails when the view is read (MindsDB: ` +
      `${failure.serverMessage ?? failure.message}); MindsDB takes any query on update (it checks one only on create)`;
    if (old === undefined)
      throw new MindsDBError(`${why}, and the old query is not known: fix the query`, {
        ...failure,
        leftover: [`view ${project}.${stored} with the failing query: update it with a working one`],
      });
    try {
      await put(old);
    } catch (err) {
      throw new MindsDBError(
        `${why}, and putting the old query back failed too (${err instanceof Error ? err.message : String(err)}): ` +
          `update the view with its old query, ${JSON.stringify(old)}`,
        {
          ...failure,
          leftover: [`view ${project}.${stored} with the failing query: its old query was ${JSON.stringify(old)}`],
        },
      );
    }
    throw new MindsDBError(`${why}, so the node put the old query back: the view is as it was`, { ...failure });
  }

  delete(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.explained(this.resources.run('view', 'delete', { project, name }, opts), opts);
  }

  /**
   * Runs `call` with the SELECT that reads the whole view, the project's and the view's names as
   * MindsDB stored them (SQL compares them exactly: a miss lists and tries the one case variant).
   */
  select<T>(project: string, name: string, call: (query: string) => Promise<T>, options?: RequestOptions): Promise<T> {
    const opts = this.client.withDeadline(options);
    return withStoredName(
      this.client,
      { resource: 'project' },
      project,
      (p) =>
        withStoredName(this.client, { resource: 'view', project: p }, name, (v) => call(viewSelect(p, v)), {
          request: opts,
        }),
      { request: opts },
    );
  }

  /**
   * A route this server lacks gets an error naming its version; the server's own answer for a
   * known case (`say`) is said with what it means.
   */
  private async explained<T>(
    task: Promise<T>,
    opts: RequestOptions | undefined,
    say?: (err: MindsDBError) => string | undefined,
  ): Promise<T> {
    try {
      return await task;
    } catch (err) {
      if (!(err instanceof MindsDBError)) throw err;
      if (err.kind === 'unsupported') {
        const version = await this.client.serverVersion(opts).catch(() => 'of unknown version');
        throw new MindsDBError(
          `MindsDB ${version} has no REST route for this view operation (${err.method ?? '?'} ${err.path ?? '?'}); ` +
            `the view node needs a server with /api/projects/{project}/views (25.14.1 and 26.1.0 have it)`,
          { ...err },
        );
      }
      const text = say?.(err);
      if (text) throw new MindsDBError(`${text} (MindsDB answered: ${err.serverMessage ?? err.message})`, { ...err });
      throw err;
    }
  }
}

/**
 * MindsDB (25.14.1 and 26.1.0) cannot store a view in a project whose name has capitals: its view
 * store looks the project up lower-cased and answers 500 "Can not find project: X" (REST and SQL
 * alike), although the project exists and lists its (no) views.
 */
function capitalsInProject(err: MindsDBError, project: string): string | undefined {
  return isCapitalsProjectError(err, project) ? capitalsProjectText('views', project) : undefined;
}

/** SELECT * FROM `project`.`view`, both quoted for MindsDB's lexer. */
export function viewSelect(project: string, view: string): string {
  return `SELECT * FROM ${ident(project, 'the project name')}.${ident(view, 'the view name')}`;
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || query.trim() === '')
    throw inputError('no view query: set the SELECT in the node, in msg.query, or as a string msg.payload');
  return query;
}
