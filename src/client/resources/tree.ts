import type { MindsDBClient, RequestOptions } from '../connection';
import { ident, isPlainObject, segment, sqlLiteral, type TreeItem, type TreeKind } from '../shared';
import { rowsToObjects } from '../answers';
import { ModelsApi } from './models';
import { sqlOf } from './sql';

/**
 * What the server holds, as a tree (the editor's MindsDB sidebar), from MindsDB's own tree routes
 * and what both lines answer (measured on 25.14.1 and 26.1.0, docs/real-mindsdb.md):
 * - GET /tree/ → [{name, class: "db", type: "system"|"project"|"data", engine, deletable, visible}];
 *   information_schema and log come twice, as "system" and as "project": both are left out;
 * - GET /tree/{db}?all_schemas=true → a data source's tables, either flat [{name, class: "table",
 *   type: "table"|"view"}] or by schema [{name, class: "schema", children: [tables]}] (25.14.1 lists
 *   only the default schema unless all_schemas is asked for; 26.1.0 lists all by default); a
 *   project's [{name, class: "table", type: "model"|"view"|"agent"|"knowledge_base"|"table"}] and
 *   its jobs [{name, class: "job"}] (the "models" table is left out);
 * - a model's status, version and error come from its active version (ModelsApi.list);
 * - a job's last run and its error from log.jobs_history (no REST route lists them per project);
 * - columns: neither tree route has them; information_schema.columns answers on both lines for
 *   a data source's tables (in its default schema), a project's views and models.
 * One request per level: a data source with thousands of tables is fetched only when it is opened.
 */

export type { TreeItem, TreeKind };

type Json = Record<string, unknown>;
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const records = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter(isPlainObject) as Json[]) : []);

const PROJECT_KINDS: Readonly<Record<string, TreeKind>> = {
  model: 'model',
  view: 'view',
  agent: 'agent',
  knowledge_base: 'knowledge_base',
};

export class TreeApi {
  constructor(private readonly client: MindsDBClient) {}

  /** The projects and data sources (system databases left out), projects first, each by name. */
  async roots(opts?: RequestOptions): Promise<TreeItem[]> {
    const all = records(await this.client.request('GET', '/tree/', undefined, opts));
    const system = new Set(all.filter((d) => d.type === 'system').map((d) => String(d.name)));
    const items: TreeItem[] = [];
    for (const d of all) {
      const name = text(d.name);
      if (!name || d.type === 'system' || system.has(name)) continue;
      if (d.type === 'project') items.push({ name, kind: 'project' });
      else if (d.type === 'data')
        items.push({ name, kind: 'datasource', ...(text(d.engine) ? { engine: String(d.engine) } : {}) });
    }
    const order = (i: TreeItem): number => (i.kind === 'project' ? 0 : 1);
    return items.sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name));
  }

  /** A data source's schemas and tables. */
  async dataSource(database: string, opts?: RequestOptions): Promise<TreeItem[]> {
    const opt = this.client.withDeadline(opts);
    const entries = records(
      await this.client.request('GET', `/tree/${segment(database, 'database')}?all_schemas=true`, undefined, opt),
    );
    const table = (t: Json, schema?: string): TreeItem | undefined => {
      const name = text(t.name);
      if (!name) return undefined;
      const item: TreeItem = {
        name,
        kind: t.type === 'view' ? 'view' : 'table',
        select: selectOf([database, ...(schema ? [schema] : []), name]),
      };
      if (schema) item.schema = schema;
      return item;
    };
    const out: TreeItem[] = [];
    for (const e of entries) {
      if (e.class === 'schema') {
        const schema = text(e.name);
        if (!schema) continue;
        out.push({
          name: schema,
          kind: 'schema',
          children: records(e.children)
            .map((t) => table(t, schema))
            .filter((t): t is TreeItem => t !== undefined),
        });
      } else {
        const t = table(e);
        if (t) out.push(t);
      }
    }
    return out;
  }

  /**
   * A project's models (with status, version, engine, error), views, knowledge bases, jobs (with
   * their last run) and agents. The details are asked beside the tree; one that fails leaves its
   * items without them rather than failing the project.
   */
  async project(project: string, opts?: RequestOptions): Promise<TreeItem[]> {
    const opt = this.client.withDeadline(opts);
    const [entries, models, runs] = await Promise.all([
      this.client.request('GET', `/tree/${segment(project, 'project')}`, undefined, opt).then(records),
      new ModelsApi(this.client).list(project, opt).catch((): Json[] => []),
      this.lastRuns(project, opt).catch(() => new Map<string, Json>()),
    ]);
    const modelInfo = new Map(models.map((m) => [String(m.name), m]));
    const out: TreeItem[] = [];
    for (const e of entries) {
      const name = text(e.name);
      if (!name) continue;
      if (e.class === 'job') {
        const run = runs.get(name);
        out.push({
          name,
          kind: 'job',
          ...(run && text(run.run_start) ? { lastRun: String(run.run_start) } : {}),
          ...(run && text(run.error) ? { error: String(run.error) } : {}),
        });
        continue;
      }
      const kind = PROJECT_KINDS[String(e.type)];
      if (!kind) continue; // the "models" table
      const item: TreeItem = { name, kind };
      if (kind === 'model') {
        if (text(e.engine)) item.engine = String(e.engine);
        const m = modelInfo.get(name);
        if (m && text(m.status)) item.status = String(m.status);
        if (m && typeof m.version === 'number') item.version = m.version;
        if (m && text(m.error)) item.error = String(m.error);
      }
      if (kind === 'view') item.select = selectOf([project, name]);
      out.push(item);
    }
    return out;
  }

  /** A table's (or view's, or model's) columns and their types, in their order. */
  async columns(database: string, table: string, opts?: RequestOptions): Promise<TreeItem[]> {
    const query =
      `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.columns WHERE TABLE_SCHEMA = ` +
      `${sqlLiteral(database)} AND TABLE_NAME = ${sqlLiteral(table)}`;
    const answer = await sqlOf(this.client, { query }, opts);
    return rowsToObjects(answer.column_names, answer.data)
      .map((r) => ({
        name: String(r.COLUMN_NAME ?? ''),
        kind: 'column' as const,
        ...(text(r.DATA_TYPE) ? { type: String(r.DATA_TYPE) } : {}),
      }))
      .filter((c) => c.name !== '');
  }

  /** Each job's latest run in a project (log.jobs_history), by job name. */
  private async lastRuns(project: string, opts?: RequestOptions): Promise<Map<string, Json>> {
    const answer = await sqlOf(
      this.client,
      { query: `SELECT name, run_start, error FROM log.jobs_history WHERE project = ${sqlLiteral(project)}` },
      opts,
    );
    const latest = new Map<string, Json>();
    for (const run of rowsToObjects(answer.column_names, answer.data)) {
      const name = String(run.name);
      const known = latest.get(name);
      if (!known || String(run.run_start ?? '') > String(known.run_start ?? '')) latest.set(name, run);
    }
    return latest;
  }
}

/** `SELECT * FROM a.b.c LIMIT 100`, each part quoted for MindsDB's lexer. */
function selectOf(parts: string[]): string {
  return `SELECT * FROM ${parts.map((p) => ident(p, 'the name')).join('.')} LIMIT 100`;
}
