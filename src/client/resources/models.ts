import { sqlOf } from './sql';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { type Row, inputError, MindsDBError, segment, matchName, ambiguousNameError } from '../shared';
import { rowsToObjects } from '../answers';
import { recordNotFound } from './gone';
import { capitalsProjectText, hasCapitals, storedNames, withStoredName, withStoredNames } from './names';
import { trainingRecord, waitForTraining, type TrainingRun, type WaitOptions } from './training';
import {
  checkStatement,
  createModelSql,
  hasEngine,
  modelVersion,
  startedRun,
  updateModelSql,
  type TrainSpec,
  type UpdateSpec,
} from './model-statements';

/**
 * Models: train, retrain, finetune, describe, versions, activate, delete, and waiting for training.
 * Reads go through REST (`GET /projects/{p}/models[/{m}[.{v}]]`, and `…/describe` with a `{}`
 * body: SQL's DESCRIBE lower-cases the name). Writes go through SQL (`CREATE MODEL`, `RETRAIN`,
 * `FINETUNE`, `SET active`, `DROP MODEL p.m.v`): MindsDB has no REST route for most of them, its
 * REST train needs a two-part model name, and its REST delete of one version answers 500 (25.14.1).
 * Names are quoted as identifiers, values in USING as SQL literals (../shared/sql-text.ts: what
 * MindsDB's lexer cannot read back is refused before sending); the training SELECT is the user's
 * own SQL, as in the sql node, checked to stay inside its parentheses. Every call names the model
 * and project as MindsDB stored them (./names.ts): a model made by unquoted SQL as `MyModel` is
 * stored as `mymodel`.
 */

type Json = Record<string, unknown>;

export class ModelsApi {
  constructor(private readonly client: MindsDBClient) {}

  private base(project: string): string {
    return `/projects/${segment(project, 'project')}/models`;
  }

  /** The project's models, one record each (the active version). */
  async list(project: string, opts?: RequestOptions): Promise<Json[]> {
    const all = await this.client.request<Json[]>('GET', this.base(project), undefined, opts);
    return (Array.isArray(all) ? all : []).filter((m) => m && m.active === true);
  }

  /** Every version of one model (by its stored name: exactly as typed, else its one case variant), oldest first. */
  async versions(project: string, model: string, opts?: RequestOptions): Promise<Json[]> {
    const all = await this.client.request<Json[]>('GET', this.base(project), undefined, opts);
    const records = (Array.isArray(all) ? all : []).filter((m) => typeof m?.name === 'string');
    const match = matchName(
      model,
      records.map((m) => m.name as string),
    );
    if (match.found === 'ambiguous') throw ambiguousNameError('model', model, `project \`${project}\``, match.names);
    const mine = match.found === 'none' ? [] : records.filter((m) => m.name === match.name);
    if (mine.length === 0) {
      throw new MindsDBError(`model "${model}" does not exist in project "${project}"`, {
        kind: 'http',
        status: 404,
        method: 'GET',
        path: this.base(project),
      });
    }
    return mine.sort((a, b) => Number(a.version) - Number(b.version));
  }

  /** One model (its active version) or one version of it. */
  get(project: string, model: string, version?: number, opts?: RequestOptions): Promise<Json> {
    return withStoredName(
      this.client,
      { resource: 'model', project },
      model,
      (m) => this.getExactly(project, m, version, opts),
      { request: opts },
    );
  }

  /** `get` of a name known to be stored so (the poll of a training run: no lookup on every poll). */
  private getExactly(project: string, model: string, version?: number, opts?: RequestOptions): Promise<Json> {
    const name = version === undefined ? model : `${model}.${version}`;
    return this.client.request<Json>('GET', `${this.base(project)}/${segment(name, 'model name')}`, undefined, opts);
  }

  /**
   * DESCRIBE: what the engine says about the model (rows as objects). Through REST
   * (`GET …/describe` with a `{}` body), not SQL: SQL's DESCRIBE lower-cases the model's name on
   * 25.14.1 and 26.1.0, so it never finds a model stored with capitals.
   */
  async describe(project: string, model: string, version?: number, opts?: RequestOptions): Promise<Row[]> {
    const rows = await withStoredName(
      this.client,
      { resource: 'model', project },
      model,
      (m) => {
        const name = version === undefined ? m : `${m}.${version}`;
        return this.client.request<unknown>(
          'GET',
          `${this.base(project)}/${segment(name, 'model name')}/describe`,
          {},
          opts,
        );
      },
      { request: opts },
    );
    if (!Array.isArray(rows))
      throw new MindsDBError('MindsDB answered describe without a list of rows', {
        kind: 'invalid-response',
        method: 'GET',
        path: `${this.base(project)}/…/describe`,
      });
    return rows as Row[];
  }

  /** CREATE MODEL, from the node's fields or from a whole statement; training goes on in MindsDB. */
  async train(
    project: string,
    what: TrainSpec | { statement: string },
    options?: RequestOptions,
  ): Promise<TrainingRun> {
    const opts = this.client.withDeadline(options);
    if ('statement' in what) {
      const statement = checkStatement(what.statement);
      const made = /^create\s+or\s+replace\b/i.test(statement) ? undefined : 'model';
      return startedRun(await this.rows(statement, project, opts), project, 'CREATE MODEL', made);
    }
    if (!hasEngine(what)) await this.requireDefaultEngine(opts);
    // The project goes into the SQL, where MindsDB finds it only by its stored name.
    return withStoredName(
      this.client,
      { resource: 'project' },
      project,
      async (p) => {
        // A model there would train but could not be read or asked through REST (./names.ts).
        if (hasCapitals(p) && (await storedNames(this.client, { resource: 'project' }, opts)).includes(p))
          throw inputError(`${capitalsProjectText('models', p)}; nothing was sent`);
        return startedRun(await this.rows(createModelSql(p, what), p, opts), p, 'CREATE MODEL', 'model');
      },
      { request: opts },
    );
  }

  /** RETRAIN: a new version, from the model's own data query unless new data is given. */
  async retrain(project: string, model: string, spec: UpdateSpec, opts?: RequestOptions): Promise<TrainingRun> {
    return this.inSql(
      project,
      model,
      async (p, m) =>
        startedRun(await this.rows(updateModelSql('RETRAIN', p, m, spec), p, opts), p, 'RETRAIN', 'version'),
      opts,
    );
  }

  /** FINETUNE: a new version trained further on new data (the engine must support it). */
  async finetune(project: string, model: string, spec: UpdateSpec, opts?: RequestOptions): Promise<TrainingRun> {
    return this.inSql(
      project,
      model,
      async (p, m) =>
        startedRun(await this.rows(updateModelSql('FINETUNE', p, m, spec), p, opts), p, 'FINETUNE', 'version'),
      opts,
    );
  }

  /** Makes `version` the one predictions use; resolves with its record. */
  async activate(project: string, model: string, version: number, options?: RequestOptions): Promise<Json> {
    const opts = this.client.withDeadline(options);
    return this.inSql(
      project,
      model,
      async (p, m) => {
        await this.rows(`SET active ${modelVersion(p, m, version)}`, p, opts);
        try {
          return await this.getExactly(p, m, version, opts);
        } catch (err) {
          throw alreadyDone(err, `version ${version} of ${p}.${m} is active now, but reading its record back failed`);
        }
      },
      opts,
    );
  }

  /**
   * The record of a training run just started (named as MindsDB answered it); an error says that the training goes on
   * anyway.
   */
  record(run: TrainingRun, opts?: RequestOptions): Promise<Json> {
    return trainingRecord(this.client, run, opts);
  }

  /**
   * Polls the version `run` until its status is complete or error (./training.ts); a training that
   * fails is removed again (what its statement made), and its error says so.
   */
  waitFor(run: TrainingRun, w: WaitOptions): Promise<Json> {
    return waitForTraining(this.client, run, w);
  }

  /** Deletes the model with every version, or one (inactive) version; the answer names it as stored. */
  async delete(project: string, model: string, version?: number, opts?: RequestOptions): Promise<Json> {
    if (version === undefined) {
      return withStoredName(
        this.client,
        { resource: 'model', project },
        model,
        async (m) => {
          await this.client.request('DELETE', `${this.base(project)}/${segment(m, 'model name')}`, undefined, {
            ...opts,
            gone: recordNotFound,
          });
          return { deleted: true, project, model: m };
        },
        { request: opts },
      );
    }
    return this.inSql(
      project,
      model,
      async (p, m) => {
        await this.rows(`DROP MODEL ${modelVersion(p, m, version)}`, p, opts);
        return { deleted: true, project: p, model: m, version };
      },
      opts,
    );
  }

  /** A statement naming `project`.`model`: MindsDB's SQL finds both only by their stored names. */
  private inSql<T>(
    project: string,
    model: string,
    call: (project: string, model: string) => Promise<T>,
    opts?: RequestOptions,
  ): Promise<T> {
    return withStoredNames(this.client, { resource: 'model', project }, model, call, { request: opts });
  }

  /**
   * MindsDB 26 removed the default engine (lightwood): a CREATE MODEL without one fails there with
   * a terse error, so say it before sending. 25.x still falls back to lightwood when it is installed.
   */
  private async requireDefaultEngine(opts?: RequestOptions): Promise<void> {
    const version = String((await this.client.status(opts)).mindsdb_version ?? '');
    if (Number(version.split('.')[0]) >= 26) {
      throw inputError(
        `no engine: MindsDB ${version} has no default ML engine, set Engine in the node or msg.payload.engine (e.g. ` +
          `an ML engine made with CREATE ML_ENGINE)`,
      );
    }
  }

  private async rows(sql: string, project: string, opts?: RequestOptions): Promise<Row[]> {
    const answer = await sqlOf(this.client, { query: sql, context: { db: project } }, opts);
    return answer.type === 'table' ? rowsToObjects(answer.column_names, answer.data) : [];
  }
}

/** The error of a later step, saying what the earlier steps already did. */
function alreadyDone(err: unknown, done: string): unknown {
  if (!(err instanceof MindsDBError)) return err;
  return new MindsDBError(`${done}: ${err.message}`, err);
}
