/**
 * Just enough of MindsDB's SQL lexer to know where its strings, quoted names, variables,
 * comments and placeholders are: the rules of `MindsDBLexer` in mindsdb_sql_parser 0.13.8
 * (lexer.py, the version both pinned MindsDB versions use), in the same order, with the same
 * regular expressions (strings: the same matches, computed in linear time). Everything else is
 * passed over as plain text, which splits nothing differently: no other token of that lexer can
 * contain a quote, a `?`, a `:`, a comment's start or an `@` except the operators matched here
 * (`::`, `:=`, `<@`, `@>`).
 *
 * Differences that matter, each as MindsDB's lexer does it (and test/unit/sql-quoting.test.js
 * checks against the real parser):
 * - in a string, a backslash escapes any one character but a newline, and a doubled quote is a
 *   quote; when no later quote closes the string that way, the match backs off (so `'C:\'` alone
 *   is a string, but followed by more quoted text it runs on to the next quote);
 * - a `/*` without its `*\/` is no comment: the `/`, `*` and what follows are ordinary tokens;
 * - a quoted name is `` `…` `` with no escape at all (a backtick cannot be written inside one);
 * - `@'…'`, `` @`…` ``, `@"…"` variables have no escapes either.
 *
 * Python's `re` with IGNORECASE works on code points and folds case by Unicode rules, as the
 * `iu` flags do here; Python's `.` (any character but a newline) is written `[^\n]` because
 * JavaScript's `.` also stops at `\r`, U+2028 and U+2029.
 */

/** What a piece of a statement is. */
export type SqlPieceKind =
  | 'comment'
  | 'string' // '…' or "…": QUOTE_STRING, DQUOTE_STRING
  | 'name' // `…`: a quoted identifier
  | 'variable' // @x, @'…', @@x …
  | 'positional' // ? (a PARAMETER)
  | 'named' // :name (a PARAMETER)
  | 'unclosed' // a quote or backtick that nothing closes: MindsDB's lexer refuses the statement here
  | 'other'; // anything else: one character, or a run of characters that starts nothing above

export interface SqlPiece {
  kind: SqlPieceKind;
  /**
   * A string whose closing quote MindsDB's lexer finds only by backing off, because no later
   * quote lets it run on (`'C:\'` at the end of a statement): with more quoted text after it, the
   * same string would end elsewhere.
   */
  fragile?: true;
  /** Index of the first UTF-16 unit in the statement. */
  start: number;
  /** Index just past the piece. */
  end: number;
}

const DIGIT = '\\p{Nd}';
const VARIABLE_BODY =
  `(?:[a-zA-Z_.$][a-zA-Z_.$${DIGIT}]+|'[a-zA-Z_.$][a-zA-Z_.$${DIGIT}][^']*'|` +
  `\`[a-zA-Z_.$][a-zA-Z_.$${DIGIT}][^\`]*\`|"[a-zA-Z_.$][a-zA-Z_.$${DIGIT}][^"]*")`;

/**
 * The rules in MindsDB's order (those that can start at the same character keep their order).
 * Strings are not here: their regular expressions backtrack exponentially on a quote followed by
 * many backslashes, so `stringEnds` computes the same matches in linear time.
 */
const RULES: ReadonlyArray<readonly [SqlPieceKind, RegExp]> = [
  ['comment', /--[^\n]*/iuy], // ignore_line_comment (ignore_multi_comment: see blockCommentEnd)
  ['other', /::|:=|<@|@>/iuy], // TYPECAST, ASSIGN_COLON, ARR_CONTAINED, ARR_CONTAINS: before PARAMETER and VARIABLE
  ['named', new RegExp(`:[a-zA-Z][a-zA-Z_${DIGIT}]*`, 'iuy')], // PARAMETER
  ['positional', /\?/iuy], // PARAMETER
  ['name', /`[^`]+`/iuy], // ID, quoted form
];
const VARIABLE = new RegExp(`@@?${VARIABLE_BODY}`, 'iuy'); // VARIABLE, SYSTEM_VARIABLE (after the strings)
/**
 * A run of characters none of which can start a piece above (nor is a parenthesis or `;`, which
 * sqlSubquery counts): no token of MindsDB's lexer that starts in such a run can reach past it, so
 * the run is passed over at once.
 */
const PLAIN_RUN = /[^-/:<@?'"`();]+/y;

/**
 * Where each string that could start at each position ends, for one quote character: what
 * Python's backtracking search finds for MindsDB's `'(?:\\.|[^'])*(?:''(?:\\.|[^'])*)*'` (and the
 * same with `"`). Inside the string, at each position it tries, in this order: a backslash and any
 * character but a newline, any character but the quote, a doubled quote, and only then the closing
 * quote; the first of these that leads to a closing quote wins. `ends[p]` is the index just past the
 * closing quote reached from content position p, or -1; computed from the end backwards, once.
 */
function stringEnds(sql: string, quote: string): Int32Array {
  const n = sql.length;
  const ends = new Int32Array(n + 2).fill(-1);
  for (let p = n - 1; p >= 0; p--) {
    const c = sql[p];
    let end = -1;
    if (c === '\\' && p + 1 < n && sql[p + 1] !== '\n') end = ends[p + 2];
    if (end < 0 && c !== quote) end = ends[p + 1];
    if (end < 0 && c === quote && sql[p + 1] === quote) end = ends[p + 2];
    if (end < 0 && c === quote) end = p + 1;
    ends[p] = end;
  }
  return ends;
}

/**
 * Where the string opened at `start` ends when every choice is the first one (an escape, a plain
 * character, a doubled quote, and the closing quote last), without backing off: -1 when that runs
 * to the end of the text. The first path Python's search tries, whatever follows the string.
 */
function greedyStringEnd(sql: string, start: number, quote: string): number {
  let p = start + 1;
  while (p < sql.length) {
    const c = sql[p];
    if (c === '\\' && p + 1 < sql.length && sql[p + 1] !== '\n') p += 2;
    else if (c !== quote) p += 1;
    else if (sql[p + 1] === quote) p += 2;
    else return p + 1;
  }
  return -1;
}

/** Splits a statement into pieces, as MindsDB's lexer reads it (linear in the statement's length). */
export function sqlPieces(sql: string): SqlPiece[] {
  const pieces: SqlPiece[] = [];
  const ends: Record<string, Int32Array> = {};
  let commentClose = -2; // where the last */ search found one (-1: none after that point)
  const blockCommentEnd = (i: number): number => {
    // ignore_multi_comment, /\*[\s\S]*?\*\//: the first */ after the /*, searched once per stretch.
    if (commentClose === -1) return -1;
    if (commentClose < i + 2) commentClose = sql.indexOf('*/', i + 2);
    return commentClose === -1 ? -1 : commentClose + 2;
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    let piece: SqlPiece | undefined;
    if (c === '/' && sql[i + 1] === '*') {
      const end = blockCommentEnd(i);
      if (end > 0) piece = { kind: 'comment', start: i, end };
    }
    if (!piece) {
      PLAIN_RUN.lastIndex = i;
      if (PLAIN_RUN.test(sql)) piece = { kind: 'other', start: i, end: PLAIN_RUN.lastIndex };
    }
    if (!piece) {
      for (const [kind, rule] of RULES) {
        rule.lastIndex = i;
        if (rule.test(sql)) {
          piece = { kind, start: i, end: rule.lastIndex };
          break;
        }
      }
    }
    if (!piece && (c === "'" || c === '"')) {
      const end = (ends[c] ??= stringEnds(sql, c))[i + 1];
      if (end > 0)
        piece =
          greedyStringEnd(sql, i, c) === end
            ? { kind: 'string', start: i, end }
            : { kind: 'string', start: i, end, fragile: true };
    }
    if (!piece && c === '@') {
      VARIABLE.lastIndex = i;
      if (VARIABLE.test(sql)) piece = { kind: 'variable', start: i, end: VARIABLE.lastIndex };
    }
    if (!piece) {
      // A quote that no rule closes: MindsDB's lexer stops here ("Illegal character").
      piece =
        c === "'" || c === '"' || c === '`'
          ? { kind: 'unclosed', start: i, end: sql.length }
          : { kind: 'other', start: i, end: i + 1 };
    }
    pieces.push(piece);
    i = piece.end;
  }
  return pieces;
}
