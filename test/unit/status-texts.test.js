'use strict';
/**
 * Status ring texts (src/runtime/status-texts.ts) and the editor's side of them
 * (resources/mindsdb-editor.js): a text without values goes as its catalogue key, which Node-RED's
 * editor translates; a text with values goes in English, and the editor script finds its en-US
 * template again to show the editor language's. These tests hold both ends to the catalogues.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { StatusTexts } = require('../../nodes/runtime/status/status-texts');
const { MindsDBError } = require('../../nodes/client');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const localesDir = path.join(root, 'nodes', 'locales');
const LANGS = fs.readdirSync(localesDir).filter((d) => fs.statSync(path.join(localesDir, d)).isDirectory());
const catalogue = (lang, type) => JSON.parse(fs.readFileSync(path.join(localesDir, lang, `${type}.json`), 'utf8'));
/** Node types with a status ring (the config node has none). */
const TYPES = Object.keys(pkg['node-red'].nodes).filter((type) => catalogue('en-US', type)[type].status);

/** The editor script's matcher, run as the browser runs it (no RED here, so it subscribes to nothing). */
function editorScript() {
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(path.join(root, 'resources', 'mindsdb-editor.js'), 'utf8'), sandbox);
  return sandbox.window.MindsDBEditor;
}

/** name → template, for the strings of a status section (errors.* included). */
function templates(section, prefix = '') {
  return Object.entries(section).flatMap(([k, v]) =>
    typeof v === 'object' ? templates(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  );
}
const hasValues = (template) => /__\w+?__/.test(template);
/** Sample values as MindsDB has them: numbers, and names that are SQL identifiers (maybe qualified). */
const NUMBERS = ['count', 'version', 'seconds', 'kb'];
const sample = (template) =>
  Object.fromEntries(
    [...template.matchAll(/__(\w+?)__/g)].map((m, i) => [
      m[1],
      NUMBERS.includes(m[1]) ? String(40 + i) : `my_${m[1]}.v${i}`,
    ]),
  );
/** A template filled the way the editor's i18next fills it. */
const fill = (template, values) => template.replace(/__(\w+?)__/g, (_, name) => values[name]);

describe('status texts', function () {
  const sql = new StatusTexts('mindsdb-sql', ['requesting', 'ok', 'rows', 'streaming']);

  it("sends a text without values as its catalogue key, in the node's colours", function () {
    assert.deepEqual(sql.busy('requesting'), { fill: 'blue', shape: 'dot', text: 'mindsdb-sql.status.requesting' });
    assert.deepEqual(sql.ok('ok'), { fill: 'green', shape: 'dot', text: 'mindsdb-sql.status.ok' });
  });

  it('sends a text with values in English, filled from the en-US template', function () {
    assert.deepEqual(sql.ok('rows', { count: 42 }), { fill: 'green', shape: 'dot', text: '42 rows' });
    assert.deepEqual(sql.busy('streaming', { count: 0 }), { fill: 'blue', shape: 'dot', text: 'streaming: 0 rows' });
    const model = new StatusTexts('mindsdb-model', ['progress']);
    assert.deepEqual(model.waiting('progress', { state: 'generating', model: 'energy', version: 2, seconds: 7 }), {
      fill: 'yellow',
      shape: 'ring',
      text: 'generating: energy v2, 7 s',
    });
  });

  it('shows an HTTP status and a network code as they are, every other failure as a key', function () {
    const red = (text) => ({ fill: 'red', shape: 'ring', text });
    assert.deepEqual(sql.error(new MindsDBError('x', { kind: 'http', status: 404 })), red('HTTP 404'));
    assert.deepEqual(sql.error(new MindsDBError('x', { kind: 'network', code: 'ECONNREFUSED' })), red('ECONNREFUSED'));
    assert.deepEqual(sql.error(new MindsDBError('x', { kind: 'network' })), red('mindsdb-sql.status.errors.network'));
    assert.deepEqual(
      sql.error(new MindsDBError('x', { kind: 'network', code: 'E'.repeat(40) })),
      red(`${'E'.repeat(31)}…`),
    );
    for (const kind of [
      'sql',
      'auth',
      'unsupported',
      'timeout',
      'invalid-response',
      'too-large',
      'redirect',
      'queue-full',
      'closed',
      'input',
    ]) {
      assert.deepEqual(sql.error(new MindsDBError('x', { kind })), red(`mindsdb-sql.status.errors.${kind}`));
    }
    assert.deepEqual(sql.error(new Error('boom')), red('mindsdb-sql.status.errors.error'));
  });

  it('labels an error of a kind it has no text for as "error", never throwing (the message must still end)', function () {
    assert.deepEqual(sql.error(new MindsDBError('x', { kind: 'some-new-kind' })), {
      fill: 'red',
      shape: 'ring',
      text: 'mindsdb-sql.status.errors.error',
    });
  });

  it('fails when the node type registers, not at the first message, if a text is missing from the catalogue', function () {
    const partial = { 'mindsdb-sql': { status: { requesting: 'requesting', errors: {} } } };
    // The server's health is every node's (health-ring.ts): its texts are needed first.
    assert.throws(
      () => new StatusTexts('mindsdb-sql', ['requesting'], partial),
      /no status text "serverUp" in nodes\/locales\/en-US\/mindsdb-sql\.json/,
    );
    const health = Object.fromEntries(
      ['serverUp', 'serverBusy', 'serverDown', 'serverUpKept', 'serverBusyKept', 'serverDownKept'].map((k) => [k, k]),
    );
    partial['mindsdb-sql'].status = { ...health, ...partial['mindsdb-sql'].status };
    assert.throws(
      () => new StatusTexts('mindsdb-sql', ['requesting'], partial),
      /no status text "errors\.sql" in nodes\/locales\/en-US\/mindsdb-sql\.json/,
    );
    assert.throws(() => new StatusTexts('mindsdb-sql', ['rows', 'nope']), /no status text "nope"/);
    assert.throws(() => new StatusTexts('mindsdb-sql', [], { 'mindsdb-sql': {} }), /has no "status" section/);
  });

  it('finds the values of a text made from a template, in the editor script', function () {
    const { statusValues } = editorScript();
    assert.deepEqual({ ...statusValues('__count__ rows', '42 rows') }, { count: '42' });
    assert.deepEqual(
      { ...statusValues('__state__: __model__ v__version__, __seconds__ s', 'training: my.model v3, 12 s') },
      { state: 'training', model: 'my.model', version: '3', seconds: '12' },
    );
    assert.equal(statusValues('__count__ rows', 'streaming: 42 rows (x)'), null);
    assert.equal(statusValues('deleted __name__', 'mindsdb-file.status.deleted'), null);
    assert.equal(statusValues('a.b (__x__)', 'aXb (1)'), null, "the template's own characters are literal");
    assert.equal(
      statusValues('__model__ v__version__', 'Warteschlange voll'),
      null,
      'a number placeholder takes digits only',
    );
    assert.deepEqual({ ...statusValues('__model__ v__version__', 'energy v12') }, { model: 'energy', version: '12' });
  });

  for (const type of TYPES) {
    it(`${type}: every status text with values is found again by the editor and shown in every language`, function () {
      const { statusValues } = editorScript();
      const english = templates(catalogue('en-US', type)[type].status);
      const texts = new StatusTexts(
        type,
        english.map(([name]) => name),
      );
      for (const [name, template] of english.filter(([, t]) => hasValues(t))) {
        const values = sample(template);
        const sent = texts.ok(name, values).text;
        assert.equal(sent, fill(template, values));
        // The editor script tries the node's templates in catalogue order and takes the first match.
        const first = english.filter(([, t]) => hasValues(t)).find(([, t]) => statusValues(t, sent));
        assert.equal(first?.[0], name, `"${sent}" is read back as ${name}, not ${first?.[0]}`);
        assert.deepEqual({ ...statusValues(template, sent) }, values);
        for (const lang of LANGS) {
          const translated = templates(catalogue(lang, type)[type].status).find(([n]) => n === name)[1];
          for (const value of Object.values(values))
            assert.ok(fill(translated, values).includes(value), `${lang} ${name} shows ${value}`);
        }
      }
    });

    it(`${type}: no translated text without values looks like an English text with values`, function () {
      // Else the editor script, running after Node-RED translated a key, would translate it again.
      const { statusValues } = editorScript();
      const dynamic = templates(catalogue('en-US', type)[type].status).filter(([, t]) => hasValues(t));
      for (const lang of LANGS) {
        for (const [name, text] of templates(catalogue(lang, type)[type].status).filter(([, t]) => !hasValues(t))) {
          const clash = dynamic.find(([, t]) => statusValues(t, text));
          assert.equal(clash, undefined, `${lang} ${name} "${text}" matches the English template ${clash?.[0]}`);
        }
      }
    });
  }
});
