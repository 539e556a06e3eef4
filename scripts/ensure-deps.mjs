// Installs the npm dependencies on a fresh clone (so `npm start` and `npm test` are each one
// command), and builds. Reuses node_modules when it matches package-lock.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function ensureDeps() {
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (!fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs) {
    console.error('[setup] installing npm dependencies (npm ci)...');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  }
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}

/**
 * The browser suite needs Debian's Chromium (never a browser download). On a fresh machine where
 * we are root and have apt, install it; otherwise say what is missing and let the suite fail clearly.
 */
export function ensureChromium() {
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (fs.existsSync(chromium)) return true;
  const canApt = process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get') && !process.env.CHROMIUM_PATH;
  if (!canApt) {
    console.error(
      `[setup] ${chromium} is missing: install Debian's chromium (apt-get install chromium) for the browser suite`,
    );
    return false;
  }
  console.error("[setup] installing Debian's chromium for the browser suite (apt-get)...");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  return fs.existsSync(chromium);
}
