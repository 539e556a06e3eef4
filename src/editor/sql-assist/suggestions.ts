import { matchName, sqlName, unquotedName } from '../../common/sql-names';
import { treeLevel, type TreeItem } from '../shared/explorer';

/**
 * What SQL completion offers for the text before the cursor, on the dialog's server: after
 * `db.` the data source's tables (or the project's models, views and knowledge bases), after
 * `db.table.` (or `db.schema.`) its columns (or the schema's tables); otherwise MindsDB's
 * keywords, the data sources and projects, and the columns of the tables the statement names
 * after FROM or JOIN. Everything comes from the same tree the sidebar shows, asked once.
 */

export type SuggestionKind =
  | 'keyword'
  | 'database'
  | 'project'
  | 'table'
  | 'view'
  | 'model'
  | 'column'
  | 'knowledgeBase';

export interface SqlSuggestion {
  label: string;
  /** What goes into the text: the name, in backticks where MindsDB's lexer needs them (sqlName). */
  insert: string;
  kind: SuggestionKind;
  /** A column's type, a data source's engine. */
  detail?: string;
}

/** MindsDB's SQL keywords (its parser's, the common ones) offered where no name is being qualified. */
export const KEYWORDS = [
  'SELECT',
  'FROM',
  'WHERE',
  'JOIN',
  'LEFT JOIN',
  'INNER JOIN',
  'ON',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IN',
  'IS NULL',
  'IS NOT NULL',
  'LIKE',
  'BETWEEN',
  'DISTINCT',
  'GROUP BY',
  'ORDER BY',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'ASC',
  'DESC',
  'UNION',
  'UNION ALL',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'COUNT',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'WITH',
  'INSERT INTO',
  'VALUES',
  'UPDATE',
  'SET',
  'DELETE FROM',
  'SHOW',
  'DESCRIBE',
  'CREATE',
  'DROP',
  'MODEL',
  'PREDICT',
  'USING',
  'VIEW',
  'JOB',
  'EVERY',
  'START',
  'LAST',
  'RETRAIN',
  'FINETUNE',
  'KNOWLEDGE_BASE',
  'DATABASE',
  'PROJECT',
  'ENGINE',
  'PARAMETERS',
  'TABLES',
  'DATABASES',
  'MODELS',
  'JOBS',
  'IF EXISTS',
  'IF NOT EXISTS',
  'OR REPLACE',
];

/**
 * The names the text before the cursor is qualifying: `db.` → ['db'], `db.t.co` → ['db', 't'] (the last part is being
 * typed).
 */
export function qualifierOf(before: string): string[] {
  const m = /((?:`[^`]*`|[A-Za-z0-9_]+)\.)+[A-Za-z0-9_`]*$/.exec(before);
  if (!m) return [];
  const parts = m[0].match(/`[^`]*`|[A-Za-z0-9_]+|\./g) ?? [];
  const names: string[] = [];
  for (let i = 0; i < parts.length; i++)
    if (parts[i] !== '.' && parts[i + 1] === '.') names.push(unquotedName(parts[i]));
  return names;
}

/** The tables a statement names after FROM or JOIN, as [database, table] (a schema in between is skipped). */
export function tablesNamed(sql: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const name = '(?:`[^`]+`|[A-Za-z0-9_]+)';
  const re = new RegExp(`\\b(?:FROM|JOIN)\\s+(${name}(?:\\.${name}){1,2})`, 'gi');
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    const parts = (m[1].match(new RegExp(name, 'g')) ?? []).map(unquotedName);
    out.push([parts[0], parts[parts.length - 1]]);
  }
  return out;
}

const KIND_OF: Partial<Record<TreeItem['kind'], SuggestionKind>> = {
  datasource: 'database',
  project: 'project',
  table: 'table',
  view: 'view',
  model: 'model',
  knowledge_base: 'knowledgeBase',
  column: 'column',
};

const suggestion = (item: TreeItem): SqlSuggestion | undefined => {
  const kind = KIND_OF[item.kind];
  if (!kind) return undefined;
  const detail = item.kind === 'column' ? item.type : item.kind === 'datasource' ? item.engine : undefined;
  return { label: item.name, insert: sqlName(item.name), kind, ...(detail ? { detail } : {}) };
};
const suggestionsOf = (items: TreeItem[]): SqlSuggestion[] =>
  items.map(suggestion).filter((s): s is SqlSuggestion => s !== undefined);

/**
 * The data source or project a statement names, as the server stored it: the name as written, else
 * the one root that differs from it only in case (matchName); none when two do.
 */
async function rootNamed(server: string, database: string): Promise<TreeItem | undefined> {
  const roots = await treeLevel(server);
  const match = matchName(
    database,
    roots.map((r) => r.name),
  );
  return match.found === 'exact' || match.found === 'case' ? roots.find((r) => r.name === match.name) : undefined;
}

/** The tables (or models, views …) in a data source or project, flattening a data source's schemas. */
async function tablesIn(server: string, database: string): Promise<TreeItem[]> {
  const root = await rootNamed(server, database);
  if (!root) return [];
  const items = await treeLevel(server, {
    kind: root.kind === 'project' ? 'project' : 'datasource',
    database: root.name,
  });
  return items.flatMap((i) => (i.kind === 'schema' ? (i.children ?? []) : [i]));
}

/** What to offer at the cursor; any failure offers only what is known (keywords at least). */
export async function sqlSuggestions(server: string, sql: string, before: string): Promise<SqlSuggestion[]> {
  const names = qualifierOf(before);
  const keywords = (): SqlSuggestion[] => KEYWORDS.map((k) => ({ label: k, insert: k, kind: 'keyword' }));
  if (!server) return names.length ? [] : keywords();
  try {
    if (names.length === 1) return suggestionsOf(await tablesIn(server, names[0]));
    if (names.length === 2) {
      // `db.schema.` lists the schema's tables; `db.table.` the table's columns.
      const [database, second] = names;
      const root = await rootNamed(server, database);
      const schema =
        root && root.kind === 'datasource'
          ? (await treeLevel(server, { kind: 'datasource', database: root.name })).find(
              (i) => i.kind === 'schema' && i.name === second,
            )
          : undefined;
      if (schema) return suggestionsOf(schema.children ?? []);
      return suggestionsOf(await treeLevel(server, { kind: 'columns', database, table: second }));
    }
    if (names.length >= 3)
      return suggestionsOf(
        await treeLevel(server, { kind: 'columns', database: names[0], table: names[names.length - 1] }),
      );
    const roots = suggestionsOf(await treeLevel(server));
    const columns = await Promise.all(
      tablesNamed(sql).map(([db, table]) =>
        treeLevel(server, { kind: 'columns', database: db, table }).catch(() => []),
      ),
    );
    const seen = new Set<string>();
    const named = suggestionsOf(columns.flat()).filter((c) => !seen.has(c.label) && seen.add(c.label));
    return [...named, ...roots, ...keywords()];
  } catch {
    return names.length ? [] : keywords();
  }
}
