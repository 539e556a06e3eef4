'use strict';
/**
 * Every node type the package declares (package.json node-red.nodes) has its message catalogue
 * (nodes/locales/<lang>/<type>.json) and its help (…/<type>.html) in every language we ship, and
 * the languages say the same things: the same keys, the same placeholders and code in each
 * string, and help that documents the same msg properties with the same types, the same code,
 * the same links and the same sections. A key, a property or a placeholder that one language has
 * and another lacks fails here, naming the file and what differs.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const localesDir = path.join(root, 'nodes', 'locales');
const REFERENCE = 'en-US';
/** The languages we promise; any other folder under nodes/locales/ is held to the same rules. */
const REQUIRED = ['en-US', 'ja', 'zh-CN', 'de'];
const LANGS = [
  ...new Set([
    ...REQUIRED,
    ...fs.readdirSync(localesDir).filter((d) => fs.statSync(path.join(localesDir, d)).isDirectory()),
  ]),
];
const TYPES = Object.keys(pkg['node-red'].nodes);

// ---- message catalogues --------------------------------------------------------------------

/** key path → string, for every leaf of a catalogue ("mindsdb-sql.label.server"). */
function flatten(obj, prefix = '', out = new Map()) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out);
    else out.set(key, v);
  }
  return out;
}

/** Node-RED's __name__ placeholders and mustache {{name}} ones, sorted (a text may reorder them). */
function placeholders(text) {
  return [...String(text).matchAll(/__(\w+?)__|\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[0]).sort();
}

/** The distinct contents of <code> elements: code, JSON, SQL and msg paths stay as they are. */
function codes(text) {
  return [
    ...new Set([...String(text).matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => m[1].replace(/\s+/g, ' ').trim())),
  ].sort();
}

/** What differs between the reference catalogue and another language's. */
function catalogueDifferences(reference, other) {
  const ref = flatten(reference);
  const got = flatten(other);
  const problems = [];
  for (const key of ref.keys()) if (!got.has(key)) problems.push(`missing key ${key}`);
  for (const key of got.keys()) if (!ref.has(key)) problems.push(`key ${key} is not in ${REFERENCE}`);
  for (const [key, text] of ref) {
    if (!got.has(key)) continue;
    const t = got.get(key);
    if (typeof t !== typeof text) {
      problems.push(`${key} is a ${typeof t}, not a ${typeof text}`);
      continue;
    }
    if (typeof text !== 'string') continue;
    if (text.trim() !== '' && t.trim() === '') problems.push(`${key} is blank`);
    if (placeholders(t).join() !== placeholders(text).join())
      problems.push(`${key} has placeholders [${placeholders(t)}], ${REFERENCE} [${placeholders(text)}]`);
    if (codes(t).join('\n') !== codes(text).join('\n'))
      problems.push(`${key} has code [${codes(t).join(' | ')}], ${REFERENCE} [${codes(text).join(' | ')}]`);
  }
  return problems;
}

// ---- help -----------------------------------------------------------------------------------

/**
 * The structure of a help file: its sections (<h3>), the properties each documents (<dt>: name,
 * type, optional), the output ports, the <h4> subsections, the code and the links.
 */
function helpStructure(html) {
  const scripts = [...html.matchAll(/<script type="text\/html" data-help-name="([^"]+)">/g)].map((m) => m[1]);
  const sections = html
    .split(/<h3>/)
    .slice(1)
    .map((part) => {
      const heading = part.slice(0, part.indexOf('</h3>')).trim();
      const properties = [...part.matchAll(/<dt(\s+class="optional")?>([\s\S]*?)<\/dt>/g)].map((m) => {
        const type = m[2].match(/<span class="property-type">([\s\S]*?)<\/span>/);
        return {
          name: m[2]
            .replace(/<span[\s\S]*?<\/span>/, '')
            .replace(/<[^>]+>/g, '')
            .trim(),
          type: type ? type[1].replace(/\s+/g, ' ').trim() : '',
          optional: Boolean(m[1]),
        };
      });
      return { heading, properties };
    });
  const ports = [...html.matchAll(/<ol class="node-ports">([\s\S]*?)<\/ol>/g)].map(
    (m) => (m[1].match(/<li>/g) || []).length,
  );
  return {
    scripts,
    sections,
    ports,
    h4: (html.match(/<h4>/g) || []).length,
    codes: codes(html),
    links: [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).sort(),
  };
}

/** Sections whose properties are msg properties: their names and types never change with the language. */
const MESSAGE_SECTIONS = /^(Inputs|Outputs)$/;

const show = (p) => `${p.name}${p.optional ? ' (optional)' : ''}: ${p.type}`;

/** What differs between the reference help and another language's. */
function helpDifferences(type, reference, other) {
  const ref = helpStructure(reference);
  const got = helpStructure(other);
  const problems = [];
  if (got.scripts.join() !== type)
    problems.push(`the help script must be one data-help-name="${type}", got [${got.scripts}]`);
  if (got.sections.length !== ref.sections.length) {
    problems.push(
      `${got.sections.length} <h3> sections, ${REFERENCE} has ${ref.sections.length} (${ref.sections.map((s) => s.heading).join(', ')})`,
    );
  }
  ref.sections.forEach((section, i) => {
    const theirs = got.sections[i] || { heading: '(none)', properties: [] };
    const where = `section ${i + 1} (${section.heading} / ${theirs.heading})`;
    if (MESSAGE_SECTIONS.test(section.heading)) {
      // msg properties: every one documented in one language is documented in the other, as it is.
      const mine = section.properties.map(show);
      const other = theirs.properties.map(show);
      const lacking = mine.filter((p) => !other.includes(p));
      const extra = other.filter((p) => !mine.includes(p));
      for (const p of lacking) problems.push(`${where}: msg property ${p} is not documented`);
      for (const p of extra) problems.push(`${where}: msg property ${p} is not in ${REFERENCE}`);
      if (!lacking.length && !extra.length && mine.join() !== other.join())
        problems.push(`${where}: the msg properties are in another order`);
    } else {
      // Node properties (dialog fields): the names follow the translated dialog, the types do not.
      const mine = section.properties.map((p) => p.type).join(' / ');
      const other = theirs.properties.map((p) => p.type).join(' / ');
      if (mine !== other) problems.push(`${where}: properties of types [${other}], ${REFERENCE} [${mine}]`);
    }
  });
  if (got.ports.join() !== ref.ports.join()) problems.push(`output ports [${got.ports}], ${REFERENCE} [${ref.ports}]`);
  if (got.h4 !== ref.h4) problems.push(`${got.h4} <h4> subsections, ${REFERENCE} has ${ref.h4}`);
  for (const c of ref.codes) if (!got.codes.includes(c)) problems.push(`<code>${c}</code> is missing`);
  for (const c of got.codes) if (!ref.codes.includes(c)) problems.push(`<code>${c}</code> is not in ${REFERENCE}`);
  if (got.links.join() !== ref.links.join()) problems.push(`links [${got.links}], ${REFERENCE} [${ref.links}]`);
  return problems;
}

const read = (lang, file) => fs.readFileSync(path.join(localesDir, lang, file), 'utf8');
const exists = (lang, file) => fs.existsSync(path.join(localesDir, lang, file));

describe('locales', function () {
  describe('the checks themselves', function () {
    const catalogue = { t: { label: { a: 'Rows <code>msg.x</code>', b: '__count__ rows' }, paletteLabel: 't' } };

    it('find a key one language lacks, or has beyond the reference, at any depth', function () {
      const other = { t: { label: { a: 'Zeilen <code>msg.x</code>' }, paletteLabel: 't', extra: { deep: 'x' } } };
      assert.deepEqual(catalogueDifferences(catalogue, other), [
        'missing key t.label.b',
        `key t.extra.deep is not in ${REFERENCE}`,
      ]);
    });

    it('find a placeholder or a piece of code that differs', function () {
      const other = { t: { label: { a: 'Zeilen <code>msg.y</code>', b: '__n__ Zeilen' }, paletteLabel: 't' } };
      const problems = catalogueDifferences(catalogue, other);
      assert.equal(problems.length, 2, problems.join('\n'));
      assert.match(problems[0], /t\.label\.a has code \[msg\.y\]/);
      assert.match(problems[1], /t\.label\.b has placeholders \[__n__\]/);
      assert.deepEqual(placeholders('{{ start_datetime }} and __a__'), ['__a__', '{{ start_datetime }}']);
    });

    const help = (inputs, extra = '') => `<script type="text/html" data-help-name="t">
      <h3>Inputs</h3><dl class="message-properties">${inputs}</dl>
      <h3>Details</h3><dl class="message-properties"><dt>Timeout <span class="property-type">number</span></dt></dl>${extra}
    </script>`;
    const payload = '<dt>payload <span class="property-type">string</span></dt>';
    const topic = '<dt class="optional">topic <span class="property-type">string</span></dt>';

    it('find a msg property one help documents and the other does not, or with another type', function () {
      assert.deepEqual(helpDifferences('t', help(payload + topic), help(payload + topic)), []);
      assert.deepEqual(helpDifferences('t', help(payload + topic), help(payload)), [
        'section 1 (Inputs / Inputs): msg property topic (optional): string is not documented',
      ]);
      assert.deepEqual(helpDifferences('t', help(payload), help(payload + topic)), [
        `section 1 (Inputs / Inputs): msg property topic (optional): string is not in ${REFERENCE}`,
      ]);
      const retyped = help(payload.replace('string', 'object'));
      assert.equal(helpDifferences('t', help(payload), retyped).length, 2);
    });

    it('let a dialog field keep its translated name, but not lose code, links or sections', function () {
      const translated = help(payload).replace('Timeout <span', 'Zeitlimit <span');
      assert.deepEqual(helpDifferences('t', help(payload), translated), []);
      const withCode = help(payload, '<p><code>msg.tick</code> <a href="https://x">x</a></p><h4>E</h4>');
      assert.deepEqual(helpDifferences('t', withCode, help(payload)), [
        '0 <h4> subsections, en-US has 1',
        '<code>msg.tick</code> is missing',
        `links [], ${REFERENCE} [https://x]`,
      ]);
      assert.match(
        helpDifferences('t', help(payload), help(payload).replace('<h3>Details</h3>', '<h4>Details</h4>'))[0],
        /1 <h3> sections, en-US has 2/,
      );
    });
  });

  it(`are shipped for ${REQUIRED.join(', ')}`, function () {
    for (const lang of REQUIRED)
      assert.ok(LANGS.includes(lang) && fs.existsSync(path.join(localesDir, lang)), `nodes/locales/${lang}/`);
  });

  // The editor plugin's texts (the sidebar, completion, preview): one catalogue per language.
  for (const plugin of Object.keys(pkg['node-red'].plugins)) {
    describe(`${plugin} (editor plugin)`, function () {
      it(`has a catalogue in ${REFERENCE}`, function () {
        assert.ok(exists(REFERENCE, `${plugin}.json`), `nodes/locales/${REFERENCE}/${plugin}.json`);
      });
      for (const lang of LANGS.filter((l) => l !== REFERENCE)) {
        it(`has the same catalogue keys, placeholders and code in ${lang}`, function () {
          assert.ok(exists(lang, `${plugin}.json`), `nodes/locales/${lang}/${plugin}.json is missing`);
          const problems = catalogueDifferences(
            JSON.parse(read(REFERENCE, `${plugin}.json`)),
            JSON.parse(read(lang, `${plugin}.json`)),
          );
          assert.deepEqual(problems, [], `nodes/locales/${lang}/${plugin}.json:\n  ${problems.join('\n  ')}`);
        });
      }
    });
  }

  for (const type of TYPES) {
    describe(type, function () {
      it(`has a catalogue and help in ${REFERENCE}`, function () {
        assert.ok(exists(REFERENCE, `${type}.json`), `nodes/locales/${REFERENCE}/${type}.json`);
        assert.ok(exists(REFERENCE, `${type}.html`), `nodes/locales/${REFERENCE}/${type}.html`);
        assert.deepEqual(
          Object.keys(JSON.parse(read(REFERENCE, `${type}.json`))),
          [type],
          'one namespace, named after the type',
        );
      });

      for (const lang of LANGS.filter((l) => l !== REFERENCE)) {
        it(`has the same catalogue keys, placeholders and code in ${lang}`, function () {
          assert.ok(exists(lang, `${type}.json`), `nodes/locales/${lang}/${type}.json is missing`);
          const problems = catalogueDifferences(
            JSON.parse(read(REFERENCE, `${type}.json`)),
            JSON.parse(read(lang, `${type}.json`)),
          );
          assert.deepEqual(problems, [], `nodes/locales/${lang}/${type}.json:\n  ${problems.join('\n  ')}`);
        });

        it(`documents the same msg properties, code and links in its ${lang} help`, function () {
          assert.ok(exists(lang, `${type}.html`), `nodes/locales/${lang}/${type}.html is missing`);
          const problems = helpDifferences(type, read(REFERENCE, `${type}.html`), read(lang, `${type}.html`));
          assert.deepEqual(problems, [], `nodes/locales/${lang}/${type}.html:\n  ${problems.join('\n  ')}`);
        });
      }
    });
  }
});
