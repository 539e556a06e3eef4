import { inputError } from './errors';

/**
 * Percent-encodes one path segment (a project, model, database or agent name) so that whatever the
 * user typed stays inside its segment: "a/b" → "a%2Fb", "?" and "#" are encoded, and a segment made
 * only of dots ("." or "..") is encoded too, because URL normalisation would otherwise climb out of it.
 * "%2e" is encoded as "%252e", so it reaches the server as the literal text "%2e".
 */
export function segment(value: unknown, what: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string' || value.length === 0) {
    throw inputError(`${what} must be a non-empty string`);
  }
  const encoded = encodeURIComponent(value);
  return /^\.+$/.test(encoded) ? encoded.replace(/\./g, '%2E') : encoded;
}

/** Normalises an API prefix to "/x/y" form (leading slash, no trailing slash; "" or "/" → ""). */
export function normalisePrefix(prefix: string | undefined): string {
  const p = (prefix ?? '/api').trim();
  if (p === '' || p === '/') return '';
  return `/${p.replace(/^\/+/, '')}`.replace(/\/+$/, '');
}
