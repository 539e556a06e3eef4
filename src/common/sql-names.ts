/**
 * A name in MindsDB's SQL, one rule for the REST client and the editor alike: how it is written so
 * that MindsDB's lexer (mindsdb_sql_parser 0.13.8, both pinned MindsDB versions) reads it back as
 * given, and how two names compare when case is ignored. Pure: it imports nothing, so the build
 * bundles it into the editor's browser script as it compiles it for the runtime.
 * test/unit/sql-names.test.js reads every name these functions write with MindsDB's real parser.
 */

/** Lone UTF-16 surrogates: not text; JSON and Python keep them, but no database stores them. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `name` cannot be written as a name in MindsDB's SQL, or undefined when it can. MindsDB's lexer
 * reads `` `…` `` up to the next backtick with no escape at all, so a name with a backtick cannot be
 * written; nor can a blank name, NUL (no MindsDB store keeps it in a name) or broken Unicode.
 * Anything else (dots, quotes, backslashes, newlines, `--`, `;`, keywords, any script) is one name.
 */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'must be a non-empty string';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this refuses
  if (/[`\u0000]/.test(name))
    return `${JSON.stringify(name)} contains a character MindsDB's SQL cannot take in a name (\` or NUL)`;
  if (LONE_SURROGATE.test(name)) return `${JSON.stringify(name)} is not well-formed Unicode text`;
  return undefined;
}

/** A name in backticks, as the client writes every name: `` `name` `` (check it with nameProblem first). */
export function quotedName(name: string): string {
  return `\`${name}\``;
}

/**
 * The words MindsDB's lexer reads as keywords, not as a name (every one-word token of its
 * MindsDBLexer; test/unit/sql-names.test.js compares this list with the lexer's own). Its grammar
 * takes some of them as a name in some places (`status`), others nowhere (`end`, `select`).
 */
const KEYWORDS = new Set(
  (
    'agent all alter and anomaly as asc asof begin between binary case cast channel character charset chatbot code ' +
    'collate collation columns commit committed convert create cross database databases dataset datasets ' +
    'datasource datasources date default delete desc describe detection distinct drop else end engine engines ' +
    'evaluate every except exists explain extended false fields finetune for from full function global handlers ' +
    'having horizon hosts if in index indexes inner insert integration integrations intersect interval into is ' +
    'isolation job join keys knowledge_base knowledge_bases last lateral latest left level like limit logs master ' +
    'ml_engine ml_engines model models mutex not null offset on only open or outer over parameters persist ' +
    'persist_only plugins predict predictor predictors privileges procedure processlist profiles project ' +
    'publication publications read repeatable replace replica replicas retrain right rollback rollup schema ' +
    'schemas search_path select serializable session set show skill slave start status storage stream streams ' +
    'table tables then train transaction trigger triggers true uncommitted union update use using values ' +
    'variables view views warnings when where window with write'
  ).split(' '),
);

/** MindsDB's keywords, for the test that holds them to its lexer. */
export const SQL_KEYWORDS: readonly string[] = [...KEYWORDS];

/**
 * A name as a person would type it where it is read back unchanged: plain when it is lower case
 * letters, digits and `_` (not first a digit) and no keyword, else in backticks (`Alerts`,
 * `my table`, `end`). An unquoted name with capitals would reach MindsDB lower-cased.
 */
export function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !KEYWORDS.has(name) ? name : quotedName(name);
}

/** A name part as a statement writes it, unquoted: `` `My DB` `` → `My DB`, `sensors` → `sensors`. */
export function unquotedName(part: string): string {
  return /^`[^`]*`$/.test(part) ? part.slice(1, -1) : part;
}

/**
 * The one rule for finding a name the way MindsDB stored it. What MindsDB does to the case of a
 * name differs by resource, version and quoting (docs/real-mindsdb.md, "Names and capitals"): an
 * unquoted `CREATE MODEL MyModel` is stored as `mymodel`, a file uploaded as `SensorLog` is
 * stored as `sensorlog`, a backticked or REST-made name keeps its case, and most lookups then
 * compare exactly. So a name the user typed is looked for exactly as typed first, then as the one
 * spelling the server lists that differs from it only in case; never a guess between two.
 */
export type NameMatch =
  | { found: 'exact'; name: string }
  | { found: 'case'; name: string }
  | { found: 'none' }
  | { found: 'ambiguous'; names: string[] };

/** How two names compare when case is ignored (as MindsDB's own lower-casing does). */
export function foldCase(name: string): string {
  return name.toLowerCase();
}

/** Finds `typed` among the names the server lists (as stored). */
export function matchName(typed: string, stored: Iterable<string>): NameMatch {
  const variants = new Set<string>();
  const folded = foldCase(typed);
  for (const name of stored) {
    if (name === typed) return { found: 'exact', name };
    if (foldCase(name) === folded) variants.add(name);
  }
  if (variants.size === 0) return { found: 'none' };
  const names = [...variants].sort();
  return names.length === 1 ? { found: 'case', name: names[0] } : { found: 'ambiguous', names };
}
