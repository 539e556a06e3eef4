import { inputError } from './errors';
import { isRawJson, pathOf, plainJson } from './json-value';
import { sqlPieces } from './sql-lexer';
import { nameProblem, quotedName } from '../../common/sql-names';

/**
 * SQL text built for MindsDB's own lexer and parser (mindsdb_sql_parser 0.13.8, used by both
 * pinned MindsDB versions). Every name and value the package writes into a statement goes through
 * one of these functions, and each either writes text that MindsDB parses back to exactly the
 * value given, or refuses the value with an input error before anything is sent.
 * test/unit/sql-quoting.test.js proves it with hostile values against MindsDB's real parser.
 *
 *   ident(name, what)          a name as `name` (projects, models, databases, tables, columns …)
 *   sqlLiteral(value)          a value: 'text', 123, 1.5, true, null, [..], {'k': ..}
 *   sqlUsing(options)          ` USING `k` = <literal>, …` (or '' for no options)
 *   sqlSubquery(select, what)  a user's SELECT in parentheses, checked to stay inside them
 *
 * Values that come as bound parameters (`:name` with msg.params) never pass through here: the
 * server binds them (see ./sql-params.ts).
 */

type Json = Record<string, unknown>;

/** Lone UTF-16 surrogates: not text; JSON and Python keep them, but no database stores them. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A name as a quoted SQL identifier: `` `name` ``, or an input error for a name MindsDB's SQL cannot
 * take (a backtick, NUL, a blank name, broken Unicode: `nameProblem`, the client's and the editor's
 * one rule in src/common/sql-names.ts). A finite number is written as its digits (a model version:
 * `p`.`m`.`3`).
 */
export function ident(name: unknown, what: string): string {
  const text = typeof name === 'number' && Number.isFinite(name) ? String(name) : name;
  const problem = nameProblem(text);
  if (problem !== undefined) throw inputError(`${what} ${problem}`);
  return quotedName(text as string);
}

/**
 * A value as MindsDB's SQL reads it (USING options, JSON-like objects and lists):
 * - text in single quotes, a quote doubled (`'it''s'`); text that begins or ends with a single
 *   quote in double quotes instead (MindsDB strips quote characters from both ends of a string
 *   token, so `'''x'''` would read as `x`);
 * - refused, because MindsDB's lexer cannot read them back: a backslash at the end, or right
 *   before a quote character (`\'`, `\"`: its lexer takes the pair as an escape and its parser
 *   drops the backslash), and text that begins or ends with both kinds of quote;
 * - a backslash anywhere else is written as it is and read as it is (`C:\data\x`);
 * - numbers as plain digits (no exponent, which MindsDB would read as a name); negative numbers,
 *   NaN and Infinity are refused (its JSON grammar has no minus sign);
 * - true, false, null; arrays as `[…]`, plain objects as `{'key': …}`, nested at most 16 deep.
 */
export function sqlLiteral(v: unknown, depth = 0, where = 'a USING value'): string {
  // The one rule for a value that is not plain JSON (./json-value.ts): a Date as its ISO text, a bigint as its digits …
  if (depth === 0) v = plainJson(v, where);
  if (depth > 16) throw inputError(`${where} is nested too deeply`);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quoteText(v);
  if (typeof v === 'number') return plainNumber(v, where);
  if (isRawJson(v)) {
    if (v.rawJSON.startsWith('-'))
      throw inputError(
        `${where} cannot be the negative number ${v.rawJSON}: MindsDB's SQL parser has no minus sign in USING values ` +
          `(write it as text if the engine takes text)`,
      );
    return v.rawJSON;
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map((x, i) => sqlLiteral(x, depth + 1, pathOf(where, i))).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Json)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${quoteText(k)}: ${sqlLiteral(x, depth + 1, pathOf(where, k))}`)
      .join(', ')}}`;
  }
  throw inputError(`${where} cannot be ${typeof v}`);
}

function quoteText(s: string): string {
  const shown = JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);
  if (LONE_SURROGATE.test(s)) throw inputError(`the SQL text value ${shown} is not well-formed Unicode text`);
  if (/\\$/.test(s))
    throw inputError(
      `the SQL text value ${shown} ends with a backslash, which MindsDB's SQL parser reads as an escape of the ` +
        `closing quote: remove it (C:/data/ works where C:\\data\\ does not)`,
    );
  if (/\\['"]/.test(s))
    throw inputError(
      `the SQL text value ${shown} has a backslash right before a quote, which MindsDB's SQL parser reads as an ` +
        `escape and drops`,
    );
  if (!/^'|'$/.test(s)) return `'${s.replace(/'/g, "''")}'`;
  if (!/^"|"$/.test(s)) return `"${s.replace(/"/g, '""')}"`;
  throw inputError(
    `the SQL text value ${shown} begins or ends with both a single and a double quote, which MindsDB's SQL parser ` +
      `strips from a string`,
  );
}

/** A finite, non-negative number in plain decimal digits: Python reads it back to the same double. */
function plainNumber(n: number, where: string): string {
  if (!Number.isFinite(n)) throw inputError(`${where} must be a finite number, not ${n}`);
  if (n < 0)
    throw inputError(
      `${where} cannot be the negative number ${n}: MindsDB's SQL parser has no minus sign in USING values (write it ` +
        `as text, '${n}', if the engine takes text)`,
    );
  if (Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  const [digits, exp] = String(n).split('e');
  if (exp === undefined) return digits;
  // 1.5e-7 → 0.00000015: the same shortest digits, moved by the exponent (only tiny fractions get here).
  const [whole, fraction = ''] = digits.split('.');
  const shift = Number(exp);
  const all = whole + fraction;
  const point = whole.length + shift;
  return point <= 0 ? `0.${'0'.repeat(-point)}${all}` : `${all.slice(0, point)}.${all.slice(point)}`;
}

/**
 * A USING clause: ` USING `key` = <literal>, …`, or '' when there is no option (undefined values
 * are left out). Keys are quoted names (any text without a backtick: `from`, `a.b` and `model-name`
 * are keys as given); values are sqlLiteral values.
 */
export function sqlUsing(options: Record<string, unknown>, where = 'the USING options'): string {
  const entries = Object.entries(options).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '';
  const pairs = entries.map(([k, v]) => `${ident(k, 'a USING option name')} = ${sqlLiteral(v, 0, pathOf(where, k))}`);
  return ` USING ${pairs.join(', ')}`;
}

/**
 * A user's SELECT (a training query, a view's query …) in parentheses, as `(\n<select>\n)`. It is
 * the user's own SQL and is kept as written, but it must stay inside its parentheses, whatever it
 * holds: by MindsDB's lexer rules its quotes, quoted names and comments are closed (a string
 * must close whatever follows it, so `'C:\'` is refused), its
 * parentheses balance and never close more than they opened, and it is one statement (one
 * trailing `;` is dropped).
 * The newline before `)` keeps a trailing `-- comment` from hiding the closing parenthesis.
 */
export function sqlSubquery(select: string, what: string): string {
  const pieces = sqlPieces(select);
  const code = pieces.filter((p) => p.kind !== 'comment' && !/^\s+$/.test(select.slice(p.start, p.end)));
  const last = code[code.length - 1];
  const end = last && select.slice(last.start, last.end) === ';' ? last.start : select.length;
  let depth = 0;
  for (const [k, p] of pieces.entries()) {
    if (p.start >= end) break;
    const text = select.slice(p.start, p.end);
    if (p.kind === 'unclosed')
      throw inputError(`${what} has a ${text[0]} at character ${p.start + 1} that nothing closes`);
    if (p.fragile)
      throw inputError(
        `${what} has a string at character ${p.start + 1} that MindsDB closes only because nothing follows it (a ` +
          `backslash before its closing quote?): with the rest of the statement after it, it would run on`,
      );
    if (p.kind !== 'other') continue;
    // Alone, MindsDB reads an unclosed /* as "/" and "*"; in the statement, a */ further on (in a
    // value) would close it as a comment and hide what lies between.
    if (text === '/' && pieces[k + 1]?.kind === 'other' && select[p.end] === '*')
      throw inputError(`${what} has a /* comment at character ${p.start + 1} that nothing closes`);
    if (text === ';')
      throw inputError(`${what} must be one SELECT statement: it has a ";" at character ${p.start + 1}`);
    if (text === '(') depth++;
    if (text === ')' && --depth < 0)
      throw inputError(`${what} closes a parenthesis it did not open, at character ${p.start + 1}`);
  }
  if (depth !== 0) throw inputError(`${what} leaves ${depth} parenthes${depth === 1 ? 'is' : 'es'} open`);
  const body = select.slice(0, end).trim();
  if (body === '') throw inputError(`${what} is empty`);
  return `(\n${body}\n)`;
}
