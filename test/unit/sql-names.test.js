'use strict';
/**
 * A name in MindsDB's SQL (src/common/sql-names.ts), the one rule the client's `ident` and the
 * editor's SQL completion share: every name it writes, in backticks or plain, is read back by
 * MindsDB's own parser (mindsdb_sql_parser at each pinned version, ../support/mindsdb-sql-parser.js)
 * as exactly the name given; it writes a name plain only where the lexer reads it as a name, and
 * its list of MindsDB's keywords is the lexer's own.
 */
const assert = require('node:assert/strict');
const fc = require('fast-check');
const parser = require('../support/mindsdb-sql-parser');
const {
  SQL_KEYWORDS,
  foldCase,
  matchName,
  nameProblem,
  quotedName,
  sqlName,
  unquotedName,
} = require('../../nodes/common/sql-names');
const { ident } = require('../../nodes/client');

const VERSIONS = parser.versions();

/** Names a server may hold: plain, with capitals, spaces, a digit first, keywords, any script, punctuation. */
const NAMES = [
  'sensor_readings',
  '_private',
  'x1',
  'Alerts',
  'SensorLog',
  'my table',
  '1st',
  '1st try',
  '2024',
  'a.b',
  'a-b',
  "it's",
  'say "hi"',
  'C:\\data\\',
  'line\nbreak',
  '--',
  ';',
  '/*',
  'é',
  'Ω≈ç',
  '😀',
  'ä_b',
  '$x',
  'end2',
  'END',
  'Select',
];

/** What the parser read as the select list's first name and the FROM table's name parts. */
async function readBack(written, version) {
  const sql = `SELECT ${written} FROM ${written}.${written}`;
  const res = await parser.parse(sql, version);
  if (!res.ok) return { error: `${sql}: ${res.error}` };
  return { column: res.ast.targets[0].parts, table: res.ast.from_table.parts };
}

describe('sql-names: a name in MindsDB SQL, for the client and the editor', function () {
  this.timeout(60000);

  for (const version of VERSIONS) {
    it(`knows the words MindsDB's lexer reads as keywords (mindsdb_sql_parser ${version})`, async () => {
      const lexer = await parser.keywords(version);
      assert.ok(lexer.ok, lexer.error);
      assert.ok(lexer.keywords.includes('select') && lexer.keywords.includes('end'), 'the lexer has its keywords');
      assert.deepEqual([...SQL_KEYWORDS].sort(), lexer.keywords);
    });

    it(`writes every name so that MindsDB's parser reads it back as given, plain only where it can (${version})`, async () => {
      const names = [...NAMES, ...SQL_KEYWORDS];
      const wrong = [];
      for (const name of names) {
        for (const written of [sqlName(name), quotedName(name)]) {
          const read = await readBack(written, version);
          if (read.error) wrong.push(read.error);
          else if (
            !(
              read.column.length === 1 &&
              read.column[0] === name &&
              read.table.join('\u0001') === `${name}\u0001${name}`
            )
          )
            wrong.push(`${JSON.stringify(name)} written ${written} reads back as ${JSON.stringify(read)}`);
        }
      }
      assert.deepEqual(wrong, []);
    });

    it(`writes generated names back as given when nameProblem lets them through (${version})`, async () => {
      const generated = fc.sample(
        fc.string({ unit: fc.constantFrom('a', 'Z', '_', '1', ' ', '.', "'", '"', '\\', '\n', 'é', '😀', '-', ';') }),
        { numRuns: 200, seed: 39 },
      );
      const wrong = [];
      for (const name of generated.filter((n) => nameProblem(n) === undefined)) {
        const read = await readBack(sqlName(name), version);
        if (read.error || read.column[0] !== name) wrong.push(`${JSON.stringify(name)}: ${JSON.stringify(read)}`);
      }
      assert.deepEqual(wrong, []);
    });
  }

  it('writes plain what the lexer reads as a name: lower case, digits and _, no digit first, no keyword', () => {
    assert.deepEqual(
      ['sensor_readings', 'Alerts', 'my table', '1st', 'end', 'status', 'select', 'knowledge_base', 'files'].map(
        sqlName,
      ),
      [
        'sensor_readings',
        '`Alerts`',
        '`my table`',
        '`1st`',
        '`end`',
        '`status`',
        '`select`',
        '`knowledge_base`',
        'files',
      ],
    );
    assert.equal(quotedName('sensor_readings'), '`sensor_readings`', 'the client backticks every name');
  });

  it('refuses what no quoting can write: a blank name, a backtick, NUL, broken Unicode; the client says which name', () => {
    for (const name of ['', ' ', '`', 'a`b', 'nul\u0000inside', 'a\ud800b', undefined, 7])
      assert.ok(nameProblem(name), `${JSON.stringify(name)} is refused`);
    for (const name of NAMES) assert.equal(nameProblem(name), undefined, `${JSON.stringify(name)} can be written`);
    assert.throws(() => ident('a`b', 'the model name'), {
      message: 'the model name "a`b" contains a character MindsDB\'s SQL cannot take in a name (` or NUL)',
    });
    assert.throws(() => ident(' ', 'the project'), { message: 'the project must be a non-empty string' });
    assert.equal(ident(3, 'the version'), '`3`', 'a version number is its digits');
  });

  it('reads a written name back: backticks off, a plain name as it is', () => {
    assert.deepEqual(['`My DB`', 'sensors', '`end`'].map(unquotedName), ['My DB', 'sensors', 'end']);
  });

  it('compares names in another case with foldCase, and finds a name as stored with matchName', () => {
    assert.equal(foldCase('SensorLog'), 'sensorlog');
    assert.deepEqual(matchName('sales', ['Sales', 'sales']), { found: 'exact', name: 'sales' });
    assert.deepEqual(matchName('SALES', ['Sales', 'sales']), { found: 'ambiguous', names: ['Sales', 'sales'] });
    assert.deepEqual(matchName('Sensors', ['sensors']), { found: 'case', name: 'sensors' });
  });
});
