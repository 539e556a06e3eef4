import { isPlainObject, normalisePrefix, type ClientOptions } from '../../client';
import { parseConfig, SERVER_NODE, type ServerNodeCredentials } from '../../schema';
import type { NodeAPI } from '../node/red';
import { RuntimeEnv } from './runtime-env';
import type { ServerNode } from '../node/server';
import { proxyFor } from '../node/proxy';
import { clientOptionsFrom } from '../node/server-options';

/** Node-RED shows a stored password to the editor as this placeholder, never the secret itself. */
export const STORED_SECRET = '__PWRD__';
const CREDENTIAL_KEYS = ['session', 'username', 'password', 'token'] as const;

/**
 * A server node's dialog values posted by the editor (possibly never deployed), turned into client
 * options under the editor endpoints' rules:
 * - stored credentials fill the dialog's gaps only from a deployed mindsdb-server node, and only
 *   while the dialog still points where that node is deployed to (URL, API prefix, auth mode, TLS
 *   node, proxy): a changed target must bring its own secrets, so no request can send a stored password
 *   to a URL it chose;
 * - `${VAR}` is resolved exactly as the runtime resolves it for a deployed node, through its own
 *   lookup and with its `envVarExcludes` (./runtime-env.ts); the routes build a DialogTarget only
 *   for requests with write permission, and every resolved value is remembered as sensitive so
 *   that no error text repeats it.
 */
export class DialogTarget {
  private readonly sensitive = new Set<string>();
  private readonly env: RuntimeEnv;
  /** Where the proxy of the last clientOptions() came from (an environment variable's name, or the proxy node). */
  proxySource: string | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly values: Record<string, unknown>,
    private readonly deployed?: ServerNode,
  ) {
    this.env = new RuntimeEnv(RED, deployed);
  }

  clientOptions(): ClientOptions {
    const stored = this.storedCredentialsForSameTarget();
    const typed = isPlainObject(this.values.credentials) ? this.values.credentials : {};
    const creds: ServerNodeCredentials = {};
    let placeholderWithoutStore = false;
    for (const key of CREDENTIAL_KEYS) {
      const value = typed[key];
      if (typeof value === 'string' && value !== '' && value !== STORED_SECRET) {
        creds[key] = this.resolve(value);
        this.remember(creds[key]);
      } else if (stored) {
        creds[key] = stored[key];
      } else if (value === STORED_SECRET) {
        placeholderWithoutStore = true;
      }
    }
    // The connection the dialog describes, its timeout and answer limit (the preview keeps them);
    // the other request settings are the admin routes' own.
    const { config } = parseConfig(SERVER_NODE, {
      timeout: this.values.timeout,
      maxResponseMB: this.values.maxResponseMB,
      url: this.resolve(text(this.values.url)),
      apiPrefix: this.resolve(text(this.values.apiPrefix) || '/api'),
      authMode: text(this.values.authMode) || 'none',
      tls: text(this.values.tls),
      proxyMode: text(this.values.proxyMode) || 'env',
      proxy: text(this.values.proxy),
      companyId: this.resolve(text(this.values.companyId)),
      userId: this.resolve(text(this.values.userId)),
    });
    try {
      const options = clientOptionsFrom(this.RED, config, creds);
      this.proxySource = options.proxy
        ? proxyFor(this.RED, config.url.trim(), config.proxyMode, config.proxy).source
        : undefined;
      return options;
    } catch (err) {
      if (!placeholderWithoutStore) throw err;
      throw new Error(
        "a stored secret is used only with the server node's deployed URL, API prefix, auth mode, TLS settings, " +
          'proxy and tenant: type it again to test or list with changed settings',
      );
    }
  }

  /** Every secret and `${VAR}` value this request touched (for scrubbing error texts). */
  sensitiveValues(): string[] {
    return [...this.sensitive, ...DialogTarget.deployedSecrets(this.RED, this.deployed)];
  }

  /** The deployed node's own secrets: its stored credentials and env-resolved URL. */
  static deployedSecrets(RED: NodeAPI, deployed: ServerNode | undefined): string[] {
    if (!deployed) return [];
    const stored = (RED.nodes.getCredentials(deployed.id) ?? {}) as ServerNodeCredentials;
    const out = CREDENTIAL_KEYS.map((k) => stored[k]).filter((v): v is string => typeof v === 'string' && v !== '');
    const raw = deployedConfig(RED, deployed.id);
    if (raw && /\$\{/.test(text(raw.url)) && deployed.resolvedUrl) out.push(...urlParts(deployed.resolvedUrl));
    return out;
  }

  private storedCredentialsForSameTarget(): ServerNodeCredentials | undefined {
    if (!this.deployed) return undefined;
    const raw = deployedConfig(this.RED, this.deployed.id);
    if (!raw || !sameTarget(raw, this.values)) return undefined;
    return (this.RED.nodes.getCredentials(this.deployed.id) ?? {}) as ServerNodeCredentials;
  }

  /**
   * Node-RED substitutes a property that is wholly `${VAR}` when a flow starts; dialog values have not been through
   * that.
   */
  private resolve(value: string): string {
    const { value: resolved, resolved: fromEnv } = this.env.resolve(value);
    if (fromEnv) for (const part of urlParts(resolved)) this.remember(part);
    return resolved;
  }

  private remember(value: string | undefined): void {
    if (value) this.sensitive.add(value);
  }
}

/** The deployed node's configuration as saved in the flow (before `${VAR}` substitution). */
function deployedConfig(RED: NodeAPI, id: string): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  RED.nodes.eachNode((n) => {
    if (n.id === id && n.type === 'mindsdb-server') found = n as unknown as Record<string, unknown>;
  });
  return found;
}

/**
 * The dialog points where the node is deployed to: the same URL, API prefix, auth mode, TLS node, proxy
 * and tenant (a stored password must not open another tenant of a multi-tenant server either).
 */
function sameTarget(deployed: Record<string, unknown>, dialog: Record<string, unknown>): boolean {
  const url = (v: unknown) => text(v).trim().replace(/\/+$/, '');
  return (
    url(deployed.url) === url(dialog.url) &&
    normalisePrefix(text(deployed.apiPrefix) || '/api') === normalisePrefix(text(dialog.apiPrefix) || '/api') &&
    (text(deployed.authMode) || 'none') === (text(dialog.authMode) || 'none') &&
    text(deployed.tls) === text(dialog.tls) &&
    // The proxy sees a plain http request whole, credentials included.
    (text(deployed.proxyMode) || 'env') === (text(dialog.proxyMode) || 'env') &&
    text(deployed.proxy) === text(dialog.proxy) &&
    text(deployed.companyId).trim() === text(dialog.companyId).trim() &&
    text(deployed.userId).trim() === text(dialog.userId).trim()
  );
}

/** A value and, when it is a URL, the pieces of it an error message may quote (host, host:port). */
function urlParts(value: string): string[] {
  const parts = [value];
  try {
    const u = new URL(value);
    parts.push(u.origin, u.host, u.hostname);
  } catch {
    /* not a URL: the value itself is enough */
  }
  return parts.filter((p) => p.length > 0);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** An error's text with every sensitive value replaced (longest first, so a part never unmasks a whole). */
export function scrubbed(err: unknown, sensitive: readonly string[]): string {
  let message = err instanceof Error ? err.message : String(err);
  for (const value of [...new Set(sensitive)].sort((a, b) => b.length - a.length)) {
    if (value) message = message.split(value).join('***');
  }
  return message;
}
