'use strict';
/**
 * The preview's rule (src/client/shared/sql-read-only.ts): only a statement that reads runs,
 * decided on the text with the package's own copy of MindsDB's lexer, so a keyword inside a
 * string or a quoted name is text, and one in a native query's inner text is not.
 */
const assert = require('node:assert/strict');
const { readOnlyStatement } = require('../../nodes/client');

describe("readOnlyStatement: what the editor's preview may run", () => {
  const reads = (sql) => readOnlyStatement(sql).readOnly;

  it('lets SELECT, SHOW, DESCRIBE, EXPLAIN and WITH through', () => {
    for (const sql of [
      'SELECT 1',
      'select * from files.t limit 5;',
      '  (SELECT 1)',
      'SHOW TABLES FROM pg',
      'DESCRIBE mindsdb.m',
      'DESC mindsdb.m',
      'EXPLAIN SELECT 1',
      'WITH x AS (SELECT 1) SELECT * FROM x',
      '-- a note\nSELECT 1',
      '/* a note */ SELECT 1',
    ]) {
      assert.equal(reads(sql), true, sql);
    }
  });

  it('refuses a statement that writes or changes the server, and says why', () => {
    for (const [sql, word] of [
      ['INSERT INTO pg.t VALUES (1)', /INSERT/],
      ['DROP TABLE pg.t', /DROP/],
      ['CREATE MODEL m PREDICT x', /CREATE/],
      ['RETRAIN mindsdb.m', /RETRAIN/],
      ['UPDATE pg.t SET a = 1', /UPDATE/],
      ['DELETE FROM pg.t', /DELETE/],
      ['SET @x = 1', /SET/],
      ['USE pg', /USE/],
    ]) {
      const verdict = readOnlyStatement(sql);
      assert.equal(verdict.readOnly, false, sql);
      assert.match(verdict.reason, word, sql);
    }
  });

  it('refuses a SELECT that writes through a native query or a second statement', () => {
    assert.match(readOnlyStatement('SELECT * FROM pg (DELETE FROM t RETURNING *)').reason, /DELETE/);
    assert.match(readOnlyStatement('SELECT * FROM pg (insert into t values (1) returning *)').reason, /INSERT/);
    assert.match(readOnlyStatement('SELECT 1; DROP TABLE pg.t').reason, /more than one statement/);
    assert.match(readOnlyStatement('SELECT 1;/* x */ DELETE FROM pg.t').reason, /more than one statement/);
    assert.match(readOnlyStatement("SELECT 1 INTO OUTFILE 'x'").reason, /INTO/);
  });

  it("reads strings, quoted names and comments as MindsDB's lexer does", () => {
    assert.equal(reads("SELECT 'DROP TABLE x; DELETE' AS t"), true, 'a keyword in a string is text');
    assert.equal(reads('SELECT `update`, `delete` FROM pg.t'), true, 'a quoted name is a name');
    assert.equal(reads('SELECT t.update FROM pg.t'), true, "a qualified name's part is a name");
    assert.equal(reads('SELECT 1 -- ; DROP TABLE x'), true, 'a line comment');
    assert.equal(reads("SELECT replace(name, 'a', 'b') FROM pg.t"), true, 'REPLACE( is the string function');
    // An escaped quote keeps the string open: what follows is still inside it.
    assert.equal(reads("SELECT 'it\\'s; DROP TABLE x' AS t"), true);
    // A /* without its */ is no comment for MindsDB's lexer: the DROP after it is a word.
    assert.equal(reads('SELECT 1 /* ; DROP TABLE x'), false);
    assert.match(readOnlyStatement("SELECT 'open").reason, /never closed/);
    assert.match(readOnlyStatement('   ').reason, /empty/);
  });
});
