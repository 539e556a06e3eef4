'use strict';
/**
 * The editor files take their colours from Node-RED's theme variables (var(--red-ui-…)), never a
 * fixed colour: Node-RED 5 has dark and auto themes, where a fixed dark text colour disappears.
 * The one fixed colour allowed is the node's palette colour in registerType, which Node-RED itself
 * draws on every theme. Each variable exists in every supported Node-RED (a misspelt one would show
 * its light fallback on the dark theme), and each fallback is that variable's value in Node-RED
 * 4.1's light theme.
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

/** The light theme's `--red-ui-*` variables of a Node-RED package: name → value, from its :root rule. */
function themeVariables(nodeRedPackage) {
  const client = require.resolve(`${nodeRedPackage}/package.json`, { paths: [root] });
  const css = path.join(path.dirname(client), 'node_modules', '@node-red', 'editor-client', 'public', 'red');
  const file = fs.existsSync(css)
    ? path.join(css, 'style.min.css')
    : require.resolve('@node-red/editor-client/public/red/style.min.css', { paths: [path.dirname(client)] });
  const rootRule = /:root\{([^}]*)\}/.exec(fs.readFileSync(file, 'utf8'));
  assert.ok(rootRule, `${file} has no :root rule`);
  return new Map([...rootRule[1].matchAll(/(--red-ui-[\w-]+):\s*([^;]+)/g)].map((m) => [m[1], m[2].trim()]));
}

/** A hex colour in one spelling: lower case, six digits (#3a3 → #33aa33). */
const hex6 = (c) =>
  c.toLowerCase().replace(/^#([0-9a-f])([0-9a-f])([0-9a-f])$/, (_, r, g, b) => `#${r}${r}${g}${g}${b}${b}`);

/** Every `var(--red-ui-…, fallback)` in the editor files: {file, line, name, fallback}. */
function themeUses() {
  return editorFiles().flatMap((f) =>
    fs
      .readFileSync(path.join(root, f), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(/var\((--red-ui-[\w-]+)\s*(?:,\s*([^)]*))?\)/g)].map((m) => ({
          at: `${f}:${i + 1}`,
          name: m[1],
          fallback: m[2]?.trim(),
        })),
      ),
  );
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

  it('uses only theme variables that Node-RED 3.1, 4.1 and 5.0 define', function () {
    const uses = themeUses();
    assert.ok(uses.length >= 15, `${uses.length} theme variables used`);
    for (const nodeRed of ['node-red-3-1', 'node-red', 'node-red-5-0']) {
      const defined = themeVariables(nodeRed);
      assert.ok(defined.size > 200, `${nodeRed}: ${defined.size} variables read`);
      const unknown = uses.filter((u) => !defined.has(u.name)).map((u) => `${u.at} ${u.name}`);
      assert.deepEqual(unknown, [], `not defined by ${nodeRed}`);
    }
  });

  it("falls back to each variable's value in Node-RED 4.1's light theme", function () {
    const light = themeVariables('node-red');
    const wrong = themeUses()
      .filter((u) => u.fallback === undefined || hex6(u.fallback) !== hex6(light.get(u.name) ?? ''))
      .map((u) => `${u.at} ${u.name}: ${u.fallback} (4.1: ${light.get(u.name)})`);
    assert.deepEqual(wrong, []);
  });
});
