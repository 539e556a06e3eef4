import { isPlainObject as isObject, MindsDBClient, type ClientOptions } from '../../client';
import type { NodeAPI } from '../node/red';
import type { ServerNode } from '../node/server';
import { DialogTarget, scrubbed } from './admin-target';

/**
 * What every editor endpoint shares: they run inside the user's Node-RED with its secrets, so
 * (README, "Reliability and security"):
 * - only application/json bodies: a cross-site HTML form can post urlencoded or text bodies
 *   without a CORS preflight, never JSON (`jsonOnly`);
 * - each route asks for the narrowest permission that fits it, and dialog values (a new or
 *   changed server node, not deployed) make the runtime connect where the request says, which
 *   takes mindsdb-server.write on top (`writeForDialogValues`);
 * - stored credentials come only from a deployed mindsdb-server node and only for its deployed
 *   URL, API prefix, auth mode, TLS node and tenant (./admin-target.ts);
 * - no answer carries a secret or a value resolved from `${VAR}` (`ServerChoice.scrub`).
 */

/** The slice of Express that these routes use. */
export interface Req {
  body?: unknown;
  params: Record<string, string>;
  is(type: string): string | false | null;
}
export interface Res {
  json(body: unknown): void;
  status(code: number): Res;
}
type Next = (err?: unknown) => void;
export type Handler = (req: Req, res: Res, next: Next) => void;

const ADMIN_TIMEOUT_MS = 10_000;

export const jsonOnly: Handler = (req, res, next) => {
  if (req.is('application/json')) {
    next();
    return;
  }
  res.status(415).json({ ok: false, error: 'the MindsDB editor endpoints accept only application/json bodies' });
};

/** Node-RED's permission check for `permission` ('mindsdb-server.read', 'flows.write' …). */
export const needs = (RED: NodeAPI, permission: string): Handler => RED.auth.needsPermission(permission) as Handler;

/** Dialog values make the runtime connect where the request says: that takes write permission. */
export function writeForDialogValues(RED: NodeAPI): Handler {
  const needsWrite = needs(RED, 'mindsdb-server.write');
  return (req, res, next) => {
    if (isObject(req.body) && req.body.config !== undefined) needsWrite(req, res, next);
    else next();
  };
}

/** A deployed mindsdb-server node by id; any other node's id is no server. */
export function deployedServer(RED: NodeAPI, id: unknown): ServerNode | undefined {
  if (typeof id !== 'string' || id === '') return undefined;
  const node = RED.nodes.getNode(id) as ServerNode | null;
  return node && node.type === 'mindsdb-server' ? node : undefined;
}

/** A client of its own for one editor request, on the dialog's values (`settings` change its request settings). */
export function temporaryClient(target: DialogTarget, settings: Partial<ClientOptions> = {}): MindsDBClient {
  return new MindsDBClient({
    ...target.clientOptions(),
    timeoutMs: ADMIN_TIMEOUT_MS,
    retries: 0,
    maxInFlight: 2,
    maxQueue: 10,
    ...settings,
  });
}

/**
 * The server an endpoint's request names ({server, config?}): the deployed server node's own
 * client, exactly as deployed, or with `config` (a new or changed node) a client of its own on
 * those values. `run` gets the client; whatever it throws comes back as `{ok: false, error}`
 * with every secret and `${VAR}` value scrubbed from it; a temporary client is closed after.
 */
export async function withServer(
  RED: NodeAPI,
  body: Record<string, unknown>,
  res: Res,
  run: (client: MindsDBClient) => Promise<Record<string, unknown>>,
  settings?: (target: DialogTarget) => Partial<ClientOptions>,
): Promise<void> {
  const deployed = deployedServer(RED, body.server);
  const target =
    body.config !== undefined ? new DialogTarget(RED, isObject(body.config) ? body.config : {}, deployed) : undefined;
  const sensitive = (): string[] => (target ? target.sensitiveValues() : DialogTarget.deployedSecrets(RED, deployed));
  let temporary: MindsDBClient | undefined;
  try {
    const client = target ? (temporary = temporaryClient(target, settings?.(target))) : deployed?.client;
    if (!client) {
      const why = deployed
        ? `the MindsDB server node is not usable: ${deployed.configError ?? 'unknown problem'}`
        : 'choose a deployed MindsDB server first';
      res.json({ ok: false, error: scrubbed(why, sensitive()) });
      return;
    }
    res.json({ ok: true, ...(await run(client)) });
  } catch (err) {
    res.json({ ok: false, error: scrubbed(err, sensitive()) });
  } finally {
    temporary?.close(0).catch(() => undefined);
  }
}
