import { inputError } from './errors';

/**
 * MindsDB binds only named placeholders (`:name`, from 25.12). For positional parameters (an
 * array), each `?` placeholder is renamed `:p1`, `:p2`, … and the values are sent as named
 * params, so they are still bound by the server, never spliced into the SQL text. A `?` inside a
 * string literal, a quoted identifier or a comment is left alone.
 */
export function positionalToNamed(query: string, values: readonly unknown[]): { query: string; params: Record<string, unknown> } {
  let out = '';
  let n = 0;
  let i = 0;
  const len = query.length;
  while (i < len) {
    const c = query[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = closingQuote(query, i, c);
      out += query.slice(i, end);
      i = end;
    } else if (c === '-' && query[i + 1] === '-') {
      const end = query.indexOf('\n', i);
      const stop = end === -1 ? len : end;
      out += query.slice(i, stop);
      i = stop;
    } else if (c === '/' && query[i + 1] === '*') {
      const end = query.indexOf('*/', i + 2);
      const stop = end === -1 ? len : end + 2;
      out += query.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      n++;
      out += `:p${n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (n !== values.length) {
    throw inputError(`msg.params has ${values.length} value(s) but the query has ${n} "?" placeholder(s)`);
  }
  const params: Record<string, unknown> = {};
  values.forEach((v, k) => { params[`p${k + 1}`] = v; });
  return { query: out, params };
}

/** Index just past the quote that closes the literal opened at `start` (a doubled quote escapes; so does a backslash). */
function closingQuote(s: string, start: number, q: string): number {
  let i = start + 1;
  while (i < s.length) {
    if (s[i] === '\\') { i += 2; continue; }
    if (s[i] === q) {
      if (s[i + 1] === q) { i += 2; continue; }
      return i + 1;
    }
    i++;
  }
  return s.length;
}
