'use strict';
/**
 * The help's shared parts (scripts/help.mjs): a `<!-- part NAME k="v" -->` line becomes the part,
 * indented like the line, the language's own part before the shared one; and every mistake in a
 * help source (an unknown part, a value missing or unused) stops the build naming file and line,
 * instead of shipping a help page with a hole in it.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

let expandParts;
let helpDir;

function writePart(rel, text) {
  fs.mkdirSync(path.dirname(path.join(helpDir, rel)), { recursive: true });
  fs.writeFileSync(path.join(helpDir, rel), text);
}

describe('help parts', function () {
  before(async function () {
    ({ expandParts } = await import('../../scripts/help.mjs'));
    helpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'help-parts-'));
    writePart('en-US/parts/greeting.html', '<p>Hello [[who]],</p>\n    <p>indented</p>\n');
    writePart('parts/greeting.html', '<p>shared [[who]]</p>\n');
    writePart('parts/code.html', '<code>{a: 1}</code>\n');
    writePart('parts/outer.html', '<div>\n    <!-- part code -->\n</div>\n');
    writePart('parts/loop.html', '<!-- part loop -->\n');
  });
  after(() => fs.rmSync(helpDir, { recursive: true, force: true }));

  const expand = (text, lang = 'en-US') => expandParts(text, { helpDir, lang, where: 'x.html' });

  it("puts the language's own part in place, indented like the line, with its values", function () {
    assert.equal(
      expand('<h3>A</h3>\n    <!-- part greeting who="flow builder" -->\n<h3>B</h3>'),
      '<h3>A</h3>\n    <p>Hello flow builder,</p>\n        <p>indented</p>\n<h3>B</h3>',
    );
  });

  it('falls back to the part every language shares, and expands parts inside parts', function () {
    assert.equal(expand('  <!-- part greeting who="x" -->', 'de'), '  <p>shared x</p>');
    assert.equal(expand('  <!-- part outer -->', 'ja'), '  <div>\n      <code>{a: 1}</code>\n  </div>');
  });

  it('leaves text without part lines as it is', function () {
    const text = '<p>no <!-- part here --> inline</p>\n<!-- a comment -->';
    assert.equal(expand(text), text);
  });

  it('stops on an unknown part, a missing value, an unused value or a part that names itself', function () {
    assert.throws(() => expand('a\n<!-- part nothing -->'), /x\.html:2: no part "nothing"/);
    assert.throws(() => expand('<!-- part greeting -->'), /x\.html:1: part "greeting" needs who=/);
    assert.throws(() => expand('<!-- part code who="x" -->'), /part "code" has no \[\[who\]\]/);
    assert.throws(() => expand('<!-- part loop -->'), /nest deeper/);
  });
});
