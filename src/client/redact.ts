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

  text(value: string): string {
    let out = value;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
    return out;
  }
}

const SECRET_KEY = /(pass(word)?|secret|token|api[_-]?key|credential|private[_-]?key|session)/i;

/**
 * Returns a copy of `value` in which every string under a secret-looking key is masked.
 * Only plain JSON data is expected here (it comes from JSON.parse).
 */
export function redactSecretFields<T>(value: T): T {
  return redact(value, 0) as T;
}

function redact(value: unknown, depth: number): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const masked = SECRET_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') && v !== '' ? MASK : redact(v, depth + 1);
    if (k === '__proto__') Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
    else out[k] = masked;
  }
  return out;
}
