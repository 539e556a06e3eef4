import { sqlPieces } from './sql-lexer';

/**
 * Whether a statement only reads, decided on the text alone before anything is sent (the
 * editor's preview runs nothing else). The statement is read with the package's own copy of
 * MindsDB's lexer (./sql-lexer.ts), so strings, quoted names and comments are known for what they
 * are, and:
 * - it is one statement: a `;` may only end it (a second statement is refused);
 * - its first word is one that reads: SELECT, SHOW, DESCRIBE/DESC, EXPLAIN, or WITH (a common
 *   table expression), after any opening parentheses;
 * - no word outside strings, quoted names and comments is one that writes (INSERT, UPDATE,
 *   DELETE, CREATE, DROP, RETRAIN …): a native query (`SELECT * FROM pg (DELETE … RETURNING *)`)
 *   hands its inner text to the data source, so a SELECT can write through one. REPLACE followed by
 *   `(` is the string function and stays allowed. A column that happens to be called `update` must
 *   be quoted (`` `update` ``) to preview.
 * A statement the lexer cannot read (an unclosed quote) is refused: MindsDB would refuse it too.
 */
const READS = new Set(['SELECT', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'WITH']);
const WRITES = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'RETRAIN',
  'FINETUNE',
  'MERGE',
  'UPSERT',
  'GRANT',
  'REVOKE',
  'CALL',
  'EXEC',
  'EXECUTE',
  'COPY',
  'REPLACE',
  'SET',
  'USE',
  'LOAD',
  'RENAME',
  'COMMIT',
  'ROLLBACK',
  'BEGIN',
  'VACUUM',
  'LOCK',
  'UNLOCK',
  'ATTACH',
  'DETACH',
  'KILL',
  'INTO',
  'OUTFILE',
]);

export type ReadOnlyVerdict = { readOnly: true } | { readOnly: false; reason: string };

export function readOnlyStatement(sql: string): ReadOnlyVerdict {
  const pieces = sqlPieces(sql);
  const unclosed = pieces.find((p) => p.kind === 'unclosed');
  if (unclosed) return { readOnly: false, reason: `a quote opened at character ${unclosed.start + 1} is never closed` };
  // The statement's plain text, with strings, quoted names, variables and comments as blanks.
  const plain = pieces.map((p) => (p.kind === 'other' ? sql.slice(p.start, p.end) : ' ')).join('');
  const semicolon = plain.indexOf(';');
  if (
    semicolon !== -1 &&
    plain
      .slice(semicolon + 1)
      .replace(/;/g, ' ')
      .trim() !== ''
  ) {
    return { readOnly: false, reason: 'it holds more than one statement' };
  }
  const words = [...plain.matchAll(/[A-Za-z_][A-Za-z_0-9$]*/g)];
  if (words.length === 0) return { readOnly: false, reason: 'it is empty' };
  const first = words[0][0].toUpperCase();
  if (!READS.has(first))
    return { readOnly: false, reason: `it starts with ${first}, not SELECT, SHOW, DESCRIBE, EXPLAIN or WITH` };
  for (const m of words) {
    const word = m[0].toUpperCase();
    if (!WRITES.has(word)) continue;
    if (word === 'REPLACE' && /^\s*\(/.test(plain.slice((m.index ?? 0) + m[0].length))) continue;
    // A qualified name's part (`t.update`, `db.set`) is a name, not a keyword.
    const before = plain.slice(0, m.index ?? 0).trimEnd();
    if (before.endsWith('.')) continue;
    return { readOnly: false, reason: `it contains ${word}, which writes or changes the server` };
  }
  return { readOnly: true };
}
