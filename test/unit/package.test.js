'use strict';
/**
 * What `npm pack` ships: exactly the compiled code, the editor files, locales, icons, the shared
 * editor script, the examples, README and LICENSE. A missing help file or a stray test or source
 * map in the tarball fails here, before anyone installs it.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));

/** Every path the tarball may hold. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^nodes\/[\w-]+\.(js|html)$/,
  /^nodes\/(client(\/[\w-]+)?|runtime\/[\w-]+|store(\/[\w-]+)?|common)\/[\w-]+\.js$/,
  /^nodes\/locales\/[\w-]+\/mindsdb-[\w-]+\.(html|json)$/,
  /^nodes\/icons\/mindsdb-[\w-]+\.svg$/,
  /^resources\/[\w-]+\.js$/,
  /^nodes\/schema\/[\w-]+\.js$/,
  /^examples\/[\w-]+\.json$/,
];

describe('the npm package', function () {
  this.timeout(60000);
  let files;

  before(function () {
    // The unit suite builds first; --ignore-scripts keeps pack from building again.
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    files = JSON.parse(out)[0]
      .files.map((f) => f.path)
      .sort();
  });

  it('ships nothing but runtime code, editor files, locales, icons, examples, README and LICENSE', function () {
    const stray = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
    assert.deepEqual(stray, [], 'files that should not be published');
  });

  it('ships every node with its runtime, editor, help and labels in every language, and icon', function () {
    const missing = [];
    for (const [type, js] of Object.entries(pkg['node-red'].nodes)) {
      const wanted = [js, js.replace(/\.js$/, '.html')];
      for (const lang of ['en-US', 'de', 'ja', 'zh-CN'])
        wanted.push(`nodes/locales/${lang}/${type}.html`, `nodes/locales/${lang}/${type}.json`);
      // config nodes (the server, the state store) have no icon of their own
      if (type !== 'mindsdb-server' && type !== 'mindsdb-state-store') wanted.push(`nodes/icons/${type}.svg`);
      for (const f of wanted) if (!files.includes(f)) missing.push(f);
    }
    assert.deepEqual(missing, []);
  });

  it('ships the sidebar plugin: its runtime, its editor file and its texts in every language', function () {
    const missing = [];
    for (const [name, js] of Object.entries(pkg['node-red'].plugins)) {
      for (const f of [
        js,
        js.replace(/\.js$/, '.html'),
        ...['en-US', 'de', 'ja', 'zh-CN'].map((lang) => `nodes/locales/${lang}/${name}.json`),
      ]) {
        if (!files.includes(f)) missing.push(f);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('ships the editor scripts every dialog and the sidebar plugin load, and every example', function () {
    const plugins = Object.values(pkg['node-red'].plugins).map((js) => js.replace(/\.js$/, '.html'));
    for (const html of files.filter((f) => /^nodes\/[\w-]+\.html$/.test(f))) {
      const srcs = [
        ...fs
          .readFileSync(path.join(root, html), 'utf8')
          .matchAll(/<script[^>]+src="resources\/[^/]+\/[^/]+\/([^"]+)"/g),
      ].map((m) => m[1]);
      if (plugins.includes(html)) assert.deepEqual(srcs, ['mindsdb-sidebar.js'], `${html} loads the sidebar's script`);
      else
        assert.deepEqual(
          srcs,
          ['mindsdb-editor.js', 'mindsdb-defaults.js'],
          `${html} loads the shared editor script and the node declarations`,
        );
      for (const src of srcs) assert.ok(files.includes(`resources/${src}`), `resources/${src} is shipped`);
    }
    const examples = fs
      .readdirSync(path.join(root, 'examples'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `examples/${f}`);
    assert.ok(examples.length >= 5);
    for (const e of examples) assert.ok(files.includes(e), `${e} is shipped`);
  });

  it('asks for the Node.js its floor names, which its dependencies and every tested Node-RED accept', function () {
    // semver as node-red-node-test-helper resolves it (not a dependency of ours).
    const semver = require(require.resolve('semver', { paths: [require.resolve('node-red-node-test-helper')] }));
    const ours = semver.minVersion(pkg.engines.node).version;
    const needed = Object.keys(pkg.dependencies)
      .map((dep) => {
        const range = require(path.join(root, 'node_modules', dep, 'package.json')).engines?.node;
        return range ? semver.minVersion(range).version : '0.0.0';
      })
      .sort(semver.rcompare)[0];
    assert.ok(semver.gte(ours, needed), `engines.node starts at ${ours}, below what the dependencies need (${needed})`);
    // The floor the scripts hold the tests and `npm start` to (scripts/node-version.mjs FLOOR).
    const floor = /FLOOR = Object\.freeze\(\{ major: (\d+), minor: (\d+) \}\)/.exec(
      fs.readFileSync(path.join(root, 'scripts', 'node-version.mjs'), 'utf8'),
    );
    assert.ok(floor, 'scripts/node-version.mjs declares FLOOR');
    assert.equal(ours, `${floor[1]}.${floor[2]}.0`, 'engines.node is the floor the scripts run the tests on');
    for (const alias of ['node-red-3-1', 'node-red', 'node-red-5-0']) {
      const range = require(path.join(root, 'node_modules', alias, 'package.json')).engines.node;
      assert.ok(semver.satisfies(ours, range), `${alias} accepts Node ${ours} (it asks for ${range})`);
    }
  });

  it('ships the runtime modules every node file requires', function () {
    const unresolved = [];
    for (const js of files.filter((f) => f.endsWith('.js') && f.startsWith('nodes/'))) {
      const text = fs.readFileSync(path.join(root, js), 'utf8');
      for (const [, rel] of text.matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(js), rel));
        if (![target, `${target}.js`, `${target}/index.js`].some((f) => files.includes(f)))
          unresolved.push(`${js} → ${rel}`);
      }
    }
    assert.deepEqual(unresolved, []);
  });
});
