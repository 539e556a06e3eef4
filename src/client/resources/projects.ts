import { sqlOf } from './sql';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { ambiguousNameError, ident, inputError, matchName, MindsDBError, segment } from '../shared';

/** A project as the node gives it out: the name as MindsDB stored it (capitals kept). */
export interface ProjectRecord {
  name: string;
  id?: unknown;
  /** False for MindsDB's default project, which it does not let be dropped. */
  deletable?: unknown;
}

export interface ProjectChange {
  created?: true;
  deleted?: true;
  resource: 'project';
  name: string;
}

type Json = Record<string, unknown>;

/**
 * Projects. MindsDB has REST routes only to list and read them (GET /projects/, /projects/{p});
 * POST and DELETE answer 405 on 25.14.1 and 26.1.0, so create and delete are the SQL statements
 * CREATE PROJECT and DROP PROJECT. Names come from /databases/, which lists projects as stored;
 * /projects/ lists every name lower-cased.
 *
 * DROP PROJECT is DROP DATABASE to MindsDB's parser: given a data source's name it drops the data
 * source. Delete therefore looks the name up first and refuses one that is not a project.
 */
export class ProjectsApi {
  constructor(private readonly client: MindsDBClient) {}

  /** Every project, as /databases/ lists them (system databases and data sources left out). */
  async list(options?: RequestOptions): Promise<ProjectRecord[]> {
    return (await this.entries(options)).filter((d) => d.type === 'project').map(record);
  }

  /** One project; a data source of that name is refused, a missing name is the server's 404. */
  async get(name: string, options?: RequestOptions): Promise<ProjectRecord> {
    const opts = this.client.withDeadline(options);
    const entry = await this.find(name, opts);
    // The route lower-cases the name it answers with; the listing has it as stored.
    await this.client.request<Json>(
      'GET',
      `/projects/${segment(entry ? String(entry.name) : name, 'project')}`,
      undefined,
      opts,
    );
    return entry ? record(entry) : { name };
  }

  /**
   * CREATE PROJECT `name`: the name is kept as written (quoted, so capitals stay). MindsDB (25.14.1
   * and 26.1.0) answers OK to the name of one of its system databases (`information_schema`, `log`)
   * and makes a second database of that name, a project listed beside the system one; so such a
   * name is refused before anything is sent.
   */
  async create(name: string, options?: RequestOptions): Promise<ProjectChange> {
    const opts = this.client.withDeadline(options);
    const statement = `CREATE PROJECT ${ident(name, 'the project name')}`;
    const system = (await this.entries(opts, true)).find(
      (d) => d.type === 'system' && String(d.name).toLowerCase() === name.toLowerCase(),
    );
    if (system) {
      throw inputError(
        `"${name}" is the name of MindsDB's system database ${String(system.name)}: MindsDB would make a project ` +
          `beside it under the same name; use another name`,
      );
    }
    try {
      await sqlOf(this.client, { query: statement }, opts);
    } catch (err) {
      if (err instanceof MindsDBError && err.kind === 'sql' && /already exists/i.test(err.serverMessage ?? '')) {
        throw new MindsDBError(
          `a project or data source named "${name}" already exists (MindsDB answered: ${err.serverMessage})`,
          { ...err },
        );
      }
      throw err;
    }
    return { created: true, resource: 'project', name };
  }

  /**
   * DROP PROJECT `stored name`, after checking that the name is a project: MindsDB would drop a
   * data source of that name just the same. A project that still holds models, views, agents or
   * other tables is refused by MindsDB; its reason is given with what to do.
   */
  async delete(name: string, options?: RequestOptions): Promise<ProjectChange> {
    const opts = this.client.withDeadline(options);
    const entry = await this.find(name, opts);
    const stored = entry ? String(entry.name) : name;
    try {
      await sqlOf(this.client, { query: `DROP PROJECT ${ident(stored, 'the project name')}` }, opts);
    } catch (err) {
      throw explainDrop(err, stored);
    }
    return { deleted: true, resource: 'project', name: stored };
  }

  /** What /databases/ lists (the system databases only with `withSystem`). */
  private async entries(options?: RequestOptions, withSystem = false): Promise<Json[]> {
    const all = await this.client.request<Json[]>('GET', '/databases/', undefined, options);
    return (Array.isArray(all) ? all : []).filter(
      (d): d is Json =>
        !!d && typeof d === 'object' && (withSystem || d.type !== 'system') && typeof d.name === 'string',
    );
  }

  /**
   * The listed project of that name (exactly, else the one spelling that differs only in case); refuses a data source's
   * name.
   */
  private async find(name: string, options?: RequestOptions): Promise<Json | undefined> {
    if (typeof name !== 'string' || name.trim() === '')
      throw inputError('no project name: set it in the node or in msg.name');
    const entries = await this.entries(options);
    const match = matchName(
      name,
      entries.map((d) => String(d.name)),
    );
    if (match.found === 'none') return undefined;
    if (match.found === 'ambiguous') throw ambiguousNameError('project', name, undefined, match.names);
    const entry = entries.find((d) => d.name === match.name);
    if (entry && entry.type !== 'project') {
      throw inputError(
        `"${String(entry.name)}" is a data source (engine ${String(entry.engine ?? 'unknown')}), not a project: the ` +
          `project node leaves it alone (MindsDB's DROP PROJECT would drop the data source); use the database node`,
      );
    }
    return entry;
  }
}

const record = (d: Json): ProjectRecord => ({ name: String(d.name), id: d.id, deletable: d.deletable });

/** MindsDB's answers to DROP PROJECT, said with what they mean. */
function explainDrop(err: unknown, name: string): unknown {
  if (!(err instanceof MindsDBError) || err.kind !== 'sql') return err;
  const said = err.serverMessage ?? '';
  if (/can ?not be deleted/i.test(said) && /contains/i.test(said)) {
    return new MindsDBError(
      `project "${name}" still holds models, views, agents or other tables, and MindsDB deletes only an empty ` +
        `project: delete them first (MindsDB answered: ${said})`,
      { ...err },
    );
  }
  if (/does not exist/i.test(said)) {
    return new MindsDBError(`project "${name}" does not exist (MindsDB answered: ${said})`, { ...err });
  }
  return err;
}
