'use strict';
/**
 * A knowledge-base search's metadata filter (src/client/resources/kb-filter.ts) and the rows of its
 * answer (kb-rows.ts): the conditions a flow's object becomes, the SQL they are written as (values
 * bound, text conditions first), the columns checked against those MindsDB stored, and the metadata
 * columns taken from the `metadata` object. The answers used here are the ones MindsDB 25.14.1 and
 * 26.1.0 gave (docs/real-mindsdb.md, "Knowledge-base search"); test/e2e/kb-search.e2e.js runs the
 * same on the real servers.
 */
const assert = require('node:assert/strict');
const { kbConditions, kbWhere, checkColumns } = require('../../nodes/client/resources/kb-filter');
const { fromMetadataObject } = require('../../nodes/client/resources/kb-rows');
const parser = require('../support/mindsdb-sql-parser');

describe('knowledge-base search filters', () => {
  it('a value is equality, a list IN, an object its operators; between is two ranges', () => {
    assert.deepEqual(
      kbConditions(
        {
          product: 'boiler',
          area: ['hall A', 'hall B'],
          year: { '>=': 2024, '<': 2026 },
          size: { between: [1, 5] },
          code: { 'NOT  IN': ['a', 'b'], like: 'x%', '<>': 'c' },
        },
        'msg.filter',
      ),
      [
        { column: 'product', op: '=', value: 'boiler' },
        { column: 'area', op: 'IN', value: ['hall A', 'hall B'] },
        { column: 'year', op: '>=', value: 2024 },
        { column: 'year', op: '<', value: 2026 },
        { column: 'size', op: '>=', value: 1 },
        { column: 'size', op: '<=', value: 5 },
        { column: 'code', op: 'NOT IN', value: ['a', 'b'] },
        { column: 'code', op: 'LIKE', value: 'x%' },
        { column: 'code', op: '!=', value: 'c' },
      ],
    );
    assert.deepEqual(kbConditions(undefined, 'msg.filter'), []);
    assert.deepEqual(kbConditions(null, 'msg.filter'), []);
    assert.deepEqual(kbConditions({}, 'msg.filter'), []);
  });

  it('writes what MindsDB would answer wrongly in the form it answers rightly', () => {
    // A list of one: MindsDB 26.1.0 finds nothing for `IN (:a)`, 25.14.1 fails.
    assert.deepEqual(kbConditions({ p: ['pump'], q: { 'not in': [3] } }, 'f'), [
      { column: 'p', op: '=', value: 'pump' },
      { column: 'q', op: '!=', value: 3 },
    ]);
    // A boolean is compared as a number (and fails); MindsDB reads stored JSON true back as 'true'.
    assert.deepEqual(kbConditions({ ok: true, bad: [false, true] }, 'f'), [
      { column: 'ok', op: '=', value: 'true' },
      { column: 'bad', op: 'IN', value: ['false', 'true'] },
    ]);
    // A range on a quoted number is a text comparison ('999' > '2024'): a range means numbers.
    assert.deepEqual(kbConditions({ year: { '>': '2024', '<=': ' 2025.5 ' } }, 'f'), [
      { column: 'year', op: '>', value: 2024 },
      { column: 'year', op: '<=', value: 2025.5 },
    ]);
    // Equality keeps the text: '2024' equals a stored 2024, and a code such as '007' stays '007'.
    assert.deepEqual(kbConditions({ year: '2024', code: '007', d: { '>=': '2024-01-01' } }, 'f'), [
      { column: 'year', op: '=', value: '2024' },
      { column: 'code', op: '=', value: '007' },
      { column: 'd', op: '>=', value: '2024-01-01' },
    ]);
  });

  for (const [what, filter, pattern] of [
    ['not an object', 'product = boiler', /msg\.filter must be an object of metadata column → condition, not string/],
    ['an array', [{ product: 'x' }], /must be an object/],
    ['null', { product: null }, /msg\.filter\.product is null: MindsDB's knowledge bases cannot filter on a missing/],
    ['an empty list', { product: [] }, /msg\.filter\.product is an empty list/],
    ['a mixed list', { year: [2024, '2025'] }, /mixes numbers and texts/],
    ['an unknown operator', { year: { '=>': 1 } }, /"=>" is not an operator of a knowledge-base filter/],
    ['no operator', { year: {} }, /msg\.filter\.year has no condition/],
    ['a boolean range', { ok: { '>': true } }, /a boolean cannot be compared with >/],
    ['NaN', { year: Number.NaN }, /must be a finite number/],
    ['an object value', { year: { '=': { a: 1 } } }, /must be a text or a number, not object/],
    ['between of one', { year: { between: [1] } }, /list of two values/],
    ['in without a list', { year: { in: 2024 } }, /must be a list of values/],
    ['an empty text', { product: '' }, /is an empty text/],
    ['a backtick in a column', { 'a`b': 1 }, /contains a character MindsDB's SQL cannot take in a name/],
  ])
    it(`refuses ${what}, saying where`, () => {
      assert.throws(
        () => kbConditions(filter, 'msg.filter'),
        (e) => e.kind === 'input' && pattern.test(e.message),
      );
    });

  it('writes each value as a bound parameter, text conditions first, names quoted; MindsDB parses it back', async () => {
    const params = {};
    const where = kbWhere(
      kbConditions({ year: { '>=': 2024 }, product: ['pump', 'heater'], "it's": "o'k; DROP x --" }, 'f'),
      params,
    );
    assert.deepEqual(where, ['`product` IN (:f1, :f2)', "`it's` = :f3", '`year` >= :f4']);
    assert.deepEqual(params, { f1: 'pump', f2: 'heater', f3: "o'k; DROP x --", f4: 2024 });
    const r = await parser.parse(`SELECT * FROM mindsdb.kb WHERE content = :q AND ${where.join(' AND ')} LIMIT 5`);
    assert.ok(r.ok, r.error);
    const text = JSON.stringify(r.ast);
    assert.ok(text.includes('"it\'s"'), `the quoted name is one identifier: ${text}`);
    assert.equal((text.match(/"Parameter"/g) || []).length, 5, 'five parameters (q, f1…f4), no value written');
  });

  it('checks columns against those MindsDB stored: another case names the stored one, an unknown one lists them', () => {
    const c = (column) => [{ column, op: '=', value: 'x' }];
    checkColumns(c('product'), ['product', 'Year'], 'mindsdb.kb');
    checkColumns(c('id'), ['product'], 'mindsdb.kb');
    checkColumns(c('chunk_id'), [], 'mindsdb.kb');
    assert.throws(
      () => checkColumns(c('Product'), ['product', 'Year'], 'mindsdb.kb'),
      /mindsdb\.kb has no metadata column "Product": MindsDB stored it as "product".*25\.x would find no rows/,
    );
    assert.throws(() => checkColumns(c('year'), ['product', 'Year'], 'mindsdb.kb'), /stored it as "Year"/);
    assert.throws(
      () => checkColumns(c('colour'), ['product', 'Year'], 'mindsdb.kb'),
      /no metadata column "colour" to filter on: its metadata columns are product, Year \(besides id and chunk_id\)/,
    );
    assert.throws(() => checkColumns(c('colour'), [], 'mindsdb.kb'), /it has no metadata columns/);
  });
});

describe('knowledge-base search rows', () => {
  const meta = (product, year) => ({ product, year, _original_doc_id: 'x', _chunk_index: 0 });
  const own = ['id', 'distance', 'chunk_id', 'chunk_content', 'relevance'];

  it("takes the metadata columns from the metadata object (a reranker's answer has them on the wrong rows)", () => {
    // Measured on 25.14.1 and 26.1.0 with a reranker: r1's own columns show r3's values.
    const columns = [...own, 'product', 'year', 'metadata'];
    const row = (id, rel, p, y, m) => ({
      id,
      distance: null,
      chunk_id: `${id}:c`,
      chunk_content: id,
      relevance: rel,
      product: p,
      year: y,
      metadata: m,
    });
    const { rows, columns: out } = fromMetadataObject(
      [row('r1', 0.9, 'pump', 2025, meta('boiler', 2024)), row('r3', 0.7, 'boiler', 2023, meta('pump', 2025))],
      columns,
    );
    assert.deepEqual(out, columns);
    assert.deepEqual(
      rows.map((r) => [r.id, r.product, r.year, r.relevance]),
      [
        ['r1', 'boiler', 2024, 0.9],
        ['r3', 'pump', 2025, 0.7],
      ],
    );
  });

  it('adds the columns 25.14.1 leaves out for metadata declared with capitals; reads a metadata text', () => {
    const m = { Product: 'pump', Year: 2025, _source: 'x' };
    const { rows, columns } = fromMetadataObject(
      [{ id: 'c2', distance: 0.1, chunk_id: 'c', chunk_content: 't', relevance: 0.9, metadata: JSON.stringify(m) }],
      [...own, 'metadata'],
    );
    assert.deepEqual(columns, [...own, 'Product', 'Year', 'metadata']);
    assert.equal(rows[0].Product, 'pump');
    assert.equal(rows[0].Year, 2025);
    assert.equal(rows[0].metadata, JSON.stringify(m), 'the metadata stays as MindsDB sent it');
  });

  it('a row whose metadata lacks a column has null there; an answer without metadata is left alone', () => {
    const { rows } = fromMetadataObject(
      [{ id: 'a', relevance: 1, product: 'stale', metadata: { _source: 'x' } }],
      ['id', 'relevance', 'product', 'metadata'],
    );
    assert.equal(rows[0].product, null);
    const plain = [{ id: 'a', product: 'p' }];
    assert.equal(fromMetadataObject(plain, ['id', 'product']).rows, plain);
  });
});
