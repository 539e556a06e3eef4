import { describeType, inputError, MindsDBError, type MindsDBClient } from '../../client';
import type { Msg, Node, NodeAPI } from './red';

/** What an action node sees of a mindsdb-server config node. */
export interface ServerNode extends Node {
  client?: MindsDBClient;
  /** Why the client could not be built (bad URL …), shown on every message. */
  configError?: string;
  /** The URL as deployed, after Node-RED's `${VAR}` substitution (the editor endpoints never quote it). */
  resolvedUrl?: string;
  /** The mindsdb-state-store node the nodes on this server keep their state in; blank: the embedded file. */
  stateStore?: string;
}

/** The servers an action node may use: its own, and those a message may choose by name (msg.server). */
export interface ServerChoice {
  server: string;
  servers: readonly string[];
}

/**
 * The client a message goes to: the node's own server, or the one `msg.server` names among the
 * servers the user listed in the node's dialog (Node-RED's rule for database nodes: a message
 * chooses among what the user configured, never a URL, credential or header of its own). Throws a
 * clear error (which becomes that message's Catch-able error) when the node has no server, the
 * server config is broken, or msg.server names no server the node may use. `keeps` says what state
 * the node keeps for its own server (an incremental position, conversations, an outbox): then
 * msg.server may name only that server.
 */
export function clientFor(RED: NodeAPI, choice: ServerChoice, msg?: Msg, keeps?: string): MindsDBClient {
  const named = msg?.server;
  if (named === undefined || named === null || named === '') return clientOf(RED, choice.server);
  const id = chosenServer(RED, choice, named);
  // State the node keeps (a position, conversations, an outbox) belongs to its own server's data.
  if (keeps !== undefined && id !== choice.server) {
    throw inputError(
      `msg.server ${JSON.stringify(named)} cannot choose another server for this node: it keeps ${keeps} for its own ` +
        `server; use a node of its own for that server`,
    );
  }
  return clientOf(RED, id);
}

/** The id of the server that msg.server names, among the node's own and those listed in its dialog. */
function chosenServer(RED: NodeAPI, choice: ServerChoice, named: unknown): string {
  if (typeof named !== 'string') {
    throw inputError(`msg.server must be the name of a MindsDB server node (got ${describeType(named)})`);
  }
  if (choice.servers.length === 0) {
    throw inputError(
      `msg.server is ${JSON.stringify(named)}, but this node lets no message choose its server: list the servers a ` +
        `message may choose in its dialog (Servers by msg.server), or remove msg.server`,
    );
  }
  const allowed = new Map<string, string[]>();
  for (const id of new Set([choice.server, ...choice.servers])) {
    const name = (RED.nodes.getNode(id) as ServerNode | null)?.name;
    if (typeof name === 'string' && name !== '') allowed.set(name, [...(allowed.get(name) ?? []), id]);
  }
  const ids = allowed.get(named);
  if (!ids) {
    const names = [...allowed.keys()].map((n) => JSON.stringify(n)).join(', ');
    throw inputError(
      `msg.server ${JSON.stringify(named)} is not a server this node may use: ` +
        `${names ? `choose one of ${names}` : 'none of the servers listed in its dialog has a name'} (a server ` +
        `node's name, as listed in the node's dialog)`,
    );
  }
  if (ids.length > 1) {
    throw inputError(
      `msg.server ${JSON.stringify(named)} names ${ids.length} of the servers this node may use: give each server ` +
        `node a name of its own`,
    );
  }
  return ids[0];
}

/** The client of a server node, or the error that says why there is none. */
function clientOf(RED: NodeAPI, serverId: string | undefined): MindsDBClient {
  const server = serverId ? (RED.nodes.getNode(serverId) as ServerNode | null) : null;
  if (!server) {
    throw new MindsDBError('no MindsDB server is configured for this node: open it and choose a server', {
      kind: 'input',
    });
  }
  if (!server.client) {
    throw new MindsDBError(
      `the MindsDB server configuration is not usable: ${server.configError ?? 'unknown problem'}`,
      { kind: 'input' },
    );
  }
  return server.client;
}

/** Each action node's server node, as its config named it when it started (see `startNode`). */
const serverOfNode = new WeakMap<Node, { RED: NodeAPI; serverId: string }>();

/** Remembers the server node an action node uses, for what watches it on the node's behalf (its status ring). */
export function rememberServer(RED: NodeAPI, node: Node, serverId: unknown): void {
  if (typeof serverId === 'string' && serverId !== '') serverOfNode.set(node, { RED, serverId });
}

/** The server node `node` uses, as deployed (undefined when it has none). */
export function serverNodeOf(node: Node): ServerNode | undefined {
  const used = serverOfNode.get(node);
  return used ? ((used.RED.nodes.getNode(used.serverId) as ServerNode | null) ?? undefined) : undefined;
}

/** The client of the server node `node` uses, if it has one that works (undefined otherwise: its messages say why). */
export function clientOfNode(node: Node): MindsDBClient | undefined {
  const used = serverOfNode.get(node);
  if (!used) return undefined;
  return (used.RED.nodes.getNode(used.serverId) as ServerNode | null)?.client;
}

const clientKeys = new WeakMap<MindsDBClient, string>();
let nextClientKey = 0;

/**
 * A short text that tells one server's client from another's, for keys that must keep servers
 * apart (a micro-batch goes to one server: messages that chose another never join it).
 */
export function clientKey(client: MindsDBClient): string {
  let key = clientKeys.get(client);
  if (key === undefined) {
    key = String(nextClientKey++);
    clientKeys.set(client, key);
  }
  return key;
}
