/**
 * What a server holds, as a tree: the client reads it from MindsDB (src/client/resources/tree.ts),
 * the runtime hands it to the editor (POST mindsdb/tree), and the editor's sidebar and SQL
 * completion show it. Declared here, once, for both sides.
 */

export type TreeKind =
  | 'datasource'
  | 'project'
  | 'schema'
  | 'table'
  | 'view'
  | 'model'
  | 'knowledge_base'
  | 'job'
  | 'agent'
  | 'column';

export interface TreeItem {
  name: string;
  kind: TreeKind;
  /** A data source's or a model's engine. */
  engine?: string;
  /** The schema of a data source's table, when the data source has schemas. */
  schema?: string;
  /** A schema's tables. */
  children?: TreeItem[];
  /** A model's status ("complete", "training", "error" …), version and error. */
  status?: string;
  version?: number;
  error?: string;
  /** A job's last run (its start, as MindsDB writes it), and that run's error in `error`. */
  lastRun?: string;
  /** A column's type. */
  type?: string;
  /** A table's or a view's `SELECT * … LIMIT 100`, quoted for MindsDB's lexer. */
  select?: string;
}
