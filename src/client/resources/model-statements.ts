import { ident, inputError, MindsDBError, sqlSubquery, sqlUsing, type Row } from '../shared';
import type { TrainingRun } from './training';

/**
 * The SQL text of a training and what MindsDB answers to it: CREATE MODEL from the node's fields
 * or a whole statement, RETRAIN and FINETUNE, a version's name; names quoted as identifiers, values
 * in USING as SQL literals (../shared/sql-text.ts), the training SELECT checked to stay inside its
 * parentheses. Pure: no request.
 */

/** The fields of a CREATE MODEL built by the node. */
export interface TrainSpec {
  model: string;
  /** The database the SELECT runs in (`files`, a data source, a project). */
  database?: string;
  /** The training data query, run inside `database`. */
  select?: string;
  /** The column to predict. */
  predict?: string;
  /** The ML engine (`USING engine = …`); MindsDB 26 has no default. */
  engine?: string;
  /** Further USING options. */
  using?: Record<string, unknown>;
}

/** New data or options for RETRAIN / FINETUNE. */
export interface UpdateSpec {
  database?: string;
  select?: string;
  using?: Record<string, unknown>;
}

/** A model's version as MindsDB's SQL names it: project.model.version, each part quoted. */
export function modelVersion(project: string, model: string, version: number | string): string {
  return `${ident(project, 'the project')}.${ident(model, 'the model name')}.${ident(String(version), 'the version')}`;
}

function fromClause(database: string | undefined, select: string | undefined, required: boolean, what: string): string {
  if (!select || select.trim() === '') {
    if (required)
      throw inputError(
        `${what} needs training data: set the source database and SELECT in the node, or in msg.payload ({database, ` +
          `select})`,
      );
    return '';
  }
  if (!database) throw inputError(`${what}: the SELECT needs the database it runs in (e.g. "files")`);
  return ` FROM ${ident(database, 'the source database')} ${sqlSubquery(select, `the ${what} SELECT`)}`;
}

/** The CREATE MODEL statement for the node's fields. */
export function createModelSql(project: string, spec: TrainSpec): string {
  if (!spec.predict) throw inputError('no column to predict: set it in the node or in msg.payload.predict');
  // The engine field wins over an engine key in the USING options; it is written first either way.
  const { engine: usingEngine, ...rest } = spec.using ?? {};
  const engine = spec.engine || usingEngine;
  const using: Record<string, unknown> = engine === undefined || engine === '' ? rest : { engine, ...rest };
  const model = `${ident(project, 'the project')}.${ident(spec.model, 'the model name')}`;
  const from = fromClause(spec.database, spec.select, false, 'CREATE MODEL');
  return `CREATE MODEL ${model}${from} PREDICT ${ident(spec.predict, 'the column to predict')}${sqlUsing(using)}`;
}

/** RETRAIN or FINETUNE of project.model with new data or options (FINETUNE needs data). */
export function updateModelSql(kind: 'RETRAIN' | 'FINETUNE', project: string, model: string, spec: UpdateSpec): string {
  const tail = `${fromClause(spec.database, spec.select, kind === 'FINETUNE', kind)}${sqlUsing(spec.using ?? {})}`;
  return `${kind} ${ident(project, 'the project')}.${ident(model, 'the model name')}${tail}`;
}

/** Whether the spec names its ML engine (the field, or `engine` in its USING options). */
export function hasEngine(spec: TrainSpec): boolean {
  return (
    Boolean(spec.engine) || Boolean(spec.using && typeof spec.using.engine === 'string' && spec.using.engine !== '')
  );
}

/** A whole statement from the user: it must be one CREATE MODEL (anything else has its own node). */
export function checkStatement(statement: string): string {
  const s = statement.trim().replace(/;\s*$/, '');
  if (!/^create\s+(or\s+replace\s+)?(model|predictor)\b/i.test(s)) {
    throw inputError('the statement must be a CREATE MODEL statement (use the sql node for anything else)');
  }
  return s;
}

/** The model and version a CREATE/RETRAIN/FINETUNE answered with (its row of NAME, PROJECT, VERSION …). */
export function startedRun(rows: Row[], project: string, what: string, made?: TrainingRun['made']): TrainingRun {
  const row = rows[0] ?? {};
  const value = (key: string): unknown => Object.entries(row).find(([k]) => k.toLowerCase() === key)?.[1];
  const name = value('name');
  const version = Number(value('version'));
  if (typeof name !== 'string' || !Number.isInteger(version)) {
    throw new MindsDBError(`MindsDB answered ${what} without the model's name and version`, {
      kind: 'invalid-response',
      method: 'POST',
      path: 'sql/query',
    });
  }
  const p = value('project');
  return { project: typeof p === 'string' && p ? p : project, model: name, version, ...(made ? { made } : {}) };
}
