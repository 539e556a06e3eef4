import {
  DatabasesApi, FilesApi, integrationCapabilities, JobsApi, KnowledgeBasesApi, MindsDBClient, MLEnginesApi, ModelsApi,
  ResourcesApi, storedNames, TablesApi, ViewsApi, type ResourceKind,
  isPlainObject as isObject,
} from '../../client';
import { DEFAULT_PROJECT } from '../../schema';
import { DialogTarget, scrubbed } from './admin-target';
import type { NodeAPI } from '../node/red';
import type { ServerNode } from '../node/server';

const ADMIN_TIMEOUT_MS = 10_000;

interface ListRequest {
  server?: unknown;
  project?: unknown;
  /** The server node's current dialog values, when it is new or changed and not yet deployed. */
  config?: unknown;
}

type Lister = (client: MindsDBClient, project: string) => Promise<string[]>;

const names = (records: unknown): string[] =>
  Array.isArray(records)
    ? [...new Set(records.map((r) => (r && typeof r === 'object' ? (r as { name?: unknown }).name : undefined))
      .filter((n): n is string => typeof n === 'string'))].sort()
    : [];

/** A project's records of one kind (chatbots, skills, agents), by name. */
const records = (kind: ResourceKind): Lister => async (c, p) => names(await new ResourcesApi(c).run(kind, 'list', { project: p }));

/**
 * What each picker lists; only names ever go back to the browser. A Map, not an object literal:
 * a route parameter such as "constructor" must not find Object.prototype's members. The routes
 * are the resources' own (src/client/resources): none is written here.
 */
const LISTERS: ReadonlyMap<string, Lister> = new Map<string, Lister>([
  // Not /projects/: it lists every project name lower-cased, even one MindsDB stored with capitals.
  ['projects', async (c) => [...await storedNames(c, { resource: 'project' })].sort()],
  ['models', async (c, p) => names(await new ModelsApi(c).list(p))],
  ['databases', async (c) => {
    const all = await new DatabasesApi(c).list();
    return names(Array.isArray(all) ? all.filter((d) => d && d.type !== 'system' && d.type !== 'project') : []);
  }],
  ['chatbots', records('chatbot')],
  ['skills', records('skill')],
  ['agents', records('agent')],
  ['files', async (c) => names(await new FilesApi(c).list())],
  ['jobs', async (c, p) => names(await new JobsApi(c).list(p))],
  ['knowledge_bases', async (c, p) => names(await new KnowledgeBasesApi(c).list(p))],
  // The table picker sends the data source as its "project".
  ['tables', async (c, db) => names(await new TablesApi(c).list(db))],
  ['views', async (c, p) => names(await new ViewsApi(c).list(p))],
  // Names only: an engine's settings (its masked key, its api_base) never go to the browser.
  ['ml_engines', async (c) => names(await new MLEnginesApi(c).list())],
  ['ml_handlers', async (c) => names(await new MLEnginesApi(c).handlers())],
]);

/** The slice of Express that these routes use. */
interface Req {
  body?: unknown;
  params: Record<string, string>;
  is(type: string): string | false | null;
}
interface Res {
  json(body: unknown): void;
  status(code: number): Res;
}
type Next = (err?: unknown) => void;
type Handler = (req: Req, res: Res, next: Next) => void;

/**
 * Editor endpoints: "Test connection" for the server dialog and name pickers for the action
 * dialogs. They run inside the user's Node-RED with its secrets, so (README, "Reliability and
 * security"):
 * - only application/json bodies: a cross-site HTML form can post urlencoded or text bodies
 *   without a CORS preflight, never JSON;
 * - a read permission lists names through a deployed server node exactly as deployed; dialog
 *   values (a new or changed server) need mindsdb-server.write, as Test connection does;
 * - stored credentials come only from a deployed mindsdb-server node and only for its deployed
 *   URL, API prefix, auth mode and TLS node (src/runtime/editor/admin-target.ts);
 * - no answer carries a secret or a value resolved from `${VAR}`.
 */
export function registerAdminRoutes(RED: NodeAPI): void {
  const needsRead = RED.auth.needsPermission('mindsdb-server.read') as Handler;
  const needsWrite = RED.auth.needsPermission('mindsdb-server.write') as Handler;

  const jsonOnly: Handler = (req, res, next) => {
    if (req.is('application/json')) { next(); return; }
    res.status(415).json({ ok: false, error: 'the MindsDB editor endpoints accept only application/json bodies' });
  };
  /** Dialog values make the runtime connect where the request says: that takes write permission. */
  const writeForDialogValues: Handler = (req, res, next) => {
    if (isObject(req.body) && (req.body as ListRequest).config !== undefined) needsWrite(req, res, next);
    else next();
  };
  const knownList: Handler = (req, res, next) => {
    if (LISTERS.has(req.params.what)) { next(); return; }
    res.status(404).json({ ok: false, error: `cannot list "${req.params.what}"` });
  };

  const deployedServer = (id: unknown): ServerNode | undefined => {
    if (typeof id !== 'string' || id === '') return undefined;
    const node = RED.nodes.getNode(id) as ServerNode | null;
    return node && node.type === 'mindsdb-server' ? node : undefined;
  };

  const temporaryClient = (target: DialogTarget): MindsDBClient =>
    new MindsDBClient({ ...target.clientOptions(), timeoutMs: ADMIN_TIMEOUT_MS, retries: 0, maxInFlight: 2, maxQueue: 10 });

  RED.httpAdmin.post('/mindsdb/test', jsonOnly, needsWrite, async (req: Req, res: Res) => {
    const body = isObject(req.body) ? req.body : {};
    const target = new DialogTarget(RED, body, deployedServer(body.id));
    let client: MindsDBClient | undefined;
    try {
      client = temporaryClient(target);
      const status = await client.status();
      const authEnabled = status.auth?.http_auth_enabled === true;
      // With auth on, prove the credentials with a protected call (status itself is public).
      if (authEnabled) await new DatabasesApi(client).list();
      // What the server can reach through its data sources' own APIs (26.2+); a server without it
      // is still connected, so its error (naming the version) goes in the answer, not in place of it.
      const sensitive = target.sensitiveValues();
      const integrations = await integrationCapabilities(client).then(
        (passthrough) => ({ ok: true, passthrough }),
        (err: unknown) => ({ ok: false, error: scrubbed(err, sensitive) }));
      // Learnt from the login's answer (login mode only): which credentials this server takes.
      const authType = client.httpAuthType;
      res.json({ ok: true, version: status.mindsdb_version ?? 'unknown', authEnabled, authConfirmed: authEnabled, ...(authType ? { authType } : {}), integrations });
    } catch (err) {
      res.json({ ok: false, error: scrubbed(err, target.sensitiveValues()) });
    } finally {
      client?.close(0).catch(() => undefined);
    }
  });

  RED.httpAdmin.post('/mindsdb/list/:what', jsonOnly, needsRead, knownList, writeForDialogValues, async (req: Req, res: Res) => {
    const lister = LISTERS.get(req.params.what) as Lister;
    const body: ListRequest = isObject(req.body) ? req.body : {};
    const project = typeof body.project === 'string' && body.project !== '' ? body.project : DEFAULT_PROJECT;
    const deployed = deployedServer(body.server);
    const target = body.config !== undefined
      ? new DialogTarget(RED, isObject(body.config) ? body.config : {}, deployed)
      : undefined;
    let temporary: MindsDBClient | undefined;
    try {
      const client = target ? (temporary = temporaryClient(target)) : deployed?.client;
      if (!client) {
        const why = deployed ? `the MindsDB server node is not usable: ${deployed.configError ?? 'unknown problem'}` : 'choose a deployed MindsDB server first';
        res.json({ ok: false, error: scrubbed(why, DialogTarget.deployedSecrets(RED, deployed)) });
        return;
      }
      res.json({ ok: true, items: await lister(client, project) });
    } catch (err) {
      res.json({ ok: false, error: scrubbed(err, target ? target.sensitiveValues() : DialogTarget.deployedSecrets(RED, deployed)) });
    } finally {
      temporary?.close(0).catch(() => undefined);
    }
  });
}
