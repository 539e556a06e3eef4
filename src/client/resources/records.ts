import { agentBody } from './agent-body';
import type { MindsDBClient, RequestOptions } from './client';
import { inputError, MindsDBError, segment, refuseMaskedValues } from '../shared';
import { jobNotFound, recordNotFound } from './gone';
import { capitalsProjectText, isCapitalsProjectError, storedName, withStoredName, type NameScope } from './names';

export type ResourceKind = 'chatbot' | 'skill' | 'agent' | 'job' | 'knowledge_base' | 'view';
export type ResourceOperation = 'list' | 'get' | 'create' | 'update' | 'delete';

/**
 * Everything that differs between chatbots, skills and agents, decided from the real server and
 * the specification (../shared/spec/rest-interface.md). A fourth resource is one more row.
 */
export interface ResourceSpec {
  /** Path segment of the collection under /projects/{project}/. */
  collection: string;
  /** Key that wraps the record in create/update bodies: {"agent": {...}}. */
  wrapper: string;
  /** The server's PUT creates a missing record (upsert); otherwise update needs an existing one. */
  updateCreates: boolean;
  /** The server's PUT reads the name from the body (chatbots), not only from the path. */
  nameInUpdateBody: boolean;
  /** The specification's path for DELETE, tried only when the server has no route for the real one. */
  deleteFallbackCollection?: string;
  /** What to say when the server has no route for this resource at all. */
  missingText?: string;
  /** Create/update settings into the body the server's version accepts (agents: 25.x vs 26.x). */
  bodyFor?: (version: string, payload: Record<string, unknown> | undefined) => Record<string, unknown>;
  /**
   * The server's PUT sets the record to what is sent (an update or an upsert), so sending it again
   * leaves the same record and it may be repeated; false for a knowledge base, whose PUT inserts
   * (appends) content. A PUT that renames the record is never repeated either (the retry would
   * find the old name gone, or make a second record).
   */
  updateRepeats: boolean;
  /** How the server says "not there" to a DELETE (default: 404). */
  gone?: (err: MindsDBError) => boolean;
}

export const RESOURCES: Readonly<Record<ResourceKind, ResourceSpec>> = {
  chatbot: {
    collection: 'chatbots',
    wrapper: 'chatbot',
    updateCreates: true,
    nameInUpdateBody: true,
    updateRepeats: true,
  },
  skill: {
    collection: 'skills',
    wrapper: 'skill',
    updateCreates: true,
    nameInUpdateBody: false,
    updateRepeats: true,
    missingText: 'this MindsDB server has no skills (skills were removed in MindsDB 26.0)',
  },
  // 25.x's skills_to_add / skills_to_remove are set operations, so an agent update repeats harmlessly too.
  agent: {
    collection: 'agents',
    wrapper: 'agent',
    updateCreates: false,
    nameInUpdateBody: false,
    updateRepeats: true,
    deleteFallbackCollection: 'agent',
    bodyFor: agentBody,
  },
  // Jobs have no update route; their node adds the history (GET …/jobs/{name}/history). A missing
  // job's DELETE answers 500 "Job does not exist".
  job: {
    collection: 'jobs',
    wrapper: 'job',
    updateCreates: false,
    nameInUpdateBody: false,
    updateRepeats: false,
    gone: jobNotFound,
  },
  // A knowledge base's PUT inserts content ({rows | urls | query}): never repeated, or rows would be
  // stored twice. Search is SQL (./knowledge-bases.ts).
  knowledge_base: {
    collection: 'knowledge_bases',
    wrapper: 'knowledge_base',
    updateCreates: false,
    nameInUpdateBody: false,
    updateRepeats: false,
  },
  // A view's PUT ({view: {query}}) sets the query, and creates a missing view (201); the view node
  // reads the view first (./views.ts), so its update never creates one.
  view: { collection: 'views', wrapper: 'view', updateCreates: false, nameInUpdateBody: false, updateRepeats: true },
};

export interface ResourceRequest {
  project: string;
  /** Name of the record (the server finds records by name only); not used by list. */
  name?: string;
  /** Settings for create/update. */
  payload?: Record<string, unknown>;
  /** Skills list: keep only the skills attached to this agent (by name). */
  agent?: string;
}

export interface DeletedRecord {
  deleted: true;
  resource: ResourceKind;
  project: string;
  name: string;
}

type Json = Record<string, unknown>;

/** Create, read, update and delete for every resource in RESOURCES, driven by its row. */
export class ResourcesApi {
  constructor(private readonly client: MindsDBClient) {}

  /**
   * Runs the operation on the record as MindsDB stored its name (./names.ts): a get, update or
   * delete that misses is tried once more with the one spelling the server lists that differs
   * only in case. An update that would create what it does not find (a chatbot's or skill's PUT)
   * looks the name up first, so it changes the stored record instead of making a second one.
   * The lookups and the operation share the message's one deadline.
   */
  async run(
    kind: ResourceKind,
    operation: ResourceOperation,
    req: ResourceRequest,
    options?: RequestOptions,
  ): Promise<unknown> {
    const opts = this.client.withDeadline(options);
    if (req.name === undefined || (operation !== 'get' && operation !== 'update' && operation !== 'delete'))
      return this.runAs(kind, operation, req, opts);
    const scope: NameScope = { resource: kind, project: req.project };
    if (operation === 'update' && RESOURCES[kind].updateCreates) {
      return this.runAs(kind, operation, { ...req, name: await storedName(this.client, scope, req.name, opts) }, opts);
    }
    return withStoredName(this.client, scope, req.name, (name) => this.runAs(kind, operation, { ...req, name }, opts), {
      request: opts,
    });
  }

  private async runAs(
    kind: ResourceKind,
    operation: ResourceOperation,
    req: ResourceRequest,
    options: RequestOptions,
  ): Promise<unknown> {
    const spec = RESOURCES[kind];
    // Some operations take two requests (the server's version first, a fallback route, the agent of
    // a skills list): they share the message's one deadline.
    const opts = this.client.withDeadline(options);
    const base = `/projects/${segment(req.project, 'project')}/${spec.collection}`;
    const item = () => `${base}/${segment(req.name, `${kind} name`)}`;
    try {
      switch (operation) {
        case 'list': {
          const records = await this.client.request<Json[]>('GET', base, undefined, opts);
          return req.agent ? await this.attachedTo(records, req.project, req.agent, opts) : records;
        }
        case 'get':
          return await this.client.request('GET', item(), undefined, opts);
        case 'create':
          refuseMaskedValues(req.payload, `the ${kind} settings`);
          return await this.client.request(
            'POST',
            base,
            { [spec.wrapper]: { ...(await this.settings(spec, req, opts)), name: requireName(req, kind) } },
            opts,
          );
        case 'update': {
          refuseMaskedValues(req.payload, `the ${kind} settings`);
          const record: Json = { ...(await this.settings(spec, req, opts)) };
          if (spec.nameInUpdateBody && record.name === undefined) record.name = requireName(req, kind);
          const renames = record.name !== undefined && record.name !== req.name;
          return await this.client.request(
            'PUT',
            item(),
            { [spec.wrapper]: record },
            { ...opts, repeat: spec.updateRepeats && !renames ? 'idempotent' : 'never' },
          );
        }
        case 'delete':
          await this.deleteWithFallback(spec, req, item(), opts);
          return {
            deleted: true,
            resource: kind,
            project: req.project,
            name: String(req.name),
          } satisfies DeletedRecord;
        default:
          throw inputError(`unknown operation "${String(operation)}" for ${kind}s`);
      }
    } catch (err) {
      throw explain(err, kind, operation, spec, req);
    }
  }

  /** The settings as this server's version takes them; the version is asked only where it matters. */
  private async settings(spec: ResourceSpec, req: ResourceRequest, opts?: RequestOptions): Promise<Json | undefined> {
    return spec.bodyFor ? spec.bodyFor(await this.client.serverVersion(opts), req.payload) : req.payload;
  }

  /**
   * The specification's DELETE path is /agent/{name} (singular); the real server's is
   * /agents/{name}. Use the real one, and the specification's only when the server has no route
   * for the real one (so a JSON 404 "agent not found" is reported, not retried elsewhere).
   */
  private async deleteWithFallback(
    spec: ResourceSpec,
    req: ResourceRequest,
    path: string,
    options?: RequestOptions,
  ): Promise<void> {
    const opts: RequestOptions = { ...options, gone: spec.gone ?? recordNotFound };
    try {
      await this.client.request('DELETE', path, undefined, opts);
    } catch (err) {
      if (!spec.deleteFallbackCollection || !(err instanceof MindsDBError) || err.kind !== 'unsupported') throw err;
      const project = segment(req.project, 'project');
      const fallback = `/projects/${project}/${spec.deleteFallbackCollection}/${segment(req.name, 'name')}`;
      await this.client.request('DELETE', fallback, undefined, opts);
    }
  }

  /** The server cannot filter skills by agent; each skill lists its agents' ids in agent_ids. */
  private async attachedTo(skills: Json[], project: string, agent: string, opts?: RequestOptions): Promise<Json[]> {
    const record = await withStoredName(
      this.client,
      { resource: 'agent', project },
      agent,
      (name) =>
        this.client.request<Json>(
          'GET',
          `/projects/${segment(project, 'project')}/agents/${segment(name, 'agent')}`,
          undefined,
          opts,
        ),
      { request: opts },
    );
    const id = record?.id;
    return (Array.isArray(skills) ? skills : []).filter(
      (s) => Array.isArray(s.agent_ids) && s.agent_ids.some((a) => String(a) === String(id)),
    );
  }
}

function requireName(req: ResourceRequest, kind: ResourceKind): string {
  const name = req.name ?? (typeof req.payload?.name === 'string' ? req.payload.name : undefined);
  if (!name) throw inputError(`no ${kind} name: set it in the node or in msg.name`);
  return name;
}

/** Turns the server's terse answers for known quirks into errors that say what to do. */
function explain(
  err: unknown,
  kind: ResourceKind,
  operation: ResourceOperation,
  spec: ResourceSpec,
  req: ResourceRequest,
): unknown {
  if (!(err instanceof MindsDBError)) return err;
  if (err.kind === 'unsupported' && spec.missingText) {
    return new MindsDBError(`${spec.missingText}: cannot ${operation} ${kind}s`, { ...err, kind: 'unsupported' });
  }
  // 26.x: a chatbot reads its agent's top-level model_name, which agents made with model: {…} lack.
  if (
    kind === 'chatbot' &&
    (operation === 'create' || operation === 'update') &&
    err.status === 500 &&
    /'NoneType' object has no attribute 'split'/.test(err.serverMessage ?? '')
  ) {
    return new MindsDBError(
      `MindsDB cannot put this chatbot on agent "${String(req.payload?.agent_name ?? '')}": the chatbot needs the ` +
        `agent's top-level model_name, which agents on MindsDB 26.x (model: {…}) do not have (server: 500 ` +
        `${err.serverMessage}). Give the chatbot a model_name instead of agent_name, or use the agent node's ` +
        `completions`,
      { ...err },
    );
  }
  if (
    (operation === 'create' || operation === 'update') &&
    (kind === 'chatbot' || kind === 'knowledge_base') &&
    isCapitalsProjectError(err, req.project)
  ) {
    return new MindsDBError(
      `${capitalsProjectText(`${kind === 'chatbot' ? 'chatbots' : 'knowledge bases'}`, req.project)}; nothing was ` +
        `made (MindsDB answered: ${err.serverMessage})`,
      { ...err },
    );
  }
  if (
    operation === 'update' &&
    !spec.updateCreates &&
    err.status === 400 &&
    /creation is not allowed/i.test(err.serverMessage ?? '')
  ) {
    return new MindsDBError(
      `${kind} "${req.name}" does not exist in project "${req.project}": MindsDB does not create ${kind}s on update, ` +
        `create it first`,
      { ...err },
    );
  }
  return err;
}
