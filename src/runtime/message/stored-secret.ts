import { inputError } from '../../client';

/**
 * A stored secret goes only where it was configured to go.
 *
 * A node credential (the database node's password, the knowledge-base node's embedding API key,
 * an ML engine's API key …) is stored beside the settings that say where it is sent: a host, a
 * URL, a provider. When the settings actually sent are the node's fields filled in from the msg,
 * the msg could otherwise pick the destination (`base_url`, `host` …) and have the stored secret
 * sent there. The rule, one function for every node:
 *
 * - the node's own settings win and the msg fills the keys the node leaves blank (as before);
 * - the stored secret is added only when every destination setting sent comes from the node
 *   (none from the msg) and nothing else in the msg chose where the settings go;
 * - when the msg does choose a destination, the stored secret is not sent: the msg must bring its
 *   own (the same key, in the same object), else the message fails with an input error that names
 *   the msg property and says what to do. Nothing is sent in that case.
 *
 * A setting is a destination when a word of its name (split at `_`, `-`, `.` and camelCase) is one
 * of DESTINATION_WORDS: host, port, url, uri, endpoint, server, address, dsn, connection, provider,
 * account, region, proxy, socket, location, … (`base_url`, `api_base`, `azure_endpoint`,
 * `connection_string`, `hostname`, `serverName` are; `database`, `model_name`, `schema` are not).
 */

const DESTINATION_WORDS = new Set([
  'host',
  'hostname',
  'hosts',
  'port',
  'url',
  'urls',
  'uri',
  'uris',
  'endpoint',
  'endpoints',
  'base',
  'server',
  'servers',
  'address',
  'addr',
  'domain',
  'dsn',
  'connection',
  'conn',
  'provider',
  'account',
  'region',
  'socket',
  'proxy',
  'location',
  'cluster',
  'tenant',
  'deployment',
  'instance',
  'service',
  'gateway',
  'origin',
  'authority',
]);

/** Whether a setting's name says where the settings (and a secret with them) are sent. */
export function isDestinationKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w) => DESTINATION_WORDS.has(w));
}

export interface StoredSecret {
  /** The key the secret is sent under: 'password', 'api_key', 'openai_api_key' … */
  key: string;
  /** The node's stored credential; blank or undefined means the node stores none. */
  stored: string | undefined;
  /** What the secret is, for the error text: 'the database password'. */
  what: string;
  /** Settings the node itself configures (without the secret); they win over the msg's. */
  fromNode: Record<string, unknown>;
  /** Settings from the msg; they fill the keys the node leaves out. */
  fromMsg: Record<string, unknown>;
  /** Where the msg's settings are, for the error text: 'msg.payload.parameters'. */
  msgPath: string;
  /**
   * Set when the msg chose the destination in another way (e.g. msg.name picks which existing
   * database gets the settings): says how, for the error text.
   */
  chosenByMsg?: string;
}

const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** The settings to send: node wins, msg fills, and the stored secret only with the node's own destination. */
export function withStoredSecret(s: StoredSecret): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...s.fromMsg, ...s.fromNode };
  if (!s.stored) return merged;
  const choices = Object.keys(s.fromMsg)
    .filter((k) => isDestinationKey(k) && given(s.fromMsg[k]) && !given(s.fromNode[k]))
    .map((k) => `${s.msgPath}.${k}`);
  if (s.chosenByMsg) choices.push(s.chosenByMsg);
  if (choices.length === 0) return { ...merged, [s.key]: s.stored };
  const own = s.fromMsg[s.key];
  if (typeof own === 'string' && own !== '') return { ...merged, [s.key]: own };
  throw inputError(
    `${s.what} stored in the node is sent only where the node says, but ${choices.join(' and ')} chose where this ` +
      `message goes: set ${choices.length === 1 && !s.chosenByMsg ? 'it' : 'them'} in the node, or give ` +
      `${s.msgPath}.${s.key} in the message (the stored one is not used then)`,
  );
}
