import type { MindsDBClient, RequestOptions } from '../connection';
import { inputError, MindsDBError, isPlainObject, segment } from '../shared';
import { ResourcesApi } from './records';
import { searchKnowledgeBase, type SearchAnswer, type SearchRequest } from './kb-search';

/**
 * Knowledge bases: list, get, create, delete and insert through the RESOURCES table (insert is the
 * PUT of {knowledge_base: {rows | urls | query}}); search through SQL (./kb-search.ts), because
 * MindsDB 26 has no REST search route.
 */

/** What is inserted: rows of {content, id?, metadata…}, web pages to crawl, or a SELECT's result. */
export type KnowledgeInsert = { rows: Array<Record<string, unknown>> } | { urls: string[] } | { query: string };

/** Turns msg.payload into an insert: rows (objects), URLs (http(s) strings) or a SELECT statement. */
export function knowledgeInsert(payload: unknown): KnowledgeInsert {
  if (typeof payload === 'string') {
    const s = payload.trim();
    if (/^https?:\/\//i.test(s)) return { urls: [s] };
    if (/^(select|with)\b/i.test(s)) return { query: s.replace(/;\s*$/, '') };
    if (s !== '') return { rows: [{ content: payload }] };
  }
  if (Array.isArray(payload) && payload.length > 0) {
    if (payload.every((x) => typeof x === 'string' && /^https?:\/\//i.test(x.trim())))
      return { urls: payload.map((x: string) => x.trim()) };
    if (payload.every((x) => typeof x === 'string')) return { rows: payload.map((content: string) => ({ content })) };
    payload.forEach((row, i) => {
      if (!isPlainObject(row)) {
        throw inputError(`msg.payload[${i}] must be a row object ({content, …}), a text or a URL`);
      }
    });
    return { rows: payload as Array<Record<string, unknown>> };
  }
  if (isPlainObject(payload)) {
    return { rows: [payload] };
  }
  throw inputError(
    'msg.payload must be what to insert: rows ({content, …} objects or texts), URLs, or a SELECT statement',
  );
}

/** Rows MindsDB embeds and stores at a time (KB_MAX_INSERT_BATCH_SIZE, 50,000 on 25.14.1 and 26.1.0). */
const INSERT_CHUNK = 50_000;

export class KnowledgeBasesApi {
  private readonly resources: ResourcesApi;

  constructor(private readonly client: MindsDBClient) {
    this.resources = new ResourcesApi(client);
  }

  list(project: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('knowledge_base', 'list', { project }, opts);
  }

  get(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('knowledge_base', 'get', { project, name }, opts);
  }

  /**
   * Creates the knowledge base. Without `storage`, MindsDB first makes a data source for its default
   * vector store (`<name>_chromadb` on 25.x, `store_<name>` on 26.x) and then fails when that store
   * cannot be used (25.14.1 without the chromadb package: 500), leaving the data source behind for
   * ever (docs/real-mindsdb.md, "What a failed operation leaves"): such a data source, made by the
   * failed create, is deleted again.
   */
  async create(
    project: string,
    name: string,
    settings: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<unknown> {
    const opts = this.client.withDeadline(options);
    const create = () => this.resources.run('knowledge_base', 'create', { project, name, payload: settings }, opts);
    if (settings.storage !== undefined && settings.storage !== null) return create();
    const before = new Set(await this.dataSources(opts));
    try {
      return await create();
    } catch (err) {
      if (!(err instanceof MindsDBError)) throw err;
      const stores = [`${name}_chromadb`, `store_${name}`];
      const made = (await this.dataSources(opts).catch((): string[] => [])).filter(
        (d) => stores.includes(d) && !before.has(d),
      );
      if (made.length === 0) throw err;
      const left: string[] = [];
      for (const store of made) {
        await this.client.request('DELETE', `/databases/${segment(store, 'database')}`, undefined, opts).catch(() => {
          left.push(store);
        });
      }
      const removed = made.filter((d) => !left.includes(d));
      const text = [
        removed.length
          ? `the node deleted the data source ${removed.join(', ')} that MindsDB made for the default vector store ` +
            `before it failed`
          : '',
        left.length
          ? `MindsDB made the data source ${left.join(', ')} for the default vector store before it failed, and ` +
            `deleting it failed too: delete it with the database node`
          : '',
      ]
        .filter(Boolean)
        .join('; ');
      throw new MindsDBError(
        `${err.message} (${text}; give the knowledge base a vector store of its own with Storage)`,
        {
          ...err,
          leftover: left.length ? left.map((d) => `data source ${d}: delete it with the database node`) : undefined,
        },
      );
    }
  }

  private async dataSources(opts: RequestOptions): Promise<string[]> {
    const all = await this.client.request<unknown>('GET', '/databases/', undefined, opts);
    return Array.isArray(all)
      ? all.flatMap((d) => (isPlainObject(d) && d.type === 'data' && typeof d.name === 'string' ? [d.name] : []))
      : [];
  }

  delete(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('knowledge_base', 'delete', { project, name }, opts);
  }

  /**
   * Embeds and stores the content; resolves with what was sent (the server answers with nothing).
   * MindsDB (25.14.1 and 26.1.0) embeds and stores an insert in chunks of 50,000 rows, each before
   * the next: when a later chunk fails, the earlier ones stay stored. Rows are stored under their
   * id (or a hash of their content), so sending the same content again stores no duplicates: the
   * error of an insert that may be partly stored says so.
   */
  async insert(
    project: string,
    name: string,
    what: KnowledgeInsert,
    opts?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    try {
      await this.resources.run(
        'knowledge_base',
        'update',
        { project, name, payload: what as Record<string, unknown> },
        opts,
      );
    } catch (err) {
      const chunked = 'rows' in what ? what.rows.length > INSERT_CHUNK : true;
      if (!(err instanceof MindsDBError) || err.kind === 'input' || !chunked) throw err;
      const part =
        'rows' in what
          ? `the first chunks of ${INSERT_CHUNK} rows`
          : `the first chunks of ${INSERT_CHUNK} rows of what ` +
            `${'query' in what ? 'the query answered' : 'the pages held'}`;
      throw new MindsDBError(
        `${err.message} (MindsDB embeds and stores an insert in chunks of ${INSERT_CHUNK} rows, so ${part} may be ` +
          `stored in ${project}.${name}; sending the same content again stores no duplicates)`,
        {
          ...err,
          leftover: [
            `maybe rows of this insert in knowledge base ${project}.${name}: send the same content again, or delete ` +
              `them by id`,
          ],
        },
      );
    }
    if ('rows' in what) return { inserted: true, name, rows: what.rows.length };
    if ('urls' in what) return { inserted: true, name, urls: what.urls.length };
    return { inserted: true, name, query: what.query };
  }

  /** The chunks most similar to `text`, filtered as asked (./kb-search.ts). */
  search(project: string, name: string, req: SearchRequest, opts?: RequestOptions): Promise<SearchAnswer> {
    return searchKnowledgeBase(this.client, project, name, req, opts);
  }
}
