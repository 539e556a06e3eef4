import { inputError } from './errors';
import { sqlPieces } from './sql-lexer';

/**
 * MindsDB binds only named placeholders (`:name`, from 25.12). For positional parameters (an
 * array), each `?` placeholder is renamed `:p1`, `:p2`, … and the values are sent as named
 * params, so they are still bound by the server, never spliced into the SQL text.
 *
 * Which `?` is a placeholder is decided by MindsDB's own lexer rules (./sql-lexer.ts): a `?`
 * inside a string (with its backslash escapes and doubled quotes), a quoted name, a variable or a
 * closed comment is left alone; a `?` after an unclosed `/*` is a placeholder, as MindsDB reads
 * it. A statement MindsDB's lexer would refuse (an unclosed quote) or that mixes `?` with `:name`
 * placeholders is refused here with an input error, before anything is sent.
 */
export function positionalToNamed(
  query: string,
  values: readonly unknown[],
): { query: string; params: Record<string, unknown> } {
  let out = '';
  let n = 0;
  const pieces = sqlPieces(query);
  for (const piece of pieces) {
    const text = query.slice(piece.start, piece.end);
    if (piece.kind === 'unclosed') {
      throw inputError(
        `the query has a ${text[0]} at character ${piece.start + 1} that nothing closes: MindsDB would refuse it`,
      );
    }
    if (piece.kind === 'named') {
      throw inputError(
        `the query mixes a named placeholder (${text}) with an array msg.params: use "?" placeholders with an array, ` +
          `or an object msg.params for ":name"`,
      );
    }
    if (piece.kind === 'positional') {
      n++;
      // `:p1` must stay one placeholder: not `::p1` (a cast) after a `:`, not `:p1a` before a name.
      const before = out.endsWith(':') ? ' ' : '';
      const after = /^[\p{L}\p{N}_$]/u.test(query.slice(piece.end, piece.end + 2)) ? ' ' : '';
      out += `${before}:p${n}${after}`;
    } else {
      out += text;
    }
  }
  if (n !== values.length) {
    throw inputError(`msg.params has ${values.length} value(s) but the query has ${n} "?" placeholder(s)`);
  }
  const params: Record<string, unknown> = {};
  values.forEach((v, k) => {
    params[`p${k + 1}`] = v;
  });
  return { query: out, params };
}
