// The nodes' help, written by the build from src/help/ into nodes/locales/<lang>/<type>.html,
// where Node-RED looks for it (beside each language's message catalogue).
//
// Fifteen node types in four languages say many things the same way: the timeout a msg may set,
// the shape of the result, "the incoming message is reused", how a name in other capitals is
// found. Written out in every file, a change to one of them has to be made sixty times and is
// missed in some. So a help source may name a shared part on a line of its own:
//
//     <!-- part NAME key="value" … -->
//
// and the build puts the part there, indented like the line. A part is looked up in the
// language's own folder first (src/help/<lang>/parts/NAME.html: prose, translated) and then in
// src/help/parts/NAME.html (markup and code that no language changes). `[[key]]` in a part is
// replaced by the value the line gives; a part may name other parts. An unknown part, a missing
// value or a value nobody uses stops the build, naming the file and line.
import fs from 'node:fs';
import path from 'node:path';

const PART_LINE = /^(\s*)<!--\s*part\s+([\w-]+)((?:\s+[\w-]+="[^"]*")*)\s*-->\s*$/;
const ARG = /([\w-]+)="([^"]*)"/g;
const SLOT = /\[\[([\w-]+)\]\]/g;
const MAX_DEPTH = 4;

/** The part's text: the language's own, else the one every language shares. */
function readPart(helpDir, lang, name, where) {
  for (const file of [path.join(helpDir, lang, 'parts', `${name}.html`), path.join(helpDir, 'parts', `${name}.html`)]) {
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').replace(/\n+$/, '');
  }
  throw new Error(`${where}: no part "${name}" in src/help/${lang}/parts/ or src/help/parts/`);
}

/** `text` with every part line replaced by its part, recursively. */
export function expandParts(text, { helpDir, lang, where, depth = 0 }) {
  if (depth > MAX_DEPTH) throw new Error(`${where}: parts nest deeper than ${MAX_DEPTH} (a part names itself?)`);
  return text
    .split('\n')
    .map((line, i) => {
      const m = PART_LINE.exec(line);
      // A part line that does not parse (a value with a double quote in it) would ship as a comment.
      if (!m && /^\s*<!--\s*part\s/.test(line))
        throw new Error(
          `${where}:${i + 1}: a part line that cannot be read (write a double quote in a value as &quot;)`,
        );
      if (!m) return line;
      const [, indent, name, argText] = m;
      const at = `${where}:${i + 1}`;
      const args = new Map([...argText.matchAll(ARG)].map((a) => [a[1], a[2]]));
      const used = new Set();
      const filled = readPart(helpDir, lang, name, at).replace(SLOT, (_, key) => {
        if (!args.has(key)) throw new Error(`${at}: part "${name}" needs ${key}="…"`);
        used.add(key);
        return args.get(key);
      });
      for (const key of args.keys()) if (!used.has(key)) throw new Error(`${at}: part "${name}" has no [[${key}]]`);
      const expanded = expandParts(filled, { helpDir, lang, where: `${at} → part ${name}`, depth: depth + 1 });
      return expanded
        .split('\n')
        .map((l) => (l.trim() === '' ? '' : indent + l))
        .join('\n');
    })
    .join('\n');
}

/** Writes nodes/locales/<lang>/<type>.html for every src/help/<lang>/<type>.html; returns how many. */
export function writeHelp(root) {
  const helpDir = path.join(root, 'src', 'help');
  const localesDir = path.join(root, 'nodes', 'locales');
  let written = 0;
  for (const lang of fs.readdirSync(helpDir)) {
    const langDir = path.join(helpDir, lang);
    if (lang === 'parts' || !fs.statSync(langDir).isDirectory()) continue;
    fs.mkdirSync(path.join(localesDir, lang), { recursive: true });
    for (const file of fs.readdirSync(langDir)) {
      if (!file.endsWith('.html')) continue;
      const where = `src/help/${lang}/${file}`;
      const text = expandParts(fs.readFileSync(path.join(langDir, file), 'utf8'), { helpDir, lang, where });
      fs.writeFileSync(path.join(localesDir, lang, file), text);
      written++;
    }
  }
  return written;
}

/**
 * Deletes the help files a build wrote (nodes/locales/<lang>/*.html for each language in src/help/), so a removed
 * source leaves none behind.
 */
export function cleanHelp(root) {
  const helpDir = path.join(root, 'src', 'help');
  for (const lang of fs.readdirSync(helpDir)) {
    const dir = path.join(root, 'nodes', 'locales', lang);
    if (lang === 'parts' || !fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir)) if (file.endsWith('.html')) fs.rmSync(path.join(dir, file));
  }
}
