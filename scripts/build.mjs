// Build: compile src/ (TypeScript) to CommonJS in nodes/, beside the editor .html files and their
// locales, and copy icons/ to nodes/icons/, because Node-RED looks for a node's icons only in an
// icons/ folder next to its .js file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
fs.rmSync(path.join(root, 'nodes', 'icons'), { recursive: true, force: true });
fs.cpSync(path.join(root, 'icons'), path.join(root, 'nodes', 'icons'), { recursive: true });
