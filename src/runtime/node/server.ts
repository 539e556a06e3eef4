import { MindsDBError, type MindsDBClient } from '../../client';
import type { Node, NodeAPI } from './red';

/** What an action node sees of a mindsdb-server config node. */
export interface ServerNode extends Node {
  client?: MindsDBClient;
  /** Why the client could not be built (bad URL …), shown on every message. */
  configError?: string;
  /** The URL as deployed, after Node-RED's `${VAR}` substitution (the editor endpoints never quote it). */
  resolvedUrl?: string;
}

/**
 * The client of the config node an action node points at. Throws a clear error (which becomes
 * that message's Catch-able error) when the node has no server or the server config is broken.
 */
export function clientFor(RED: NodeAPI, serverId: string | undefined): MindsDBClient {
  const server = serverId ? (RED.nodes.getNode(serverId) as ServerNode | null) : null;
  if (!server) {
    throw new MindsDBError('no MindsDB server is configured for this node: open it and choose a server', { kind: 'input' });
  }
  if (!server.client) {
    throw new MindsDBError(`the MindsDB server configuration is not usable: ${server.configError ?? 'unknown problem'}`, { kind: 'input' });
  }
  return server.client;
}

/** Each action node's server node, as its config named it when it started (see `startNode`). */
const serverOfNode = new WeakMap<Node, { RED: NodeAPI; serverId: string }>();

/** Remembers the server node an action node uses, for what watches it on the node's behalf (its status ring). */
export function rememberServer(RED: NodeAPI, node: Node, serverId: unknown): void {
  if (typeof serverId === 'string' && serverId !== '') serverOfNode.set(node, { RED, serverId });
}

/** The client of the server node `node` uses, if it has one that works (undefined otherwise: its messages say why). */
export function clientOfNode(node: Node): MindsDBClient | undefined {
  const used = serverOfNode.get(node);
  if (!used) return undefined;
  return (used.RED.nodes.getNode(used.serverId) as ServerNode | null)?.client;
}
