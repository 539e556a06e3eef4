import { sqlOf } from './sql';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { rowsToObjects } from '../answers';
import {
  ident,
  inputError,
  isPlainObject,
  MindsDBError,
  redactSecretFields,
  refuseMaskedValues,
  sqlUsing,
} from '../shared';
import { withStoredName } from './names';

/** An ML handler the server has: what an ML engine is made from. */
export interface MLHandler {
  name: string;
  title: string;
  /**
   * true: its Python code imports; false: it does not (`error` says why); null: not tried yet (the listing does not
   * import every handler).
   */
  imported: boolean | null;
  error?: string;
  /** The Python packages it needs, as the server lists them. */
  dependencies: string[];
}

/** An ML engine as SHOW ML_ENGINES lists it; its settings with every secret masked. */
export interface MLEngine {
  name: string;
  handler: string;
  settings: Record<string, unknown>;
}

export interface MLEngineSpec {
  name: string;
  handler: string;
  /** The USING settings, the API key among them; never echoed back. */
  settings: Record<string, unknown>;
}

/**
 * MindsDB's SQL takes the handler after FROM as a bare word only: both pinned versions answer
 * "There is no engine '`openai`'" when it is backticked, so it is checked to be a plain name
 * (every handler folder is one) instead of quoted.
 */
const HANDLER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The handler name as CREATE ML_ENGINE takes it (trimmed), or an input error. */
export function checkHandler(handler: string): string {
  const name = handler.trim();
  if (!HANDLER.test(name))
    throw inputError(
      `the ML handler ${JSON.stringify(handler)} is not a handler name (letters, digits and _, e.g. "openai")`,
    );
  return name;
}

type Json = Record<string, unknown>;

/**
 * ML engines: the handlers a server has (REST GET /handlers/?lazy=1: without lazy=1 the server
 * imports every handler, ~218 on 25.14.1, which is slow), and the engines made from them, which
 * MindsDB manages only through SQL (CREATE ML_ENGINE, SHOW ML_ENGINES, DROP ML_ENGINE).
 */
export class MLEnginesApi {
  constructor(private readonly client: MindsDBClient) {}

  async handlers(opts?: RequestOptions): Promise<MLHandler[]> {
    let all: unknown;
    try {
      all = await this.client.request('GET', '/handlers/?lazy=1', undefined, opts);
    } catch (err) {
      if (err instanceof MindsDBError && err.kind === 'unsupported') {
        const version = await this.client.serverVersion(opts).catch(() => 'this version');
        throw new MindsDBError(
          `MindsDB ${version} has no handlers route (GET /api/handlers/): cannot list ML handlers`,
          { ...err },
        );
      }
      throw err;
    }
    return (Array.isArray(all) ? all : [])
      .filter((h): h is Json => isPlainObject(h) && h.type === 'ml' && typeof h.name === 'string')
      .map((h) => {
        const imp = isPlainObject(h.import) ? h.import : {};
        const out: MLHandler = {
          name: h.name as string,
          title: typeof h.title === 'string' ? h.title : (h.name as string),
          imported: typeof imp.success === 'boolean' ? imp.success : null,
          dependencies: Array.isArray(imp.dependencies)
            ? imp.dependencies.filter((d): d is string => typeof d === 'string')
            : [],
        };
        if (typeof imp.error_message === 'string' && imp.error_message !== '') out.error = imp.error_message;
        return out;
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async list(opts?: RequestOptions): Promise<MLEngine[]> {
    const answer = await sqlOf(this.client, { query: 'SHOW ML_ENGINES' }, opts);
    if (answer.type !== 'table') return [];
    return rowsToObjects(answer.column_names, answer.data).map((row) => {
      const value = (key: string): unknown => Object.entries(row).find(([k]) => k.toLowerCase() === key)?.[1];
      return {
        name: String(value('name') ?? ''),
        handler: String(value('handler') ?? ''),
        settings: redactSecretFields(parseSettings(value('connection_data'))),
      };
    });
  }

  /**
   * CREATE ML_ENGINE `name` FROM handler USING … . With capitals in the name, both pinned versions
   * store the engine and then answer "Integration does not exists: <name lower-cased>": when the
   * listing then shows the name as given, it was created.
   */
  async create(
    spec: MLEngineSpec,
    options?: RequestOptions,
  ): Promise<{ created: true; name: string; handler: string }> {
    const opts = this.client.withDeadline(options);
    const handler = checkHandler(spec.handler);
    refuseMaskedValues(spec.settings, 'the ML engine settings');
    const name = ident(spec.name, 'the ML engine name');
    const query = `CREATE ML_ENGINE ${name} FROM ${handler}${sqlUsing(spec.settings)}`;
    try {
      await sqlOf(this.client, { query }, opts);
    } catch (err) {
      if (!(err instanceof MindsDBError) || err.kind !== 'sql') throw err;
      const said = err.serverMessage ?? '';
      if (
        /integration does not exists?/i.test(said) &&
        (await this.names(opts).catch((): string[] => [])).includes(spec.name)
      ) {
        return { created: true, name: spec.name, handler };
      }
      if (/there is no engine/i.test(said)) {
        const version = await this.client.serverVersion(opts).catch(() => 'this version');
        throw new MindsDBError(
          `MindsDB ${version} has no ML handler "${handler}" (the "handlers" operation lists the ones it has), ` +
            `nothing was created`,
          { ...err },
        );
      }
      if (/already exists/i.test(said))
        throw new MindsDBError(`ML engine "${spec.name}" already exists: delete it first, or use another name`, {
          ...err,
        });
      throw err;
    }
    return { created: true, name: spec.name, handler };
  }

  /** DROP ML_ENGINE compares the name exactly: a miss is tried once more with the stored spelling (./names.ts). */
  delete(name: string, options?: RequestOptions): Promise<{ deleted: true; name: string }> {
    const opts = this.client.withDeadline(options);
    return withStoredName(
      this.client,
      { resource: 'ml_engine' },
      name,
      async (stored) => {
        await sqlOf(this.client, { query: `DROP ML_ENGINE ${ident(stored, 'the ML engine name')}` }, opts);
        return { deleted: true as const, name: stored };
      },
      { request: opts },
    );
  }

  private async names(opts?: RequestOptions): Promise<string[]> {
    return (await this.list(opts)).map((e) => e.name);
  }
}

/** SHOW ML_ENGINES gives an engine's settings as JSON text (secrets already masked by the server). */
function parseSettings(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isPlainObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
