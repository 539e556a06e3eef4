'use strict';
/**
 * Every SQL statement the package builds, with hostile names and values, read back by MindsDB's
 * own parser (mindsdb_sql_parser at the version each pinned MindsDB uses; see
 * ../support/mindsdb-sql-parser.js): the parsed statement must hold exactly the names and values
 * given, or the value must be refused before anything is sent, with an input error, and only when
 * MindsDB's parser really cannot read it back.
 *
 * The statements go through the real client to the stand-in server (which parses them too, and
 * answers every statement with a model row so that each API call completes); the text it received
 * is then parsed again with each pinned parser version and its AST compared with the inputs.
 */
const assert = require('node:assert/strict');
const fc = require('fast-check');
const parser = require('../support/mindsdb-sql-parser');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const {
  MindsDBClient,
  ModelsApi,
  KnowledgeBasesApi,
  incrementalQuery,
  positionalToNamed,
  sqlPieces,
  sqlSubquery,
  sqlUsing,
} = require('../../nodes/client');

const VERSIONS = parser.versions();

/**
 * Hand-picked: quotes, backticks, backslashes (at the end too), newlines, NUL, unicode, comment and statement breakers.
 */
const HOSTILE = [
  'plain',
  'with space',
  "it's",
  "''",
  "'",
  "'lead",
  "trail'",
  "'both'",
  '"',
  'a"b',
  '"lead',
  'trail"',
  '"both"',
  '\'mixed"',
  '"mixed\'',
  '`',
  'a`b',
  '\\',
  'C:\\data\\',
  'C:\\data\\x',
  'a\\\\b',
  '\\\\',
  "a\\'b",
  'a\\"b',
  '\\n',
  'line\nbreak',
  'cr\r\nlf',
  '\n',
  ' ',
  '',
  '\u0000',
  'nul\u0000inside',
  '😀',
  'é',
  'Ω≈ç',
  'e\u0301',
  '\u2028',
  '\u212A',
  'a\ud800b',
  '*/',
  '/*',
  '/* c */',
  '--',
  'x -- y',
  ';',
  "x'; DROP MODEL m; --",
  "', engine = 'evil",
  "C:\\data\\', engine = 'evil', x = '",
  '?',
  ':q',
  '@a',
  "@'v'",
  '${VAR}',
  '{',
  '}',
  '[1]',
  '(',
  ')',
  '.',
  'a.b',
  'select',
  'from',
  'USING',
  'null',
  'true',
  '1e5',
  '-1',
];

/** Generated: short mixes of the characters and pieces MindsDB's lexer treats specially. */
const GENERATED = fc.sample(
  fc
    .array(
      fc.constantFrom(
        "'",
        '"',
        '`',
        '\\',
        '\n',
        '\r',
        '\u0000',
        '😀',
        'é',
        '*/',
        '/*',
        '--',
        ';',
        '?',
        ':x',
        '@a',
        "''",
        ' ',
        'a',
        '=',
        ',',
        '(',
        ')',
        '{',
        '}',
        '.',
      ),
      { maxLength: 8 },
    )
    .map((a) => a.join('')),
  { numRuns: 150, seed: 2121 },
);
const VALUES = [...new Set([...HOSTILE, ...GENERATED])];

/** What ident() must refuse: blank, a backtick (MindsDB's quoted names have no escape), NUL, broken Unicode. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what ident() refuses
const nameRefused = (s) => s.trim() === '' || /[`\u0000]/.test(s) || /\p{Cs}/u.test(s);
/**
 * What sqlLiteral() must refuse for text: broken Unicode, a backslash at the end or before a quote, both quote kinds at
 * the ends.
 */
const textRefused = (s) =>
  /\p{Cs}/u.test(s) || /\\$/.test(s) || /\\['"]/.test(s) || (/^'|'$/.test(s) && /^"|"$/.test(s));

const isInputError = (err) => err && err.kind === 'input';

/** Parses with every pinned version; the statement must parse, and `check(ast)` must hold for each. */
async function holds(sql, check) {
  for (const version of VERSIONS) {
    const r = await parser.parse(sql, version);
    assert.ok(r.ok, `mindsdb_sql_parser ${version} refused what the package built:\n${sql}\n${r.error}`);
    check(r.ast, version);
  }
}

const partsOf = (node) => (node && node.node === 'Identifier' ? node.parts : undefined);

describe("SQL text the package builds, read back by MindsDB's own parser", function () {
  this.timeout(120000);
  let fake;
  let client;
  before(async () => {
    fake = await createFakeMindsDB().listen();
    // Every statement that parses is answered with a model row, so train/retrain/finetune complete.
    fake.state.sql = () => ({ type: 'table', column_names: ['NAME', 'PROJECT', 'VERSION'], data: [['m', 'p', 1]] });
    client = new MindsDBClient({ baseUrl: fake.url, retries: 0 });
  });
  after(async () => {
    await client.close(0);
    await fake.close();
  });

  /**
   * Runs `call`, and returns the SQL text it sent, or null when it refused with an input error
   * before sending. Any other failure (an SQL error: the stand-in's parser refused it) fails.
   */
  async function sent(call) {
    const before = fake.requestsTo('/sql/query').length;
    try {
      await call();
    } catch (err) {
      if (isInputError(err)) {
        assert.equal(fake.requestsTo('/sql/query').length, before, `refused (${err.message}) but sent SQL anyway`);
        return null;
      }
      if (!(err && err.method === 'GET')) throw err; // activate's follow-up GET of the model may 404
    }
    const requests = fake.requestsTo('/sql/query');
    assert.equal(requests.length, before + 1, 'one statement sent');
    const entry = requests.at(-1);
    assert.ok(entry.parsed?.ok, `the stand-in (MindsDB's parser) refused: ${entry.parsed?.error}`);
    return entry.body.query;
  }

  const models = () => new ModelsApi(client);

  describe('names (identifiers): quoted as `name`, or refused', () => {
    for (const v of VALUES) {
      it(`${JSON.stringify(v)} as project, model, source database, column and USING key`, async () => {
        const sql = await sent(() =>
          models().train(v, {
            model: v,
            database: v,
            select: 'SELECT * FROM t',
            predict: v,
            engine: 'e',
            using: { [v]: 1 },
          }),
        );
        if (nameRefused(v)) {
          assert.equal(sql, null, `${JSON.stringify(v)} was sent: ${sql}`);
          return;
        }
        assert.notEqual(sql, null, `${JSON.stringify(v)} was refused, but MindsDB can read it as a name`);
        await holds(sql, (ast) => {
          assert.equal(ast.node, 'CreatePredictor');
          assert.deepEqual(ast.name.parts, [v, v]);
          assert.deepEqual(partsOf(ast.integration_name), [v]);
          assert.deepEqual(ast.targets.map(partsOf), [[v]]);
          // the Engine field wins over a USING engine key
          assert.deepEqual(ast.using, v === 'engine' ? { engine: 'e' } : { engine: 'e', [v]: 1 });
        });
      });
    }

    // (describe is REST, not SQL: MindsDB's SQL DESCRIBE lower-cases the name; docs/real-mindsdb.md)
    it('model versions, SET active, DROP MODEL and RETRAIN/FINETUNE names hold every part', async () => {
      for (const v of VALUES.filter((s) => !nameRefused(s))) {
        await holds(await sent(() => models().activate(v, v, 2)), (ast) => {
          assert.equal(ast.node, 'Set');
          assert.equal(ast.category, 'active');
          assert.deepEqual(ast.value.parts, [v, v, '2']);
        });
        await holds(await sent(() => models().delete(v, v, 2)), (ast) => {
          assert.equal(ast.node, 'DropPredictor');
          assert.deepEqual(ast.name.parts, [v, v, '2']);
        });
        await holds(await sent(() => models().retrain(v, v, {})), (ast) => {
          assert.equal(ast.node, 'RetrainPredictor');
          assert.deepEqual(ast.name.parts, [v, v]);
        });
        await holds(await sent(() => models().finetune(v, v, { database: v, select: 'SELECT 1' })), (ast) => {
          assert.equal(ast.node, 'FinetunePredictor');
          assert.deepEqual(ast.name.parts, [v, v]);
          assert.deepEqual(partsOf(ast.integration_name), [v]);
        });
      }
    });

    it('knowledge-base search: names quoted, the text and threshold bound, the limit a number', async () => {
      const kb = new KnowledgeBasesApi(client);
      for (const v of VALUES) {
        const sql = await sent(() => kb.search(v, v, { text: v.trim() === '' ? 'x' : v, limit: 7, threshold: 0.5 }));
        if (nameRefused(v)) {
          assert.equal(sql, null);
          continue;
        }
        const body = fake.requestsTo('/sql/query').at(-1).body;
        assert.deepEqual(body.params, { q: v.trim() === '' ? 'x' : v, r: 0.5 });
        await holds(sql, (ast) => {
          assert.equal(ast.node, 'Select');
          assert.deepEqual(ast.from_table.parts, [v, v]);
          assert.deepEqual(
            ast.where.args.map((a) => [a.op, a.args[0].parts, a.args[1].node, a.args[1].value]),
            [
              ['=', ['content'], 'Parameter', 'q'],
              ['>=', ['relevance'], 'Parameter', 'r'],
            ],
          );
          assert.equal(ast.limit.value, 7);
        });
      }
    });
  });

  describe('values (USING literals): read back exactly, or refused', () => {
    for (const v of VALUES) {
      it(`${JSON.stringify(v)} as a USING value, inside an object (key and value) and a list`, async () => {
        const using = { path: v, obj: { [v]: v, list: [v, 1, null, true] } };
        const sql = await sent(() => models().retrain('p', 'm', { using }));
        if (textRefused(v)) {
          assert.equal(sql, null, `${JSON.stringify(v)} was sent: ${sql}`);
          return;
        }
        assert.notEqual(sql, null, `${JSON.stringify(v)} was refused, but MindsDB can read it back`);
        await holds(sql, (ast) => {
          assert.deepEqual(ast.name.parts, ['p', 'm']);
          assert.deepEqual(ast.using, using);
        });
      });
    }

    it("refuses only what MindsDB's parser cannot read back in either kind of quotes", async () => {
      for (const v of VALUES.filter(textRefused).filter((s) => !/\p{Cs}/u.test(s))) {
        for (const quoted of [`'${v.replace(/'/g, "''")}'`, `"${v.replace(/"/g, '""')}"`]) {
          const r = await parser.parse(`RETRAIN p.m USING a = ${quoted}, b = 'after'`);
          const exact =
            r.ok &&
            r.ast.using &&
            r.ast.using.a === v &&
            r.ast.using.b === 'after' &&
            Object.keys(r.ast.using).length === 2;
          assert.ok(!exact, `${JSON.stringify(v)} is refused, yet MindsDB reads ${quoted} back exactly`);
        }
      }
    });

    it('instance 2: C:\\data\\ can no longer carry the rest of the statement (it is refused); C:\\data\\x and C:/data/ are written as they are', async () => {
      assert.equal(
        await sent(() =>
          models().train('p', { model: 'm', predict: 'y', engine: 'e', using: { path: 'C:\\data\\', engine: 'x' } }),
        ),
        null,
      );
      for (const path of ['C:\\data\\x', 'C:/data/', "C:\\data\\', engine = 'evil"]) {
        const sql = await sent(() =>
          models().train('p', { model: 'm', predict: 'y', engine: 'safe', using: { path, other: 'z' } }),
        );
        if (/\\'/.test(path)) {
          assert.equal(sql, null);
          continue;
        }
        await holds(sql, (ast) => assert.deepEqual(ast.using, { engine: 'safe', path, other: 'z' }));
      }
    });

    it('numbers in plain digits, booleans and null; negative numbers, NaN and Infinity refused', async () => {
      const numbers = [
        0,
        1,
        42,
        2 ** 53 + 2,
        1e21,
        1e300,
        Number.MAX_VALUE,
        0.5,
        1.5e-7,
        5e-324,
        123456.789,
        0.1 + 0.2,
      ];
      const sql = await sent(() => models().retrain('p', 'm', { using: { n: numbers, t: true, f: false, z: null } }));
      await holds(sql, (ast) => assert.deepEqual(ast.using, { n: numbers, t: true, f: false, z: null }));
      for (const bad of [-1, -0.5, NaN, Infinity, -Infinity]) {
        assert.equal(await sent(() => models().retrain('p', 'm', { using: { n: bad } })), null, `${bad} was sent`);
      }
      const minus = await parser.parse('RETRAIN p.m USING n = -1');
      assert.equal(minus.ok, false, 'MindsDB reads a negative number in USING after all: stop refusing it');
    });
  });

  describe("a user's training SELECT stays inside its parentheses", () => {
    const SELECTS = [
      'SELECT * FROM t',
      'SELECT * FROM t;',
      'SELECT * FROM t -- latest',
      'SELECT * FROM t /* c */',
      "SELECT ')' AS x FROM t",
      'SELECT `a)` FROM t',
      'SELECT (1) FROM t',
      "SELECT 1) PREDICT z USING engine = 'evil' --",
      'SELECT (1 FROM t',
      'SELECT 1; DROP MODEL p.m',
      "SELECT 'unclosed FROM t",
      'SELECT * FROM t /* unclosed',
      "SELECT 'C:\\' FROM t",
      'SELECT "a""b" FROM t',
      "SELECT @'v' FROM t",
      '',
    ];
    const generated = fc.sample(
      fc
        .array(
          fc.constantFrom('SELECT ', '1', ' ', "'", '"', '`', '\\', '(', ')', ';', '--', '/*', '*/', '\n', 'x', ','),
          { minLength: 1, maxLength: 10 },
        )
        .map((a) => a.join('')),
      { numRuns: 300, seed: 77 },
    );
    it('either refused, or the statement around it holds exactly what the node set (a */ or a quote in a value cannot reach into it)', async () => {
      for (const select of [...SELECTS, ...generated]) {
        let sub;
        try {
          sub = sqlSubquery(select, 'the SELECT');
        } catch (err) {
          assert.ok(isInputError(err), err.message);
          continue;
        }
        const using = { engine: 'safe', v: "*/ ) PREDICT z USING engine = 'evil' --" };
        const sql = `CREATE MODEL \`p\`.\`m\` FROM \`db\` ${sub} PREDICT \`y\`${sqlUsing(using)}`;
        for (const version of VERSIONS) {
          const r = await parser.parse(sql, version);
          if (!r.ok) continue; // MindsDB refuses the whole statement: nothing was changed by the SELECT
          assert.equal(r.ast.node, 'CreatePredictor', `${JSON.stringify(select)} → ${sql}`);
          assert.deepEqual(r.ast.name.parts, ['p', 'm'], sql);
          assert.deepEqual(r.ast.targets.map(partsOf), [['y']], sql);
          assert.deepEqual(r.ast.using, using, sql);
          const alone = await parser.parse(select.trim().replace(/;\s*$/, ''), version);
          if (alone.ok)
            assert.deepEqual(
              (await parser.parse(r.ast.query_str, version)).ast,
              alone.ast,
              `the SELECT changed inside the statement: ${sql}`,
            );
        }
      }
    });

    it('refuses what would leave its parentheses or hide the rest: a stray ), an open (, a ;, an unclosed quote or /*', () => {
      for (const [select, pattern] of [
        ["SELECT 1) PREDICT z USING engine = 'evil' --", /closes a parenthesis/],
        ['SELECT (1 FROM t', /leaves 1 parenthesis open/],
        ['SELECT 1; DROP MODEL p.m', /one SELECT statement/],
        ["SELECT 'x FROM t", /that nothing closes/],
        ['SELECT * FROM t /* c', /\/\* comment .* nothing closes/],
        ["SELECT 'C:\\' FROM t", /closes only because nothing follows it/],
      ])
        assert.throws(() => sqlSubquery(select, 'the SELECT'), pattern);
      assert.equal(sqlSubquery('SELECT * FROM t -- latest', 'the SELECT'), '(\nSELECT * FROM t -- latest\n)');
    });
  });

  describe("incremental mode: the filter and order around a user's SELECT", () => {
    /** The WHERE as a canonical text: names as [parts], parameters as :name, each operation in parentheses. */
    const shape = (n) => {
      if (n.node === 'BinaryOperation') return `(${shape(n.args[0])} ${n.op} ${shape(n.args[1])})`;
      if (n.node === 'Identifier') return `[${n.parts.join('|')}]`;
      if (n.node === 'Parameter') return `:${n.value}`;
      if (n.node === 'NullConstant') return 'NULL';
      return `?${n.node}`;
    };
    const expected = (w, k) =>
      `(((${w} is not NULL) and (${k} is not NULL)) and ((${w} > :incremental_watermark) or ((${w} = :incremental_watermark) and (${k} > :incremental_key))))`;

    it("every column name is one quoted name in the WHERE and the ORDER BY, or refused; the SELECT inside is the user's", async () => {
      for (const v of VALUES) {
        const columns = { watermark: v, key: `${v}_key` };
        let q;
        try {
          q = incrementalQuery('SELECT * FROM t WHERE x = :min', columns, { watermark: 'w', key: 1 }, { min: 1 });
        } catch (err) {
          assert.ok(isInputError(err), err.message);
          assert.ok(
            nameRefused(v) || nameRefused(columns.key),
            `${JSON.stringify(v)} was refused but MindsDB's lexer can take it: ${err.message}`,
          );
          continue;
        }
        assert.ok(!nameRefused(v), `${JSON.stringify(v)} should have been refused`);
        assert.deepEqual(q.params, { min: 1, incremental_watermark: 'w', incremental_key: 1 });
        await holds(q.query, (ast) => {
          assert.equal(shape(ast.where), expected(`[${v}]`, `[${v}_key]`), q.query);
          assert.deepEqual(
            ast.order_by.map((o) => [o.field.parts, o.direction]),
            [
              [[v], 'default'],
              [[`${v}_key`], 'default'],
            ],
            q.query,
          );
          assert.deepEqual(ast.from_table.from_table.parts, ['t']);
          assert.equal(shape(ast.from_table.where), '([x] = :min)');
          assert.deepEqual(ast.from_table.alias.parts, ['incremental_rows']);
        });
      }
    });

    it('the first run has no position (every row with a watermark and a key); a watermark alone compares only the watermark', async () => {
      await holds(incrementalQuery('SELECT 1 AS a, 2 AS b', { watermark: 'a', key: 'b' }, undefined).query, (ast) => {
        assert.equal(shape(ast.where), '(([a] is not NULL) and ([b] is not NULL))');
      });
      const q = incrementalQuery('SELECT 1 AS a, 2 AS b', { watermark: 'a', key: 'b' }, { watermark: 5 });
      assert.deepEqual(q.params, { incremental_watermark: 5 });
      await holds(q.query, (ast) => {
        assert.equal(
          shape(ast.where),
          '((([a] is not NULL) and ([b] is not NULL)) and ([a] > :incremental_watermark))',
        );
      });
    });
  });

  describe("positional parameters: each ? that MindsDB's lexer reads as a placeholder, and only those, becomes :pN", () => {
    const QUERIES = [
      'SELECT ?',
      "SELECT '?', ?",
      'SELECT "?", ?',
      'SELECT `?`, ?',
      'SELECT ? -- ?',
      'SELECT /* ? */ ?',
      'SELECT ? /* ?',
      "SELECT 'C:\\', ?",
      "SELECT 'C:\\', ?, 'x'",
      "SELECT 'it''s ?', ?",
      "SELECT 'a\\'?', ?",
      "SELECT @'v?', ?",
      "SELECT x <@'a\\'?', ?",
      'SELECT a::text, ?',
      'SELECT ?::int',
      "SELECT {'k': ?}",
      "SELECT ? FROM t WHERE a = ? AND b = '?'",
      'SELECT 1',
      'SELECT ?a',
      'SELECT a:?',
      'SELECT ?1',
      'SELECT ?é',
      'SELECT ?$',
    ];
    const generated = fc.sample(
      fc
        .array(
          fc.constantFrom(
            "'",
            '"',
            '`',
            '\\',
            '?',
            ':',
            '-',
            '/',
            '*',
            '@',
            '<',
            'a',
            '\n',
            ' ',
            '(',
            ')',
            ';',
            '😀',
            '\r',
            '.',
          ),
          { maxLength: 20 },
        )
        .map((a) => a.join('')),
      { numRuns: 1500, seed: 31 },
    );

    it("rewrites exactly MindsDB's PARAMETER tokens, or refuses what MindsDB's lexer refuses at a quote", async () => {
      let compared = 0;
      for (const q of [...QUERIES, ...generated]) {
        for (const version of VERSIONS) {
          const original = await parser.tokens(q, version);
          if (!original.ok) {
            const at = [...q].slice(0, original.index).join('').length;
            if (["'", '"', '`'].includes(q[at]))
              assert.throws(
                () => positionalToNamed(q, []),
                (e) => isInputError(e) && /nothing closes|mixes/.test(e.message),
                JSON.stringify(q),
              );
            continue;
          }
          const params = original.tokens.filter((t) => t[0] === 'PARAMETER');
          if (params.some((t) => t[1] !== '?')) {
            assert.throws(
              () =>
                positionalToNamed(
                  q,
                  params.map(() => 0),
                ),
              (e) => isInputError(e),
              JSON.stringify(q),
            );
            continue;
          }
          const { query, params: bound } = positionalToNamed(
            q,
            params.map((_, k) => k),
          );
          assert.deepEqual(
            Object.keys(bound),
            params.map((_, k) => `p${k + 1}`),
          );
          const rewritten = await parser.tokens(query, version);
          assert.ok(rewritten.ok, `${JSON.stringify(q)} → ${JSON.stringify(query)}: ${rewritten.error}`);
          let k = 0;
          const expected = original.tokens.map(([type, value]) => [type, type === 'PARAMETER' ? `p${++k}` : value]);
          assert.deepEqual(
            rewritten.tokens.map(([type, value]) => [type, value]),
            expected,
            `${JSON.stringify(q)} → ${JSON.stringify(query)}`,
          );
          compared++;
        }
      }
      assert.ok(compared > 300, `only ${compared} statements were compared`);
    });

    it("the lexer pieces match MindsDB's tokens: strings, quoted names and variables start where MindsDB's start", async () => {
      for (const q of generated) {
        const r = await parser.tokens(q);
        if (!r.ok) continue;
        const cp = (i) => [...q.slice(0, i)].length;
        const mine = sqlPieces(q)
          .filter((p) => ['string', 'name', 'variable'].includes(p.kind))
          .map((p) => cp(p.start));
        const theirs = r.tokens
          .filter(
            ([type, value]) =>
              ['QUOTE_STRING', 'DQUOTE_STRING', 'VARIABLE', 'SYSTEM_VARIABLE'].includes(type) ||
              (type === 'ID' && value[0] === '`'),
          )
          .map((t) => t[2]);
        assert.deepEqual(mine, theirs, JSON.stringify(q));
      }
    });

    it("stays linear on input that makes MindsDB's string pattern backtrack (a quote and many backslashes)", () => {
      const started = Date.now();
      assert.throws(() => positionalToNamed(`SELECT ?, '${'\\'.repeat(200_000)}`, [1]), /nothing closes/);
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    });
  });
});
