import { inputError } from './errors';

type Json = Record<string, unknown>;

/** A name as a quoted SQL identifier (`name`); a backtick cannot be escaped safely, so it is refused. */
export function ident(name: unknown, what: string): string {
  if (typeof name === 'number' && Number.isFinite(name)) name = String(name);
  if (typeof name !== 'string' || name.trim() === '') throw inputError(`${what} must be a non-empty string`);
  if (/[`\u0000]/.test(name)) throw inputError(`${what} "${name}" contains a character MindsDB cannot take in a name (\` or NUL)`);
  return `\`${name}\``;
}

/** A value for USING as MindsDB's SQL parser reads it: strings quoted ('' for a quote), numbers, booleans, null, lists, objects. */
export function sqlLiteral(v: unknown, depth = 0): string {
  if (depth > 16) throw inputError('a USING value is nested too deeply');
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw inputError(`a USING value must be a finite number, not ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map((x) => sqlLiteral(x, depth + 1)).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Json).map(([k, x]) => `${sqlLiteral(k)}: ${sqlLiteral(x, depth + 1)}`).join(', ')}}`;
  }
  throw inputError(`a USING value cannot be ${typeof v}`);
}
