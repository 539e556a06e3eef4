'use strict';
/**
 * The build cleans its output first: nodes/ holds sources (editor .html, locales) beside what tsc
 * writes, and tsc never deletes the .js of a removed source, which would then ship in the package.
 * This runs the real build with leftovers planted where old output would be, in a copy of the
 * checkout's build inputs: the suites of `npm test` may run side by side, and rebuilding this
 * checkout's nodes/ under them would pull the code from under a running Node-RED.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const os = require('node:os');

const checkout = path.resolve(__dirname, '..', '..');
/** What the build reads and writes; node_modules is linked, not copied. */
const INPUTS = ['package.json', 'tsconfig.json', 'src', 'nodes', 'icons', 'resources', 'scripts'];
let root;
let nodesDir;

/** Output of sources that no longer exist, one per kind of file tsc or an older build wrote. */
const STALE = [
  'client/stale.js',
  'runtime/stale.js.map',
  'runtime/stale.d.ts',
  'mindsdb-removed.js',
  'gone/old.js',
  'icons/mindsdb-removed.svg',
  'locales/en-US/mindsdb-removed.html',
];
/** The help the build writes from src/help/ into nodes/locales/<lang>/ (scripts/help.mjs). */
const GENERATED_HELP = /^locales\/[\w-]+\/[\w-]+\.html$/;

/** path → sha256 of every file under dir that is not generated (the sources the build must keep). */
function sources(dir, base = dir, out = {}) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    const rel = path.relative(base, p);
    if (entry.isDirectory()) {
      if (rel !== 'icons') sources(p, base, out);
    } else if (!/\.(js|js\.map|d\.ts)$/.test(entry.name) && !GENERATED_HELP.test(rel.split(path.sep).join('/'))) {
      out[rel] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  }
  return out;
}

describe('the build', function () {
  this.timeout(120000);

  before(function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-build-'));
    for (const entry of INPUTS) fs.cpSync(path.join(checkout, entry), path.join(root, entry), { recursive: true });
    fs.symlinkSync(path.join(checkout, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    nodesDir = path.join(root, 'nodes');
  });

  after(function () {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('removes output whose source is gone, keeps the editor sources and rebuilds every node', function () {
    for (const f of STALE) {
      fs.mkdirSync(path.dirname(path.join(nodesDir, f)), { recursive: true });
      fs.writeFileSync(path.join(nodesDir, f), '// left over from a source that was removed\n');
    }
    const before = sources(nodesDir);
    assert.ok(
      Object.keys(before).some((f) => f.endsWith('.html')),
      'the editor sources are there to keep',
    );

    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'pipe' });

    assert.deepEqual(
      STALE.filter((f) => fs.existsSync(path.join(nodesDir, f))),
      [],
      'stale output survived the build',
    );
    assert.ok(!fs.existsSync(path.join(nodesDir, 'gone')), 'a folder that only held stale output is removed');
    assert.deepEqual(sources(nodesDir), before, 'the editor .html files and locales are untouched');
    const pkg = require(path.join(root, 'package.json'));
    for (const js of Object.values(pkg['node-red'].nodes))
      assert.ok(fs.existsSync(path.join(root, js)), `${js} is built`);
    assert.ok(fs.existsSync(path.join(nodesDir, 'icons', 'mindsdb-sql.svg')), 'the icons are copied');
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      const help = fs.readFileSync(path.join(nodesDir, 'locales', 'en-US', `${type}.html`), 'utf8');
      assert.match(help, new RegExp(`data-help-name="${type}"`), `${type}'s help is written`);
      assert.doesNotMatch(help, /<!--\s*part\s/, `${type}'s help has every part put in place`);
    }
  });
});
