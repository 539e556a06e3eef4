import type { ProxyOptions } from '../../client';
import type { Node, NodeAPI } from './red';

/**
 * Which proxy a server node's requests go through, decided the way Node-RED core's http request
 * node decides it (@node-red/nodes/core/network/lib/proxyHelper.js, 4.x and 5.x), so that a flow
 * behind a proxy reaches MindsDB wherever the core node reaches the web:
 * - `env` (the default): the environment, like cURL: for an http:// URL `http_proxy`, for an
 *   https:// one `https_proxy`, then `all_proxy` (each also as npm_config_…, lower case before
 *   upper case), unless `no_proxy` lists the host (`host`, `.domain`, `*.domain`, `host:port`, `*`);
 *   the runtime's `proxyOptions` setting (mode strict/legacy, lowerCaseOnly, favourUpperCase,
 *   excludeNpm) and NR_PROXY_MODE apply as they do to core;
 * - `node`: core's `http proxy` configuration node (its URL, its no-proxy list, its username and
 *   password, kept in Node-RED's credentials);
 * - `none`: no proxy, whatever the environment says.
 * The proxy's credentials go only to the proxy (Proxy-Authorization), never into a log, an error
 * or a msg (the client's redactor knows them).
 */
export type ProxyMode = 'env' | 'none' | 'node';

/** The proxy a server node uses, and where it came from (for Test connection: a name, never the URL). */
export interface ProxyChoice {
  proxy?: ProxyOptions;
  /** The environment variable that named it (as spelt), or "http proxy node". */
  source?: string;
}

/** Core's `http proxy` config node, as far as we use it. */
interface HttpProxyNode extends Node {
  url?: string;
  noproxy?: string[];
}

/** The runtime's `proxyOptions` setting, as core's proxy helper reads it. */
export interface ProxyRules {
  mode?: 'strict' | 'legacy';
  lowerCaseOnly?: boolean;
  favourUpperCase?: boolean;
  excludeNpm?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The proxy for a server node at `url`, by its mode. Throws a clear error for a proxy node that is missing. */
export function proxyFor(
  RED: NodeAPI,
  url: string,
  mode: ProxyMode | undefined,
  proxyNodeId: string | undefined,
): ProxyChoice {
  const rules = (RED.settings as unknown as { proxyOptions?: ProxyRules }).proxyOptions ?? {};
  if (mode === 'none') return {};
  if (mode === 'node') {
    const node = proxyNodeId ? (RED.nodes.getNode(proxyNodeId) as HttpProxyNode | null) : null;
    if (node?.type !== 'http proxy')
      throw new Error(
        'proxy "http proxy node" needs a deployed http proxy configuration node: choose one in the server node',
      );
    const env = { http_proxy: node.url, https_proxy: node.url, no_proxy: (node.noproxy ?? []).join(',') };
    const found = envProxy(url, env, rules);
    if (!found) return {};
    const { username, password } = (node.credentials ?? {}) as { username?: string; password?: string };
    return {
      proxy: { url: found.url, username: username || undefined, password: password || undefined },
      source: 'http proxy node',
    };
  }
  const found = envProxy(url, process.env, rules);
  return found ? { proxy: { url: found.url }, source: found.name } : {};
}

/**
 * Core's getProxyForUrl: the proxy URL for `target` and the variable that named it, or undefined
 * (no proxy variable, a NO_PROXY match, or a target that is not a URL).
 */
export function envProxy(target: string, env: Env, rules: ProxyRules = {}): { url: string; name: string } | undefined {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return undefined;
  }
  const proto = u.protocol.replace(/:$/, '');
  const modeOverride = env.NR_PROXY_MODE;
  const mode = modeOverride === 'legacy' || modeOverride === 'strict' ? modeOverride : (rules.mode ?? 'strict');
  if (mode === 'legacy') return legacyProxy(target, env);
  const hostname = u.host.replace(/:\d*$/, '');
  const port = Number.parseInt(u.port, 10) || DEFAULT_PORTS[proto] || 0;
  if (!shouldProxy(hostname, port, env, rules)) return undefined;
  for (const key of [`npm_config_${proto}_proxy`, `${proto}_proxy`, 'npm_config_proxy', 'all_proxy']) {
    const found = lookup(key, env, rules);
    if (found)
      return { url: found.value.includes('://') ? found.value : `${proto}://${found.value}`, name: found.name };
  }
  return undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443 };

/** Core's legacy mode (Node-RED ≤ 3.1): http_proxy / HTTP_PROXY for every URL, no_proxy entries as substrings. */
function legacyProxy(target: string, env: Env): { url: string; name: string } | undefined {
  const name = env.HTTP_PROXY ? 'HTTP_PROXY' : env.http_proxy ? 'http_proxy' : undefined;
  const noProxy = env.NO_PROXY ?? env.no_proxy;
  // Core reads an empty NO_PROXY as none (every URL would contain the empty entry).
  const entries = noProxy ? noProxy.split(',') : [];
  if (entries.some((entry) => target.includes(entry.trim()))) return undefined;
  return name ? { url: env[name] as string, name } : undefined;
}

function shouldProxy(hostname: string, port: number, env: Env, rules: ProxyRules): boolean {
  const noProxy = (
    lookup('npm_config_no_proxy', env, rules)?.value ||
    lookup('no_proxy', env, rules)?.value ||
    ''
  ).toLowerCase();
  if (!noProxy) return true;
  if (noProxy === '*') return false;
  return noProxy.split(/[,\s]/).every((entry) => {
    if (!entry) return true;
    const m = /^(.+):(\d+)$/.exec(entry);
    let host = m ? m[1] : entry;
    const entryPort = m ? Number.parseInt(m[2], 10) : 0;
    if (entryPort && entryPort !== port) return true;
    if (!/^[.*]/.test(host)) return hostname !== host;
    if (host.startsWith('*')) host = host.slice(1);
    return !hostname.endsWith(host);
  });
}

/**
 * An environment variable as core's getEnv reads it (lower case first, unless the rules say otherwise), and its name as
 * spelt.
 */
function lookup(key: string, env: Env, rules: ProxyRules): { name: string; value: string } | undefined {
  if (rules.excludeNpm && key.startsWith('npm_config_')) return undefined;
  const lower = key.toLowerCase();
  const upper = key.toUpperCase();
  const order = rules.lowerCaseOnly ? [lower] : rules.favourUpperCase ? [upper, lower] : [lower, upper];
  for (const name of order) {
    const value = env[name];
    if (value) return { name, value };
  }
  return undefined;
}
