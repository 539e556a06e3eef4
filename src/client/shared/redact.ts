import { inputError, MindsDBError } from './errors';

/**
 * Keeps secrets out of anything a flow, a log or the editor can see.
 * - `Redactor` replaces the configured secrets (password, token, session cookie) wherever they occur
 *   in a text, so a server that echoes the request back in an error cannot leak them.
 * - `redactSecretFields` masks secret-looking fields in records the server returns (database GET
 *   returns connection passwords in clear, agent GET returns model.api_key).
 */
export const MASK = '******';

export class Redactor {
  private secrets: string[] = [];

  /** Replaces the list of secrets to hide; empty and very short values are ignored. */
  setSecrets(values: Array<string | undefined>): void {
    const set = new Set<string>();
    for (const v of values) {
      if (typeof v !== 'string' || v.length < 3) continue;
      set.add(v);
      // Also hide the forms a server may echo: URL-encoded and JSON-escaped.
      set.add(encodeURIComponent(v));
      set.add(JSON.stringify(v).slice(1, -1));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** Adds secrets (e.g. a token that came back from login). */
  add(...values: Array<string | undefined>): void {
    this.setSecrets([...this.secrets, ...values]);
  }

  /**
   * An error that may quote a secret (a server echoing the request back): the same error when its
   * message holds none, else a copy with the secrets masked in its message and server message.
   */
  error(err: unknown): unknown {
    if (!(err instanceof Error) || !this.secrets.some((s) => err.message.includes(s))) return err;
    if (!(err instanceof MindsDBError)) return new Error(this.text(err.message));
    return new MindsDBError(this.text(err.message), {
      ...err,
      serverMessage: err.serverMessage && this.text(err.serverMessage),
    });
  }

  text(value: string): string {
    let out = maskUriPasswords(value);
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
    return out;
  }
}

/**
 * Whether a record key names a secret, decided on its words (snake_case, kebab-case, camelCase,
 * dotted) rather than on substrings, so `max_tokens`, `prompt_tokens`, `session_id` and
 * `passthrough` stay readable while `service_account_json`, `private_key`, `credentials` and
 * `access_token` are masked.
 */
export function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  const has = (w: string) => words.includes(w);
  const pair = (a: string, b: string) => words.some((w, i) => w === a && words[i + 1] === b);
  if (
    [
      'password',
      'passwd',
      'pwd',
      'pass',
      'passphrase',
      'secret',
      'credential',
      'credentials',
      'apikey',
      'token',
      'cookie',
      'jwt',
    ].some(has)
  )
    return true;
  if (
    pair('api', 'key') ||
    pair('private', 'key') ||
    pair('access', 'key') ||
    pair('secret', 'key') ||
    pair('service', 'account')
  )
    return true;
  // A key that is only "session" holds the cookie value; session_id, session_name … do not.
  return words.length === 1 && words[0] === 'session';
}

/** `scheme://user:password@host` → `scheme://user:******@host` inside any text. */
const URI_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s@/]+)@/gi;

export function maskUriPasswords(text: string): string {
  return text.includes('@') ? text.replace(URI_PASSWORD, `$1${MASK}@`) : text;
}

/**
 * Returns a copy of `value` in which every value under a secret key is masked (a nested object
 * under such a key is masked leaf by leaf) and every password inside a URI string is masked.
 * Only plain JSON data is expected here (it comes from JSON.parse).
 */
export function redactSecretFields<T>(value: T): T {
  return redact(value, 0, false) as T;
}

function redact(value: unknown, depth: number, underSecret: boolean): unknown {
  if (typeof value === 'string') return underSecret && value !== '' ? MASK : maskUriPasswords(value);
  if (typeof value === 'number' || typeof value === 'boolean')
    return underSecret && typeof value === 'number' ? MASK : value;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, underSecret));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const masked = redact(v, depth + 1, underSecret || isSecretKey(k));
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
    else out[k] = masked;
  }
  return out;
}

/**
 * Where `value` (a body about to be sent) still holds a masked value from one of our outputs
 * (`"******"`, or a URI with `:******@`): a get → edit → update round trip would otherwise write
 * the mask over the real password or api key. Returns the paths, e.g. ["parameters.password"].
 */
export function maskedValuePaths(value: unknown, path = '', depth = 0): string[] {
  if (typeof value === 'string') return value === MASK || value.includes(`:${MASK}@`) ? [path || '(value)'] : [];
  if (depth > 32 || value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`[${i}]`, v] as const)
    : Object.entries(value as Record<string, unknown>).map(([k, v]) => [path ? `.${k}` : k, v] as const);
  return entries.flatMap(([k, v]) => maskedValuePaths(v, `${path}${k}`, depth + 1));
}

/** Refuses a create/update body that would write a masked value back over a real secret. */
export function refuseMaskedValues(body: unknown, what: string): void {
  const paths = maskedValuePaths(body);
  if (paths.length === 0) return;
  throw inputError(
    `${what} has masked values from an earlier answer (${paths.join(', ')} = "${MASK}"): ` +
      'set the real values, or leave those fields out to keep what the server has; a masked value is never sent back',
  );
}
