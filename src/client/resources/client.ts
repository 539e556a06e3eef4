import { invalidAnswer, ServerConnection, type ClientOptions, type RequestOptions } from '../connection';
import { isPlainObject, type Row } from '../shared';
import { modelPath, SERVER_ROUTES } from './routes';

/** What every call takes, for the resource modules, with the client they call. */
export type { RequestOptions };

/**
 * The client of one MindsDB server: its connection (client/connection: requests, SQL, streams,
 * status, health) on MindsDB's routes, and the two calls of the predict node's per-message path,
 * a prediction and a model's target column (kept per client). It knows nothing of Node-RED.
 */
export class MindsDBClient extends ServerConnection {
  private readonly targets = new Map<string, Promise<string | undefined>>();

  constructor(opts: ClientOptions) {
    super(opts, SERVER_ROUTES);
  }

  /** POST …/models/{model}/predict with `{data, params}`; resolves with the prediction rows. */
  async predict(
    project: string,
    model: string,
    rows: Row[],
    params?: Record<string, unknown>,
    opts?: RequestOptions,
  ): Promise<Row[]> {
    const path = `${modelPath(project, model)}/predict`;
    const body = params === undefined ? { data: rows } : { data: rows, params };
    const answer = await this.request<unknown>('POST', path, body, opts);
    if (!Array.isArray(answer) || !answer.every(isPlainObject)) {
      throw invalidAnswer('POST', this.prefix + path, 'an array of prediction rows', answer);
    }
    return answer as Row[];
  }

  /** The target column of a model, asked once (a failed lookup is not kept); undefined when it cannot be learnt. */
  modelTarget(project: string, model: string): Promise<string | undefined> {
    const key = `${project}\u0000${model}`;
    let p = this.targets.get(key);
    if (!p) {
      p = this.request('GET', modelPath(project, model))
        .then((m) => {
          const t = isPlainObject(m) ? m.predict : undefined;
          return typeof t === 'string' && t ? t : undefined;
        })
        .catch(() => {
          this.targets.delete(key);
          return undefined;
        });
      this.targets.set(key, p);
    }
    return p;
  }
}
