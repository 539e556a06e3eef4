// Build: compile src/ (TypeScript) to CommonJS in nodes/, beside the editor .html files and their
// locales; bundle the editor's own code (src/editor/) into resources/ (scripts/editor-bundle.mjs);
// write the dialogs' defaults from the node declarations in src/schema/ to
// resources/mindsdb-defaults.js (scripts/editor-defaults.mjs); write each node's help from
// src/help/ (scripts/help.mjs); and copy icons/ to nodes/icons/,
// because Node-RED looks for a node's icons only in an icons/ folder next to its .js file.
//
// nodes/ mixes sources (the editor .html files, locales/) with output, and tsc never deletes a
// file whose source is gone: without a clean first, a removed or renamed .ts would keep shipping
// as stale .js in the package. So everything the build generates (git-ignored: .js, .js.map,
// .d.ts, icons/, the help in nodes/locales/<lang>/*.html) is deleted before it compiles; the
// sources are left alone. The help is written from src/help/ (scripts/help.mjs: shared parts put
// in place), because Node-RED reads it only from nodes/locales/<lang>/<type>.html.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeEditorScripts } from './editor-bundle.mjs';
import { writeEditorDefaults } from './editor-defaults.mjs';
import { cleanHelp, writeHelp } from './help.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'nodes');
const GENERATED = /\.(js|js\.map|d\.ts)$/;

/** Deletes the generated files under `dir`, and the folders that only held such files. */
function clean(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      clean(p);
      if (fs.readdirSync(p).length === 0) fs.rmdirSync(p);
    } else if (GENERATED.test(entry.name)) {
      fs.rmSync(p);
    }
  }
}

fs.rmSync(path.join(out, 'icons'), { recursive: true, force: true });
clean(out);
cleanHelp(root);
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
writeEditorDefaults(root);
await writeEditorScripts(root);
writeHelp(root);
fs.cpSync(path.join(root, 'icons'), path.join(out, 'icons'), { recursive: true });
