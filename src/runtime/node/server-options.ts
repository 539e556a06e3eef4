import type { AuthOptions, ClientOptions, TlsOptions } from '../../client';
import type { AuthMode, ServerNodeConfig, ServerNodeCredentials } from '../../schema';
import { proxyFor } from './proxy';
import type { Node, NodeAPI } from './red';

/** Core's tls-config node, as far as we use it. */
interface TlsConfigNode extends Node {
  addTLSOptions(opts: Record<string, unknown>): void;
}

/**
 * Client options from a server node's config (read through its declaration) and credentials; the admin routes use it
 * too.
 */
export function clientOptionsFrom(RED: NodeAPI, config: ServerNodeConfig, creds: ServerNodeCredentials): ClientOptions {
  return {
    baseUrl: config.url.trim(),
    apiPrefix: config.apiPrefix,
    auth: authFrom(config.authMode, creds),
    tenant: { companyId: config.companyId, userId: config.userId },
    timeoutMs: config.timeout,
    retries: config.retries,
    retryPost: config.retryPost,
    maxInFlight: config.maxInFlight,
    maxQueue: config.maxQueue,
    maxResponseBytes: config.maxResponseMB * 1024 * 1024,
    tls: tlsOptionsOf(RED, config.tls) as TlsOptions | undefined,
    proxy: proxyFor(RED, config.url.trim(), config.proxyMode, config.proxy).proxy,
  };
}

function authFrom(mode: AuthMode, creds: ServerNodeCredentials): AuthOptions {
  switch (mode) {
    case 'session':
      if (!creds.session) throw new Error('auth mode "session cookie" needs the session cookie in the server node');
      return { mode, session: creds.session };
    case 'login':
      if (!creds.username || !creds.password)
        throw new Error('auth mode "login" needs a username and a password in the server node');
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

/** The TLS options of core's tls-config node `tlsId` (certificates read by it), or undefined for none. */
export function tlsOptionsOf(RED: NodeAPI, tlsId: string | undefined): Record<string, unknown> | undefined {
  if (!tlsId) return undefined;
  const tlsNode = RED.nodes.getNode(tlsId) as TlsConfigNode | null;
  if (!tlsNode || typeof tlsNode.addTLSOptions !== 'function') return undefined;
  const opts: Record<string, unknown> = {};
  tlsNode.addTLSOptions(opts);
  return opts;
}
