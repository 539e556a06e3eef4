'use strict';
/**
 * The editor files take their colours from Node-RED's theme variables (var(--red-ui-…)), never a
 * fixed colour: Node-RED 5 has dark and auto themes, where a fixed dark text colour disappears.
 * The one fixed colour allowed is the node's palette colour in registerType, which Node-RED itself
 * draws on every theme.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const COLOUR = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(/gi;
/** `color: "#3FADB5",` alone on its line: the palette colour of a node definition. */
const PALETTE_COLOUR = /^\s*color:\s*(["'])#[0-9a-f]{3,8}\1,?\s*$/i;

function editorFiles() {
  const html = (dir) =>
    fs
      .readdirSync(path.join(root, dir))
      .filter((f) => f.endsWith('.html'))
      .map((f) => path.join(dir, f));
  const js = fs
    .readdirSync(path.join(root, 'resources'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join('resources', f));
  const locales = path.join('nodes', 'locales');
  const help = fs.readdirSync(path.join(root, locales)).flatMap((lang) => html(path.join(locales, lang)));
  return [...html('nodes'), ...help, ...js];
}

/** Fixed colours in `text` that are neither a palette colour nor a var(--red-ui-…) fallback. */
function fixedColours(text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    if (PALETTE_COLOUR.test(line)) return;
    // A theme variable's fallback only shows on a Node-RED without that variable.
    const bare = line.replace(/var\(--red-ui-[\w-]+\s*,[^)]*\)/g, 'var()');
    for (const _m of bare.matchAll(COLOUR)) found.push(`line ${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe('editor colours', function () {
  it('finds a fixed colour where one is (the check itself)', function () {
    assert.equal(fixedColours('.x { color: #333; }').length, 1);
    assert.equal(fixedColours('$(el).css("background", "rgb(1, 2, 3)");').length, 1);
    assert.equal(fixedColours('.x { color: var(--red-ui-text-color-error, #d6615f); }').length, 0);
    assert.equal(fixedColours('        color: "#3FADB5",').length, 0);
  });

  it('uses only theme colours in every editor file', function () {
    const files = editorFiles();
    assert.ok(files.length >= 15, `${files.length} editor files found`);
    const fixed = files.flatMap((f) =>
      fixedColours(fs.readFileSync(path.join(root, f), 'utf8')).map((c) => `${f} ${c}`),
    );
    assert.deepEqual(fixed, []);
  });
});
