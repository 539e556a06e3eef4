import { sqlOf } from './sql';
import type { MindsDBClient, RequestOptions } from '../connection';
import { type Row, ident, inputError, isPlainObject, MindsDBError, segment } from '../shared';
import { withStoredNames } from './names';
import { rowsToObjects } from '../answers';
import { checkColumns, comparesText, type KbCondition, kbWhere } from './kb-filter';
import { fromMetadataObject } from './kb-rows';

/**
 * A knowledge base's search, in SQL (MindsDB 26 has no REST search route):
 *
 *   SELECT * FROM p.kb WHERE content = :q [AND <metadata filters>] [AND relevance >= :r]
 *     [AND hybrid_search = true | hybrid_search_alpha = :alpha] [AND reranking = true|false] LIMIT n
 *
 * with the text, the filters' values, the threshold and the alpha bound by the server, never spliced.
 * What 25.14.1 and 26.1.0 do with each part is measured in docs/real-mindsdb.md ("Knowledge-base search");
 * what they would answer wrongly without an error is checked before the search (a filter's column
 * in another case, reranking on a knowledge base without a reranker) or put right after it (the
 * metadata columns of a reranked answer: ./kb-rows.ts).
 */

export interface SearchRequest {
  text: string;
  /** Rows to return (the server's default is 10, its most 100). */
  limit?: number;
  /** Only chunks with relevance ≥ this (0…1). */
  threshold?: number;
  /** Metadata conditions (./kb-filter.ts), ANDed. */
  filter?: readonly KbCondition[];
  /** Keyword and vector search together; `alpha` weighs them (1: vector only, 0: keyword only). */
  hybrid?: { alpha?: number };
  /** The knowledge base's reranker on or off for this search (undefined: as it was made). */
  reranking?: boolean;
}

export interface SearchAnswer {
  rows: Row[];
  columns: string[];
}

/** MindsDB returns at most this many rows of a search: a larger LIMIT is cut to it without a word. */
export const MOST_ROWS = 100;

const check = (ok: boolean, text: string): void => {
  if (!ok) throw inputError(text);
};

function sqlParts(req: SearchRequest): { where: string[]; params: Record<string, unknown>; limit: string } {
  check(typeof req.text === 'string' && req.text.trim() !== '', 'the search text is empty: set it in msg.payload');
  const params: Record<string, unknown> = { q: req.text };
  const where = ['content = :q', ...kbWhere(req.filter ?? [], params)];
  if (req.threshold !== undefined) {
    const t = req.threshold;
    check(Number.isFinite(t) && t >= 0 && t <= 1, `the relevance threshold must be a number from 0 to 1 (got ${t})`);
    where.push('relevance >= :r');
    params.r = t;
  }
  if (req.hybrid) {
    const { alpha } = req.hybrid;
    if (alpha === undefined) where.push('hybrid_search = true');
    else {
      check(Number.isFinite(alpha) && alpha >= 0 && alpha <= 1, `hybrid search's alpha must be 0…1 (got ${alpha})`);
      where.push('hybrid_search_alpha = :alpha');
      params.alpha = alpha;
    }
  }
  if (req.reranking !== undefined) where.push(`reranking = ${req.reranking ? 'true' : 'false'}`);
  let limit = '';
  if (req.limit !== undefined) {
    check(
      Number.isInteger(req.limit) && req.limit >= 1 && req.limit <= MOST_ROWS,
      `the search limit must be a whole number from 1 to ${MOST_ROWS} (got ${req.limit}): MindsDB returns at ` +
        `most ${MOST_ROWS} rows of a knowledge-base search and cuts a larger LIMIT without saying so`,
    );
    limit = ` LIMIT ${req.limit}`;
  }
  return { where, params, limit };
}

/** The metadata columns a knowledge base filters on, as MindsDB stored them (declared, or learnt from inserts). */
function metadataColumns(record: Record<string, unknown>): string[] {
  const declared = record.metadata_columns;
  const params = isPlainObject(record.params) ? record.params : {};
  const list = Array.isArray(declared) && declared.length ? declared : params.inserted_metadata;
  return Array.isArray(list) ? list.filter((c): c is string => typeof c === 'string') : [];
}

const hasReranker = (record: Record<string, unknown>): boolean =>
  isPlainObject(record.reranking_model) && Object.keys(record.reranking_model).length > 0;

export async function searchKnowledgeBase(
  client: MindsDBClient,
  project: string,
  name: string,
  req: SearchRequest,
  options?: RequestOptions,
): Promise<SearchAnswer> {
  const { where, params, limit } = sqlParts(req);
  const opts = client.withDeadline(options);
  // The record is read only when the search needs it: to check a filter's columns, or that reranking can be on.
  const needsRecord = (req.filter?.length ?? 0) > 0 || req.reranking === true;
  const search = async (p: string, kb: string) => {
    if (needsRecord) {
      const path = `/projects/${segment(p, 'project')}/knowledge_bases/${segment(kb, 'knowledge base name')}`;
      const record = await client.request<Record<string, unknown>>('GET', path, undefined, opts);
      const stored = isPlainObject(record) ? record : {};
      checkColumns(req.filter ?? [], metadataColumns(stored), `${p}.${kb}`);
      if (req.reranking === true && !hasReranker(stored))
        throw inputError(
          `knowledge base ${p}.${kb} has no reranking model, so reranking cannot be switched on for its search ` +
            '(a knowledge base gets one when it is made: reranking_model)',
        );
    }
    const table = `${ident(p, 'the project')}.${ident(kb, 'the knowledge base name')}`;
    const query = `SELECT * FROM ${table} WHERE ${where.join(' AND ')}${limit}`;
    return sqlOf(client, { query, params, context: { db: p } }, opts);
  };
  try {
    const answer = await withStoredNames(client, { resource: 'knowledge_base', project }, name, search, {
      request: opts,
    });
    const rows = answer.type === 'table' ? rowsToObjects(answer.column_names, answer.data) : [];
    return fromMetadataObject(rows, answer.column_names);
  } catch (err) {
    throw explain(err, req, project, name);
  }
}

/** MindsDB's answers to what a line or a store cannot do, said so that a flow builder knows what to change. */
function explain(err: unknown, req: SearchRequest, project: string, name: string): unknown {
  if (!(err instanceof MindsDBError) || err.kind !== 'sql') return err;
  const server = err.serverMessage ?? '';
  const said = `(MindsDB: ${server})`;
  const kb = `knowledge base "${name}"`;
  if (req.hybrid && /extension\W+fts|"fts"/i.test(server))
    return new MindsDBError(
      `hybrid search needs DuckDB's full-text search extension (fts) on the MindsDB server, which DuckDB ` +
        `downloads there on first use and could not: give the server internet access once, or search without ` +
        `hybrid search ${said}`,
      { ...err },
    );
  if (req.hybrid && /hybrid search is enabled but .* does not support it/i.test(server))
    return new MindsDBError(
      `hybrid search needs a vector store with keyword search (pgvector, or duckdb_faiss with DuckDB's fts ` +
        `extension), and the store of ${kb} has none: search without hybrid search ${said}`,
      { ...err },
    );
  if (/failed to cast value to numerical/i.test(server) && (req.filter ?? []).filter(comparesText).length > 1)
    return new MindsDBError(
      `${kb} is kept in MindsDB's duckdb_faiss vector store, which fails a search with more than one text ` +
        `condition (DuckDB reads its second \`metadata ->> 'column' = 'text'\` wrongly): filter on one text ` +
        `column (an IN list takes several values), and on the others by number, or keep the knowledge base in ` +
        `pgvector ${said}`,
      { ...err },
    );
  if (/not found|does not exist|unknown/i.test(server))
    return new MindsDBError(`${kb} cannot be searched in project "${project}": ${server}`, { ...err });
  return err;
}
