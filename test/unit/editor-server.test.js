'use strict';
/**
 * What the editor tells its endpoints about a server node (src/editor/shared/server-choice.ts) and
 * how the server dialog's Test connection shows the answer (src/editor/connection-test.ts),
 * bundled here by esbuild as the build bundles them. The values sent are every property the server
 * node type declares: a property added to src/schema/nodes.ts goes along with no editor code, and a
 * changed, undeployed server is described alike to every endpoint (its proxy and tenant included).
 * The dialog itself, clicked in Chromium, is the browser suite's (test/browser/editor.test.js).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { buildSync } = require('esbuild');

const root = path.resolve(__dirname, '..', '..');

function load(entry, globals) {
  const { outputFiles } = buildSync({
    entryPoints: [path.join(root, 'src', 'editor', entry)],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'neutral',
    target: 'es2020',
  });
  const module = { exports: {} };
  new Function('module', 'exports', ...Object.keys(globals), outputFiles[0].text)(
    module,
    module.exports,
    ...Object.values(globals),
  );
  return module.exports;
}

/** The server node type as registerType keeps it: the built declaration's properties and credentials. */
function serverType(extra = {}) {
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(path.join(root, 'resources', 'mindsdb-defaults.js'), 'utf8'), sandbox);
  const declared = sandbox.window.MindsDBDeclarations['mindsdb-server'];
  return { category: 'config', defaults: { ...declared.defaults, ...extra }, credentials: declared.credentials };
}

/** A stand-in for the open config dialog's inputs: selector → {value} or {checked}. */
function dialog(inputs) {
  return (selector) => {
    const input = inputs[selector];
    return {
      length: input ? 1 : 0,
      is: (what) => what === ':checkbox' && input !== undefined && 'checked' in input,
      prop: () => input?.checked,
      val: () => input?.value,
    };
  };
}

function serverChoice({ type = serverType(), nodes = {}, inputs = {} } = {}) {
  const RED = { nodes: { getType: (t) => (t === 'mindsdb-server' ? type : undefined), node: (id) => nodes[id] } };
  return load('shared/server-choice.ts', { RED, $: dialog(inputs) });
}

const DEPLOYED_LOOK = {
  id: 'srv',
  type: 'mindsdb-server',
  name: 'site b',
  url: 'http://10.0.0.5:47334',
  apiPrefix: '/api',
  authMode: 'login',
  companyId: 'acme',
  userId: 'u7',
  timeout: 5000,
  retries: 2,
  retryPost: false,
  maxInFlight: 8,
  maxQueue: 1000,
  maxResponseMB: 8,
  tls: '',
  proxyMode: 'node',
  proxy: 'proxy1',
  credentials: { username: 'nodered', password: '__PWRD__' },
};

describe('what the editor tells its endpoints about a server node', () => {
  it('names a deployed server by its id alone', () => {
    const { serverRequest } = serverChoice({ nodes: { srv: { ...DEPLOYED_LOOK, changed: false } } });
    assert.deepEqual(serverRequest('srv'), { server: 'srv' });
  });

  it('describes a changed, undeployed server by every declared property: its proxy, tenant and answer limit too', () => {
    const { serverRequest } = serverChoice({ nodes: { srv: { ...DEPLOYED_LOOK, changed: true } } });
    const { config } = serverRequest('srv');
    for (const property of [
      'url',
      'apiPrefix',
      'authMode',
      'tls',
      'timeout',
      'proxyMode',
      'proxy',
      'companyId',
      'userId',
      'maxResponseMB',
    ])
      assert.deepEqual(config[property], DEPLOYED_LOOK[property], property);
    assert.deepEqual(config.credentials, {
      session: undefined,
      username: 'nodered',
      password: '__PWRD__',
      token: undefined,
    });
  });

  it("reads Test connection's values from the open dialog: text trimmed, a checkbox's state, no config node to add", () => {
    const { dialogServerValues } = serverChoice({
      inputs: {
        '#node-config-input-url': { value: ' http://127.0.0.1:47334 ' },
        '#node-config-input-authMode': { value: 'token' },
        '#node-config-input-tls': { value: '_ADD_' },
        '#node-config-input-proxyMode': { value: 'none' },
        '#node-config-input-companyId': { value: 'acme' },
        '#node-config-input-retryPost': { checked: true },
        '#node-config-input-timeout': { value: '3000' },
        '#node-config-input-token': { value: ' tok en ' },
        '#node-config-input-password': { value: '__PWRD__' },
      },
    });
    const values = dialogServerValues();
    assert.equal(values.url, 'http://127.0.0.1:47334');
    assert.equal(values.authMode, 'token');
    assert.equal(values.tls, '', '"add new tls-config" is no TLS node');
    assert.equal(values.proxyMode, 'none');
    assert.equal(values.companyId, 'acme');
    assert.equal(values.retryPost, true);
    assert.equal(values.timeout, '3000');
    assert.equal(values.apiPrefix, undefined, 'an input the dialog lacks says nothing');
    assert.deepEqual(values.credentials, { session: '', username: '', password: '__PWRD__', token: ' tok en ' });
  });

  it('sends a property the declaration adds with no editor code (a store the server node names, say)', () => {
    const { dialogServerValues, serverRequest } = serverChoice({
      type: serverType({ stateStore: { value: '', type: 'mindsdb-state-store', required: false } }),
      nodes: { srv: { ...DEPLOYED_LOOK, changed: true, stateStore: 'store1' } },
      inputs: { '#node-config-input-stateStore': { value: 'store1' } },
    });
    assert.equal(dialogServerValues().stateStore, 'store1');
    assert.equal(serverRequest('srv').config.stateStore, 'store1');
  });

  it("says why a request failed: the endpoint's error, else its HTTP status, else why nothing came", () => {
    const { failureText } = serverChoice();
    assert.equal(
      failureText({ status: 400, responseJSON: { ok: false, error: 'no such server' } }, 'error', 'Bad Request'),
      'no such server',
    );
    assert.equal(failureText({ status: 401, statusText: 'Unauthorized' }, 'error', ''), '401 Unauthorized');
    assert.equal(failureText({ status: 0 }, 'timeout', ''), 'timeout');
    assert.equal(failureText(undefined, '', ''), 'no answer');
  });
});

describe("the server dialog's Test connection answer", () => {
  const { testResult } = load('connection-test.ts', { RED: {}, $: () => ({}) });
  const t = (key, values) => `${key}${values ? JSON.stringify(values) : ''}`;

  it('says what the server is, how it logs in, its proxy and what its integrations reach', () => {
    assert.deepEqual(
      testResult(
        {
          ok: true,
          version: '26.1.0',
          authEnabled: true,
          authConfirmed: true,
          authType: 'basic',
          proxy: 'HTTPS_PROXY',
          integrations: { ok: true, passthrough: [{ engine: 'shopify', authModes: ['oauth', 'token'] }] },
        },
        t,
      ),
      {
        ok: true,
        text: [
          'label.testOkAuth{"version":"26.1.0"}',
          'label.testAuthType{"type":"basic"}',
          'label.testProxy{"source":"HTTPS_PROXY"}',
          'label.testPassthrough{"engines":"shopify (oauth, token)"}',
        ].join(' · '),
      },
    );
    assert.deepEqual(
      testResult(
        {
          ok: true,
          version: '25.14.1',
          authEnabled: false,
          integrations: { ok: false, error: 'MindsDB 25.14.1 has none' },
        },
        t,
      ),
      {
        ok: true,
        text: 'label.testOkNoAuth{"version":"25.14.1"} · label.testIntegrations{"error":"MindsDB 25.14.1 has none"}',
      },
    );
    assert.equal(
      testResult({ ok: true, version: '26.1.0', integrations: { ok: true, passthrough: [] } }, t).text,
      'label.testOkNoAuth{"version":"26.1.0"} · label.testNoPassthrough',
    );
  });

  it('fails with the error the runtime gives, or says it has none', () => {
    assert.deepEqual(testResult({ ok: false, error: 'connect ECONNREFUSED' }, t), {
      ok: false,
      text: 'label.testFailed{"error":"connect ECONNREFUSED"}',
    });
    assert.deepEqual(testResult(undefined, t), { ok: false, text: 'label.testFailed{"error":"unknown error"}' });
  });
});
