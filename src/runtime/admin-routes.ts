import { MindsDBClient, segment } from '../client';
import type { ServerNodeConfig, ServerNodeCredentials } from './node-configs';
import type { NodeAPI } from './red';
import type { ServerNode } from './server';
import { clientOptionsFrom } from './server-options';

/** Node-RED shows a stored password to the editor as this placeholder, never the secret itself. */
const STORED_SECRET = '__PWRD__';
const CREDENTIAL_KEYS = ['session', 'username', 'password', 'token'] as const;
const ADMIN_TIMEOUT_MS = 10_000;

/** Dialog values posted by the editor (they may not be deployed yet). */
interface DialogServerValues extends Partial<ServerNodeConfig> {
  credentials?: ServerNodeCredentials;
}

interface ListRequest {
  server?: string;
  project?: string;
  /** The server node's current dialog values, when it is new or changed and not yet deployed. */
  config?: DialogServerValues;
}

/**
 * Node-RED substitutes a property that is wholly `${VAR}` when a flow starts; dialog values have
 * not been through that yet, so do the same here.
 */
function withEnv(value: string | undefined): string | undefined {
  const m = typeof value === 'string' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value.trim()) : null;
  return m ? process.env[m[1]] ?? '' : value;
}

type Lister = (client: MindsDBClient, project: string) => Promise<string[]>;

const names = (records: unknown): string[] =>
  Array.isArray(records)
    ? [...new Set(records.map((r) => (r && typeof r === 'object' ? (r as { name?: unknown }).name : undefined))
      .filter((n): n is string => typeof n === 'string'))].sort()
    : [];

/** What each picker lists; only names ever go back to the browser. */
const LISTERS: Record<string, Lister> = {
  projects: async (c) => names(await c.request('GET', '/projects/')),
  models: async (c, p) => names(await c.request('GET', `/projects/${segment(p, 'project')}/models`)),
  databases: async (c) => names(((await c.request('GET', '/databases/')) as Array<{ type?: string }> | null ?? [])
    .filter((d) => d && d.type !== 'system' && d.type !== 'project')),
  chatbots: async (c, p) => names(await c.request('GET', `/projects/${segment(p, 'project')}/chatbots`)),
  skills: async (c, p) => names(await c.request('GET', `/projects/${segment(p, 'project')}/skills`)),
  agents: async (c, p) => names(await c.request('GET', `/projects/${segment(p, 'project')}/agents`)),
};

/**
 * Editor endpoints: "Test connection" for the server dialog and name pickers for the action
 * dialogs. Both work from the dialog's current values before anything is deployed; secrets the
 * editor does not have (shown as placeholders) are taken from the stored credentials of that
 * node id, and nothing secret is ever sent back.
 */
export function registerAdminRoutes(RED: NodeAPI): void {
  type Req = { body?: unknown; params: Record<string, string> };
  type Res = { json(body: unknown): void; status(code: number): Res };

  const temporaryClient = (id: string | undefined, values: DialogServerValues): MindsDBClient => {
    const stored = (id ? RED.nodes.getCredentials(id) : undefined) as ServerNodeCredentials | undefined;
    const creds: ServerNodeCredentials = {};
    for (const key of CREDENTIAL_KEYS) {
      const typed = values.credentials?.[key];
      creds[key] = withEnv(typed === undefined || typed === STORED_SECRET || typed === '' ? stored?.[key] : typed);
    }
    const resolved = { ...values, url: withEnv(values.url), apiPrefix: withEnv(values.apiPrefix) };
    return new MindsDBClient({ ...clientOptionsFrom(RED, resolved, creds), timeoutMs: ADMIN_TIMEOUT_MS, retries: 0, maxInFlight: 2, maxQueue: 10 });
  };

  const failure = (err: unknown): { ok: false; error: string } => ({ ok: false, error: err instanceof Error ? err.message : String(err) });

  RED.httpAdmin.post('/mindsdb/test', RED.auth.needsPermission('mindsdb-server.write'), async (req: Req, res: Res) => {
    const body = (req.body ?? {}) as DialogServerValues & { id?: string };
    let client: MindsDBClient | undefined;
    try {
      client = temporaryClient(body.id, body);
      const status = await client.status();
      const authEnabled = status.auth?.http_auth_enabled === true;
      // With auth on, prove the credentials with a protected call (status itself is public).
      if (authEnabled) await client.request('GET', '/projects/');
      res.json({ ok: true, version: status.mindsdb_version ?? 'unknown', authEnabled, authConfirmed: authEnabled });
    } catch (err) {
      res.json(failure(err));
    } finally {
      client?.close(0).catch(() => undefined);
    }
  });

  RED.httpAdmin.post('/mindsdb/list/:what', RED.auth.needsPermission('mindsdb-server.read'), async (req: Req, res: Res) => {
    const lister = LISTERS[req.params.what];
    if (!lister) { res.status(404).json({ ok: false, error: `cannot list "${req.params.what}"` }); return; }
    const body = (req.body ?? {}) as ListRequest;
    const deployed = body.server ? (RED.nodes.getNode(body.server) as ServerNode | null) : null;
    let temporary: MindsDBClient | undefined;
    try {
      const client = body.config ? (temporary = temporaryClient(body.server, body.config)) : deployed?.client;
      if (!client) { res.json({ ok: false, error: 'choose a MindsDB server first' }); return; }
      res.json({ ok: true, items: await lister(client, body.project || 'mindsdb') });
    } catch (err) {
      res.json(failure(err));
    } finally {
      temporary?.close(0).catch(() => undefined);
    }
  });
}
