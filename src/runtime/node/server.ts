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
