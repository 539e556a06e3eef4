'use strict';
/**
 * The demo `npm start` deploys (scripts/demo-flows.mjs) and the dashboard examples it leads with:
 * each example must import on its own (Import → Examples), so its widgets' groups, pages and the
 * dashboard's base are in the same file; together they must make one dashboard (one base, one
 * theme, a page each); the demo's settings must keep Node-RED's first-run dialogs away. What the
 * pages show is the dashboard browser suite's job (test/dashboards/).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const read = (name) => JSON.parse(fs.readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8'));

describe('the demo flows (scripts/demo-flows.mjs)', function () {
  let demo;
  before(async function () {
    demo = await import('../../scripts/demo-flows.mjs');
  });

  it('deploys every example, the dashboards first, each shared config node once', function () {
    const files = demo.exampleFiles();
    const all = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json'));
    assert.deepEqual([...files].sort(), [...all].sort());
    assert.deepEqual(
      files.slice(0, demo.DASHBOARDS.length),
      demo.DASHBOARDS.map((d) => `${d}.json`),
    );
    const { flows } = demo.demoFlows(files);
    const ids = flows.map((n) => n.id);
    assert.equal(new Set(ids).size, ids.length, 'no id twice');
    assert.equal(flows.filter((n) => n.type === 'tab').length, files.length, 'a tab per example');
    assert.equal(
      flows.find((n) => n.type === 'tab').id,
      'dlive-tab',
      'the live predictions dashboard is the first tab',
    );
    for (const type of ['ui-base', 'ui-theme'])
      assert.equal(flows.filter((n) => n.type === type).length, 1, `one ${type}`);
    // One server for every example, and the shared-store example's own (its nodes keep their state in PostgreSQL).
    assert.deepEqual(
      flows.filter((n) => n.type === 'mindsdb-server').map((n) => [n.id, n.stateStore ?? '']),
      [
        ['mindsdb-server-example', ''],
        ['ha-mindsdb-server', 'ha-state-store'],
      ],
    );
  });

  it('points the server at MINDSDB_URL and the knowledge bases at the LLM of the environment', function () {
    const { flows, credentials } = demo.demoFlows();
    assert.equal(flows.find((n) => n.type === 'mindsdb-server').url, '${MINDSDB_URL}');
    const kbs = flows.filter((n) => n.type === 'mindsdb-knowledge-base');
    assert.ok(kbs.length >= 4);
    for (const kb of kbs) {
      assert.equal(kb.baseUrl, '${OPENAI_BASE_URL}');
      assert.deepEqual(credentials[kb.id], { apiKey: '${OPENAI_API_KEY}' });
    }
    // The shared-store example signs in to the local PostgreSQL as the examples' data source does.
    for (const store of flows.filter((n) => n.type === 'mindsdb-state-store'))
      assert.deepEqual(credentials[store.id], { user: 'postgres', password: '' });
    // Examples on disk keep a plain URL: the substitution is the demo's, not the example's.
    assert.equal(read('dashboard-ask-agent').find((n) => n.type === 'mindsdb-server').url, 'http://127.0.0.1:47334');
  });

  it('uses the stand-in LLM only when the user has no OPENAI_API_KEY', function () {
    assert.deepEqual(demo.demoLlmEnv('http://127.0.0.1:9/v1', {}), {
      OPENAI_API_KEY: 'llm-double',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MODEL: 'gpt-4',
    });
    assert.deepEqual(demo.demoLlmEnv('http://127.0.0.1:9/v1', { OPENAI_API_KEY: 'sk-mine' }), {});
  });

  it('starts Node-RED without the welcome tour and without the update-notification question', function () {
    const s = demo.demoSettings(1880);
    assert.equal(s.editorTheme.tours, false);
    assert.equal(s.telemetry.enabled, false);
    assert.equal(s.uiPort, 1880);
    assert.equal(s.credentialSecret, false, 'flows_cred.json is plain JSON with ${VAR}s');
  });

  for (const name of [
    'dashboard-live-predictions',
    'dashboard-report',
    'dashboard-ask-agent',
    'dashboard-model-status',
  ]) {
    it(`${name} imports on its own: its tab, groups, page, base and theme are in the file`, function () {
      const flow = read(name);
      const byId = new Map(flow.map((n) => [n.id, n]));
      const tabs = flow.filter((n) => n.type === 'tab');
      assert.equal(tabs.length, 1);
      assert.ok(
        flow.some(
          (n) => n.type === 'comment' && n.z === tabs[0].id && /needs/.test(n.info) && /Dashboard 2\.0/.test(n.info),
        ),
        'a comment says what it needs',
      );
      for (const n of flow) {
        if (n.z !== undefined) assert.equal(n.z, tabs[0].id, `${n.id} is on the example's tab`);
        for (const out of n.wires || [])
          for (const to of out) assert.ok(byId.has(to), `${n.id} is wired to ${to}, which is in the file`);
        if (n.type.startsWith('ui-') && n.group !== undefined)
          assert.equal(byId.get(n.group)?.type, 'ui-group', `${n.id}'s group is in the file`);
        if (n.type === 'ui-group') assert.equal(byId.get(n.page)?.type, 'ui-page', `${n.id}'s page is in the file`);
        if (n.type === 'ui-page') {
          assert.equal(byId.get(n.ui)?.type, 'ui-base');
          assert.equal(byId.get(n.theme)?.type, 'ui-theme');
        }
        if (n.type === 'catch' || n.type === 'status')
          for (const id of n.scope || []) assert.ok(byId.has(id), `${n.id}'s scope ${id} is in the file`);
        if (/^mindsdb-(?!server)/.test(n.type)) assert.equal(n.server, 'mindsdb-server-example');
      }
    });
  }

  it('the dashboards are one dashboard at /dashboard: the same base and theme, a page each, in order', function () {
    const pages = demo.DASHBOARDS.map((name) => read(name).filter((n) => n.type === 'ui-page'));
    assert.ok(pages.every((p) => p.length === 1));
    assert.deepEqual(
      pages.map(([p]) => p.order),
      [1, 2, 3, 4],
    );
    assert.equal(new Set(pages.map(([p]) => p.path)).size, 4, 'a path each');
    const bases = demo.DASHBOARDS.map((name) => JSON.stringify(read(name).find((n) => n.type === 'ui-base')));
    const themes = demo.DASHBOARDS.map((name) => JSON.stringify(read(name).find((n) => n.type === 'ui-theme')));
    assert.equal(new Set(bases).size, 1, 'the same ui-base in every file');
    assert.equal(new Set(themes).size, 1, 'the same ui-theme in every file');
    assert.equal(JSON.parse(bases[0]).path, '/dashboard');
  });
});
