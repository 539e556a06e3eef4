'use strict';
/**
 * Rules for the tests themselves, checked on every file under test/:
 *  - no fixed sleeps: a test waits on an event or a condition with a deadline
 *    (test/support/wait.js: waitFor, deadline, nextEvent, flushDeliveries; holdsFor for the
 *    window of a negative assertion), never for a fixed time. A timer is allowed only in
 *    test/support/wait.js, or on a line marked `// fault:` (a test server that deliberately
 *    delays or breaks its answer) or `// deadline:` (a timer that gives up on something that
 *    did not happen in time);
 *  - every package a test loads is declared in package.json (a package that only happens to be
 *    installed as some other package's dependency breaks a fresh install when that one changes).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { builtinModules } = require('node:module');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const TEST = path.join(ROOT, 'test');
const pkg = require(path.join(ROOT, 'package.json'));
const SELF = path.relative(ROOT, __filename);

function testFiles(dir = TEST) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return /\.(c|m)?js$/.test(e.name) ? [p] : [];
  });
}

const TIMER = /\b(setTimeout|setInterval|setImmediate|waitForTimeout|sleep|delay)\s*\(|timers\/promises/;
const ALLOWED = /\/\/ (fault|deadline):/;

/** The lines of `source` that are code, not comment lines: [{line, text}]. */
const codeLines = (source) =>
  source
    .split('\n')
    .map((text, i) => ({ line: i + 1, text: text.trim() }))
    .filter(({ text }) => !text.startsWith('*') && !text.startsWith('//') && !text.startsWith('/*'));

/**
 * Lines of `source` that wait for a fixed time: [{line, text}]. The marker may also end the comment lines right
 * above (the formatter moves a trailing comment there when the line grows past 120 columns).
 */
function fixedSleeps(source) {
  const lines = source.split('\n');
  const markedAbove = (line) => {
    for (let i = line - 2; i >= 0 && lines[i].trim().startsWith('//'); i--) if (ALLOWED.test(lines[i])) return true;
    return false;
  };
  // ...or the end of the statement the timer is in (the formatter puts a trailing comment after its last line).
  const markedAtEnd = (line) => {
    let depth = 0;
    for (let i = line - 1; i < Math.min(lines.length, line + 12); i++) {
      if (ALLOWED.test(lines[i])) return true;
      const code = lines[i].replace(/\/\/.*$/, '').replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '');
      depth += (code.match(/[([{]/g) ?? []).length - (code.match(/[)\]}]/g) ?? []).length;
      if (depth <= 0 && i >= line) return false;
    }
    return false;
  };
  return codeLines(source).filter(
    ({ line, text }) =>
      TIMER.test(text.replace(/\/\/.*$/, '')) && !ALLOWED.test(text) && !markedAbove(line) && !markedAtEnd(line),
  );
}

/** The packages `source` loads by name (require, import, import()). */
function packagesLoaded(source) {
  const names = new Set();
  const specifier = /(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|^\s*import\s+)['"]([^'"]+)['"]/gm;
  for (const m of codeLines(source)
    .map((l) => l.text)
    .join('\n')
    .matchAll(specifier)) {
    const s = m[1];
    if (s.startsWith('.') || s.startsWith('/') || s.startsWith('node:')) continue;
    names.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
  }
  return [...names];
}

describe('test hygiene', () => {
  it("finds a fixed sleep, and accepts a fault handler's delay or a deadline when marked", () => {
    assert.equal(fixedSleeps('    await new Promise((r) => setTimeout(r, 50));').length, 1);
    assert.equal(fixedSleeps('    await page.waitForTimeout(400);').length, 1);
    assert.equal(fixedSleeps("const { setTimeout: sleep } = require('node:timers/promises');").length, 1);
    assert.equal(
      fixedSleeps('  setTimeout(() => req.socket.destroy(), 5); // fault: the reset comes after the body').length,
      0,
    );
    assert.equal(
      fixedSleeps("  const t = setTimeout(() => child.kill('SIGKILL'), 5000); // deadline: killed if it does not stop")
        .length,
      0,
    );
    assert.equal(fixedSleeps('  await waitFor(() => done, { timeoutMs: 1000 });').length, 0);
  });

  it('no test waits for a fixed time (test/support/wait.js instead)', () => {
    const found = [];
    for (const file of testFiles()) {
      const rel = path.relative(ROOT, file);
      if (rel === SELF || rel === path.join('test', 'support', 'wait.js')) continue;
      for (const { line, text } of fixedSleeps(fs.readFileSync(file, 'utf8'))) found.push(`${rel}:${line}: ${text}`);
    }
    assert.deepEqual(
      found,
      [],
      'wait on an event or condition with a deadline (test/support/wait.js), or mark a fault handler\'s deliberate delay with "// fault:"',
    );
  });

  it('finds the packages a file loads', () => {
    assert.deepEqual(
      packagesLoaded(
        "const mqtt = require('mqtt');\nimport fs from 'node:fs';\nimport { x } from '@scope/pkg/sub';\nconst y = require('./local');\nawait import('fast-check');",
      ).sort(),
      ['@scope/pkg', 'fast-check', 'mqtt'],
    );
  });

  it('every package a test loads is declared in package.json', () => {
    const declared = new Set([
      pkg.name,
      ...Object.keys(pkg.dependencies || {}),
      ...Object.keys(pkg.devDependencies || {}),
      ...builtinModules,
    ]);
    const missing = [];
    for (const file of testFiles().filter((f) => path.relative(ROOT, f) !== SELF)) {
      for (const name of packagesLoaded(fs.readFileSync(file, 'utf8')))
        if (!declared.has(name)) missing.push(`${path.relative(ROOT, file)}: ${name}`);
    }
    assert.deepEqual(missing, [], 'declare it in devDependencies (npm install --save-dev)');
  });
});
