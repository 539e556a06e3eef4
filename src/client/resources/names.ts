import { sqlOf } from './sql';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { ambiguousNameError, foldCase, matchName, MindsDBError, segment, storedNameText } from '../shared';

/**
 * Names as MindsDB stored them (the rule is `matchName` in ../shared/names.ts; what each resource
 * and version does with capitals is measured in docs/real-mindsdb.md, "Names and capitals").
 * Every resource module calls its server through one of these, at one place per operation:
 * - `withStoredName`: call with the name as typed; only when the server answers that it has no
 *   such name, list what it has and, if it lists one spelling that differs only in case, call
 *   again with that one. Nothing changes (not even the number of requests) for a name given
 *   exactly as stored.
 * - `storedName`: list first, then call with the stored spelling: for an operation whose miss
 *   would not come back as an error (a PUT that creates what it does not find).
 */

/** Every resource whose names the package takes from the user. */
export type NamedResource =
  | 'file'
  | 'database'
  | 'project'
  | 'model'
  | 'knowledge_base'
  | 'job'
  | 'view'
  | 'agent'
  | 'chatbot'
  | 'skill'
  | 'ml_engine'
  | 'table';

/** Where a name lives: the project for project resources, the data source for tables. */
export interface NameScope {
  resource: NamedResource;
  project?: string;
  database?: string;
}

type Json = Record<string, unknown>;

/** Words for error texts. */
const WHAT: Readonly<Record<NamedResource, string>> = {
  file: 'file',
  database: 'database',
  project: 'project',
  model: 'model',
  knowledge_base: 'knowledge base',
  job: 'job',
  view: 'view',
  agent: 'agent',
  chatbot: 'chatbot',
  skill: 'skill',
  ml_engine: 'ML engine',
  table: 'table',
};

/** The collection under /projects/{p}/ that lists a project resource. */
const PROJECT_COLLECTIONS: Partial<Record<NamedResource, string>> = {
  model: 'models',
  knowledge_base: 'knowledge_bases',
  job: 'jobs',
  view: 'views',
  agent: 'agents',
  chatbot: 'chatbots',
  skill: 'skills',
};

const namesOf = (records: unknown): string[] =>
  Array.isArray(records)
    ? [
        ...new Set(
          records
            .map((r) => (r && typeof r === 'object' ? (r as Json).name : undefined))
            .filter((n): n is string => typeof n === 'string'),
        ),
      ]
    : [];

/**
 * The names the server lists for a scope, spelled as stored. Projects come from /databases/:
 * /projects/ lists every project name lower-cased (25.14.1 and 26.1.0), even one stored with
 * capitals. ML engines are listed only by SQL (SHOW ML_ENGINES).
 */
export async function storedNames(client: MindsDBClient, scope: NameScope, opts?: RequestOptions): Promise<string[]> {
  const collection = PROJECT_COLLECTIONS[scope.resource];
  if (collection) {
    return namesOf(
      await client.request(
        'GET',
        `/projects/${segment(scope.project ?? 'mindsdb', 'project')}/${collection}`,
        undefined,
        opts,
      ),
    );
  }
  switch (scope.resource) {
    case 'file':
      return namesOf(await client.request('GET', '/files/', undefined, opts));
    case 'project':
    case 'database': {
      const all = await client.request<Json[]>('GET', '/databases/', undefined, opts);
      const isProject = (d: Json) => d.type === 'project';
      return namesOf(
        (Array.isArray(all) ? all : []).filter(
          (d) => d && d.type !== 'system' && (scope.resource === 'project') === isProject(d),
        ),
      );
    }
    case 'table':
      return namesOf(
        await client.request('GET', `/databases/${segment(scope.database, 'database')}/tables`, undefined, opts),
      );
    case 'ml_engine': {
      const answer = await sqlOf(client, { query: 'SHOW ML_ENGINES' }, opts);
      if (answer.type !== 'table') return [];
      const column = answer.column_names.findIndex((c) => c.toLowerCase() === 'name');
      return [
        ...new Set(
          answer.data.map((row) => row[Math.max(column, 0)]).filter((n): n is string => typeof n === 'string'),
        ),
      ];
    }
    default:
      return [];
  }
}

/**
 * Whether an error is MindsDB saying it has no thing of that name. The server says so in several
 * ways (docs/real-mindsdb.md): a JSON 404; a SQL error (an unknown project or model in
 * RETRAIN can come back as "'NoneType' object is not subscriptable", so any SQL error counts,
 * and the listing decides); 400 "Error deleting file"; 400 "Creation is not allowed" (agent PUT);
 * 400 "… Database does not exists" (a database's DELETE, which, unlike its GET, compares the
 * name exactly); 500 "… does not exist" (job DELETE).
 */
export function isNoSuchName(err: unknown): boolean {
  if (!(err instanceof MindsDBError)) return false;
  if (err.kind === 'sql') return true;
  if (err.kind !== 'http') return false;
  const text = err.serverMessage ?? '';
  if (err.status === 404) return true;
  if (err.status === 400) return /error deleting file|creation is not allowed|does not exist|not found/i.test(text);
  if (err.status === 500) return /does not exist|not found/i.test(text);
  return false;
}

export interface StoredNameOptions {
  /** What counts as "no such name" for this call (default: isNoSuchName). */
  missing?: (err: unknown) => boolean;
  /** Options for the listing request. */
  request?: RequestOptions;
}

const within = (scope: NameScope): string | undefined =>
  scope.resource === 'table'
    ? `database \`${scope.database}\``
    : PROJECT_COLLECTIONS[scope.resource]
      ? `project \`${scope.project ?? 'mindsdb'}\``
      : undefined;

/**
 * Calls `call` with the name as typed; when the server answers that it has no such name, calls it
 * once more with the one stored spelling that differs only in case. Two such spellings are an
 * error naming both; none (or the exact name listed) gives back the server's own error.
 */
export async function withStoredName<T>(
  client: MindsDBClient,
  scope: NameScope,
  typed: string,
  call: (name: string) => Promise<T>,
  options: StoredNameOptions = {},
): Promise<T> {
  const missing = options.missing ?? isNoSuchName;
  try {
    return await call(typed);
  } catch (err) {
    if (!missing(err)) throw err;
    let listed: string[];
    try {
      listed = await storedNames(client, scope, options.request);
    } catch {
      throw err; // the listing failing tells nothing new: the first answer stands
    }
    const match = matchName(typed, listed);
    if (match.found === 'ambiguous') throw ambiguousNameError(WHAT[scope.resource], typed, within(scope), match.names);
    if (match.found !== 'case') throw err;
    try {
      return await call(match.name);
    } catch (again) {
      if (!missing(again) || !(again instanceof MindsDBError)) throw again;
      // Listed, yet not found by its own spelling: say what MindsDB has, with its answer.
      throw new MindsDBError(
        storedNameText(
          WHAT[scope.resource],
          typed,
          within(scope),
          [match.name],
          `but does not find it by that name either: ${again.message}`,
        ),
        { ...again },
      );
    }
  }
}

/**
 * The stored spelling of `typed`: itself when listed exactly, the one case variant the server
 * lists, or `typed` unchanged when there is none or the listing fails (the call then reports
 * the miss, or creates).
 */
export async function storedName(
  client: MindsDBClient,
  scope: NameScope,
  typed: string,
  opts?: RequestOptions,
): Promise<string> {
  let listed: string[];
  try {
    listed = await storedNames(client, scope, opts);
  } catch {
    return typed; // no listing (a missing project, no such route): the call itself says what is wrong
  }
  const match = matchName(typed, listed);
  if (match.found === 'ambiguous') throw ambiguousNameError(WHAT[scope.resource], typed, within(scope), match.names);
  return match.found === 'none' ? typed : match.name;
}

/**
 * `withStoredName` for a name inside a project (or, for a table, a data source), when the call
 * also puts that parent into SQL, where MindsDB compares its name exactly: the parent is found
 * the same way, and the call gets both stored spellings.
 */
export function withStoredNames<T>(
  client: MindsDBClient,
  scope: NameScope & ({ project: string } | { database: string }),
  typed: string,
  call: (parent: string, name: string) => Promise<T>,
  options: StoredNameOptions = {},
): Promise<T> {
  const inDatabase = scope.resource === 'table';
  const parent = (inDatabase ? scope.database : scope.project) as string;
  return withStoredName(
    client,
    { resource: inDatabase ? 'database' : 'project' },
    parent,
    (stored) =>
      withStoredName(
        client,
        inDatabase ? { ...scope, database: stored } : { ...scope, project: stored },
        typed,
        (name) => call(stored, name),
        options,
      ),
    options,
  );
}

/** Whether a name has capitals, so that a server that lower-cases it would store another spelling. */
export function hasCapitals(name: string): boolean {
  return foldCase(name) !== name;
}

/**
 * MindsDB (25.14.1 and 26.1.0) keeps a project whose name has capitals, but its REST routes and
 * stores look a project up lower-cased: views, knowledge bases and chatbots cannot be made there
 * (500 `Can not find project`, `'list' object has no attribute 'data'` on 25.x, `'NoneType' …` on
 * 26.x; nothing is made), and a model made there by SQL trains but cannot be read or asked through
 * REST (the same 500). Measured in docs/real-mindsdb.md ("Names and capitals").
 */
export function capitalsProjectText(what: string, project: string): string {
  return (
    `MindsDB cannot keep ${what} in project "${project}": it looks a project up lower-cased there, so a project ` +
    `whose name has capitals can hold no ${what} that its REST interface can use; use a project with a lower-case name`
  );
}

/** Whether an error is MindsDB failing to find a project stored with capitals (see capitalsProjectText). */
export function isCapitalsProjectError(err: unknown, project: string): boolean {
  return (
    err instanceof MindsDBError &&
    err.status === 500 &&
    hasCapitals(project) &&
    /can ?not find project|object has no attribute 'data'/i.test(err.serverMessage ?? '')
  );
}
