import {
  DatabasesApi,
  FilesApi,
  integrationCapabilities,
  isPlainObject as isObject,
  JobsApi,
  KnowledgeBasesApi,
  type MindsDBClient,
  MLEnginesApi,
  ModelsApi,
  ResourcesApi,
  storedNames,
  TablesApi,
  ViewsApi,
  type ResourceKind,
} from '../../client';
import { DEFAULT_PROJECT } from '../../schema';
import { registerExplorerRoutes } from './admin-explorer';
import { registerKnowledgeBaseSearchRoute } from './admin-kb-search';
import {
  deployedServer,
  jsonOnly,
  needs,
  temporaryClient,
  withServer,
  writeForDialogValues,
  type Handler,
  type Req,
  type Res,
} from './admin-guards';
import { DialogTarget, scrubbed } from './admin-target';
import type { NodeAPI } from '../node/red';

interface ListRequest extends Record<string, unknown> {
  server?: unknown;
  project?: unknown;
  /** The server node's current dialog values, when it is new or changed and not yet deployed. */
  config?: unknown;
}

type Lister = (client: MindsDBClient, project: string) => Promise<string[]>;

const names = (records: unknown): string[] =>
  Array.isArray(records)
    ? [
        ...new Set(
          records
            .map((r) => (r && typeof r === 'object' ? (r as { name?: unknown }).name : undefined))
            .filter((n): n is string => typeof n === 'string'),
        ),
      ].sort()
    : [];

/** A project's records of one kind (chatbots, skills, agents), by name. */
const records =
  (kind: ResourceKind): Lister =>
  async (c, p) =>
    names(await new ResourcesApi(c).run(kind, 'list', { project: p }));

/**
 * What each picker lists; only names ever go back to the browser. A Map, not an object literal:
 * a route parameter such as "constructor" must not find Object.prototype's members. The routes
 * are the resources' own (src/client/resources): none is written here.
 */
const LISTERS: ReadonlyMap<string, Lister> = new Map<string, Lister>([
  // Not /projects/: it lists every project name lower-cased, even one MindsDB stored with capitals.
  ['projects', async (c) => [...(await storedNames(c, { resource: 'project' }))].sort()],
  ['models', async (c, p) => names(await new ModelsApi(c).list(p))],
  [
    'databases',
    async (c) => {
      const all = await new DatabasesApi(c).list();
      return names(Array.isArray(all) ? all.filter((d) => d && d.type !== 'system' && d.type !== 'project') : []);
    },
  ],
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

/**
 * Editor endpoints: "Test connection" for the server dialog and name pickers for the action
 * dialogs, under the guards every editor endpoint has (./admin-guards.ts): JSON bodies only; a
 * read permission lists names through a deployed server node exactly as deployed, and dialog
 * values need mindsdb-server.write, as Test connection does; stored credentials only where the
 * node is deployed to; no secret in an answer. The sidebar's tree and the SQL preview are in
 * ./admin-explorer.ts.
 */
export function registerAdminRoutes(RED: NodeAPI): void {
  const needsRead = needs(RED, 'mindsdb-server.read');
  const needsWrite = needs(RED, 'mindsdb-server.write');
  const knownList: Handler = (req, res, next) => {
    if (LISTERS.has(req.params.what)) {
      next();
      return;
    }
    res.status(404).json({ ok: false, error: `cannot list "${req.params.what}"` });
  };

  RED.httpAdmin.post('/mindsdb/test', jsonOnly, needsWrite, async (req: Req, res: Res) => {
    const body = isObject(req.body) ? req.body : {};
    const target = new DialogTarget(RED, body, deployedServer(RED, body.id));
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
        (err: unknown) => ({ ok: false, error: scrubbed(err, sensitive) }),
      );
      // Learnt from the login's answer (login mode only): which credentials this server takes.
      const authType = client.httpAuthType;
      // Through a proxy: said by where it came from (a variable's name or the proxy node), never by its URL.
      const proxy = client.proxy ? { proxy: target.proxySource ?? 'proxy' } : {};
      res.json({
        ok: true,
        version: status.mindsdb_version ?? 'unknown',
        authEnabled,
        authConfirmed: authEnabled,
        ...(authType ? { authType } : {}),
        ...proxy,
        integrations,
      });
    } catch (err) {
      res.json({ ok: false, error: scrubbed(err, target.sensitiveValues()) });
    } finally {
      client?.close(0).catch(() => undefined);
    }
  });

  RED.httpAdmin.post(
    '/mindsdb/list/:what',
    jsonOnly,
    needsRead,
    knownList,
    writeForDialogValues(RED),
    async (req: Req, res: Res) => {
      const lister = LISTERS.get(req.params.what) as Lister;
      const body: ListRequest = isObject(req.body) ? req.body : {};
      const project = typeof body.project === 'string' && body.project !== '' ? body.project : DEFAULT_PROJECT;
      await withServer(RED, body, res, async (client) => ({ items: await lister(client, project) }));
    },
  );

  registerExplorerRoutes(RED);
  registerKnowledgeBaseSearchRoute(RED);
}
