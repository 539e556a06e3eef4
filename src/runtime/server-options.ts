import type { AuthOptions, ClientOptions, TlsOptions } from '../client';
import type { AuthMode, ServerNodeConfig, ServerNodeCredentials } from './node-configs';
import { configCount, configNumber } from './properties';
import type { Node, NodeAPI } from './red';

/** Core's tls-config node, as far as we use it. */
interface TlsConfigNode extends Node {
  addTLSOptions(opts: Record<string, unknown>): void;
}

/** Client options from a server node's saved config and credentials (also used by the admin routes). */
export function clientOptionsFrom(RED: NodeAPI, config: Partial<ServerNodeConfig>, creds: ServerNodeCredentials): ClientOptions {
  return {
    baseUrl: (config.url || 'http://127.0.0.1:47334').trim(),
    apiPrefix: config.apiPrefix ?? '/api',
    auth: authFrom(config.authMode ?? 'none', creds),
    timeoutMs: configNumber(config.timeout, 60_000),
    retries: configCount(config.retries, 2),
    retryPost: config.retryPost === true,
    maxInFlight: Math.floor(configNumber(config.maxInFlight, 8)),
    maxQueue: Math.floor(configNumber(config.maxQueue, 1000)),
    maxResponseBytes: configNumber(config.maxResponseMB, 64) * 1024 * 1024,
    tls: tlsFrom(RED, config.tls),
  };
}

function authFrom(mode: AuthMode, creds: ServerNodeCredentials): AuthOptions {
  switch (mode) {
    case 'session':
      if (!creds.session) throw new Error('auth mode "session cookie" needs the session cookie in the server node');
      return { mode, session: creds.session };
    case 'login':
      if (!creds.username || !creds.password) throw new Error('auth mode "login" needs a username and a password in the server node');
      return { mode, username: creds.username, password: creds.password };
    case 'token':
      if (!creds.token) throw new Error('auth mode "bearer token" needs the token in the server node');
      return { mode, token: creds.token };
    case 'none':
      return { mode: 'none' };
    default:
      throw new Error(`unknown auth mode "${String(mode)}"`);
  }
}

function tlsFrom(RED: NodeAPI, tlsId: string | undefined): TlsOptions | undefined {
  if (!tlsId) return undefined;
  const tlsNode = RED.nodes.getNode(tlsId) as TlsConfigNode | null;
  if (!tlsNode || typeof tlsNode.addTLSOptions !== 'function') return undefined;
  const opts: Record<string, unknown> = {};
  tlsNode.addTLSOptions(opts);
  return opts as TlsOptions;
}

