import { sqlOf } from './sql';
import type { MindsDBClient, RequestOptions } from '../connection';
import { ident, inputError, isPlainObject, isSecretKey, MindsDBError, Redactor } from '../shared';
import { isNoSuchName } from './names';
import { normaliseAgentSettings } from './agent-body';
import { ResourcesApi, type ResourceRequest } from './records';

/**
 * An agent's create and update with its data, `{knowledge_bases: […], tables: […]}`: what the agent
 * works over. Both lines take it at the top level (docs/real-mindsdb.md, "Agents over data"):
 * 26.x checks it, but answers a create it refuses with a misleading 404 ("The model … does not
 * exist") that quotes the LLM's api key; 25.x turns it into the agent's SQL skill and checks
 * nothing. So before anything is sent, the data is checked here on both lines: its shape, and that
 * each knowledge base and table (without a `*`) is there, its name as MindsDB stored it. 26.x and
 * 25.x replace the data whole on update: a list the update leaves out is kept from the agent.
 */

type Json = Record<string, unknown>;
const DATA_KEYS = ['knowledge_bases', 'tables'] as const;
type AgentData = Partial<Record<(typeof DATA_KEYS)[number], string[]>>;

/** The data as a flow gave it, checked: an object of the two lists of names, nothing else. */
export function agentData(data: unknown): AgentData {
  const shape = 'data: {knowledge_bases: ["project.kb", …], tables: ["datasource.schema.table", …]}';
  if (!isPlainObject(data)) throw inputError(`the agent's data must be an object, ${shape}`);
  const extra = Object.keys(data).filter((k) => !(DATA_KEYS as readonly string[]).includes(k));
  if (extra.length)
    throw inputError(`the agent's data takes only knowledge_bases and tables (got ${extra.join(', ')}): ${shape}`);
  const out: AgentData = {};
  for (const key of DATA_KEYS) {
    const list = data[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && n.trim() !== ''))
      throw inputError(`the agent's data.${key} must be a list of names, ${shape}`);
    out[key] = list.map((n: string) => n.trim());
  }
  return out;
}

export class AgentsApi {
  private readonly records: ResourcesApi;

  constructor(private readonly client: MindsDBClient) {
    this.records = new ResourcesApi(client);
  }

  /** Creates or updates the agent, its data checked first; an error never carries the settings' secrets. */
  async save(operation: 'create' | 'update', req: ResourceRequest, options?: RequestOptions): Promise<unknown> {
    const opts = this.client.withDeadline(options);
    const redactor = new Redactor();
    redactor.setSecrets(secretsOf(req.payload));
    try {
      const given = normaliseAgentSettings(req.payload).rest.data;
      let payload = req.payload;
      if (given !== undefined) {
        let data = agentData(given);
        if (operation === 'update' && (data.knowledge_bases === undefined) !== (data.tables === undefined))
          data = { ...(await this.currentData(req, opts)), ...data };
        data = await this.stored(req.project, data, opts);
        const { data: _given, ...rest } = req.payload ?? {};
        const params = isPlainObject(rest.params) ? { ...rest.params } : rest.params;
        if (isPlainObject(params)) delete params.data;
        payload = { ...rest, ...(params === undefined ? {} : { params }), data };
      }
      return await this.records.run('agent', operation, { ...req, payload }, opts);
    } catch (err) {
      throw redactor.error(explain(err, operation, req));
    }
  }

  /** The lists the agent has now (an update sends the data whole). */
  private async currentData(req: ResourceRequest, opts: RequestOptions): Promise<AgentData> {
    const record = await this.records.run('agent', 'get', { project: req.project, name: req.name }, opts);
    const r = isPlainObject(record) ? record : {};
    const data = isPlainObject(r.data)
      ? r.data
      : isPlainObject(r.params) && isPlainObject(r.params.data)
        ? r.params.data
        : {};
    const out: AgentData = {};
    for (const key of DATA_KEYS) {
      const list = data[key];
      if (Array.isArray(list)) out[key] = list.filter((n): n is string => typeof n === 'string');
    }
    return out;
  }

  /** Each name as MindsDB stored it; what is not there is refused, all of it in one error. */
  private async stored(project: string, data: AgentData, opts: RequestOptions): Promise<AgentData> {
    const missing: string[] = [];
    const out: AgentData = {};
    if (data.knowledge_bases) {
      out.knowledge_bases = [];
      for (const kb of data.knowledge_bases)
        out.knowledge_bases.push(await this.knowledgeBase(project, kb, missing, opts));
    }
    if (data.tables) {
      out.tables = [];
      for (const table of data.tables) out.tables.push(await this.table(table, missing, opts));
    }
    if (missing.length) throw inputError(`the agent's data names what MindsDB does not have: ${missing.join('; ')}`);
    return out;
  }

  private async knowledgeBase(project: string, kb: string, missing: string[], opts: RequestOptions): Promise<string> {
    if (kb.includes('*')) return kb;
    const parts = kb.split('.');
    if (parts.length > 2) {
      missing.push(`${kb} is not a knowledge base's name (project.name, or name in the agent's project)`);
      return kb;
    }
    const [p, name] = parts.length === 2 ? parts : [project, kb];
    try {
      const record = await this.records.run('knowledge_base', 'get', { project: p, name }, opts);
      const stored = isPlainObject(record) && typeof record.name === 'string' ? record.name : name;
      return parts.length === 2 ? `${p}.${stored}` : stored;
    } catch (err) {
      if (!isNoSuchName(err)) throw err;
      missing.push(`knowledge base ${kb} does not exist${parts.length === 2 ? '' : ` in project ${project}`}`);
      return kb;
    }
  }

  private async table(table: string, missing: string[], opts: RequestOptions): Promise<string> {
    if (table.includes('*')) return table;
    const parts = table.split('.');
    if (parts.length < 2 || parts.length > 3) {
      missing.push(`${table} is not a table's name (datasource.table or datasource.schema.table)`);
      return table;
    }
    const query = `SELECT * FROM ${parts.map((p) => ident(p, 'a table name part')).join('.')} LIMIT 0`;
    try {
      await sqlOf(this.client, { query }, opts);
    } catch (err) {
      if (!(err instanceof MindsDBError) || err.kind !== 'sql') throw err;
      missing.push(`table ${table} cannot be read (${(err.serverMessage ?? err.message).split('\n')[0]})`);
    }
    return table;
  }
}

/** The values under secret-looking keys of the settings (the LLM's api_key …), to keep out of errors. */
function secretsOf(value: unknown, depth = 0, under = false): string[] {
  if (typeof value === 'string') return under ? [value] : [];
  if (depth > 16 || value === null || typeof value !== 'object') return [];
  return Object.entries(value as Json).flatMap(([k, v]) => secretsOf(v, depth + 1, under || isSecretKey(k)));
}

/** 26.x answers every create it refuses with 404 "The model … does not exist": say what it may be. */
function explain(err: unknown, operation: 'create' | 'update', req: ResourceRequest): unknown {
  if (!(err instanceof MindsDBError) || operation !== 'create' || err.status !== 404) return err;
  if (!/does not exist/i.test(err.serverMessage ?? '')) return err;
  return new MindsDBError(
    `MindsDB refused to create agent "${req.name ?? ''}" and answered 404 "model does not exist", as MindsDB 26.x ` +
      `answers any setting it refuses: check the model (provider, model_name, api_key, base_url), the params ` +
      `(only timeout and mode: "text" or "sql") and the data (MindsDB said: ${err.serverMessage})`,
    { ...err },
  );
}
