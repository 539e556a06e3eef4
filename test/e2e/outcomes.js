'use strict';
/**
 * What the e2e files share: the real MindsDB they run against (its version, or how to run the
 * suite when nothing answers), a Node-RED test runtime per case, and from a loaded flow (n1 under
 * test, `out` for outputs, `caught` for Catch) a message's one outcome; a case skipped with its
 * reason printed.
 */
const assert = require('node:assert/strict');
const { helper } = require('../support/nr');

/**
 * The MindsDB version at `url` (its public /api/status). Throws saying how to run the suite when
 * nothing answers there, or, with `llm`, when LLM_DOUBLE_URL (set by scripts/with-mindsdb.mjs) is missing.
 */
async function realMindsDB(url, { llm = false } = {}) {
  const res = await fetch(`${url}/api/status`).catch(() => null);
  if (!res?.ok) throw new Error(`no MindsDB at ${url}: run through "npm run test:e2e"`);
  const version = String((await res.json()).mindsdb_version || '');
  if (llm && !process.env.LLM_DOUBLE_URL) throw new Error('LLM_DOUBLE_URL is not set: run through "npm run test:e2e"');
  return version;
}

/** Each case of the calling describe gets a fresh Node-RED test runtime, stopped after it. */
function eachCaseInNodeRed() {
  beforeEach((done) => {
    helper.startServer(done);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });
}

/** Sends msg into node `id`; resolves with {out} or {error} (the message that reached Catch). */
function send(msg, id = 'n1') {
  return new Promise((resolve) => {
    const onOut = (m) => {
      cleanup();
      resolve({ out: m });
    };
    const onErr = (m) => {
      cleanup();
      resolve({ error: m });
    };
    const cleanup = () => {
      helper.getNode('out').removeListener('input', onOut);
      helper.getNode('caught').removeListener('input', onErr);
    };
    helper.getNode('out').on('input', onOut);
    helper.getNode('caught').on('input', onErr);
    helper.getNode(id).receive(msg);
  });
}
async function ok(msg, id) {
  const r = await send(msg, id);
  assert.ok(r.out, `expected an output, got error: ${r.error?.error.message}`);
  return r.out;
}
async function fails(msg, id) {
  const r = await send(msg, id);
  assert.ok(r.error, `expected an error, got output: ${JSON.stringify(r.out?.payload)}`);
  return r.error;
}

/**
 * The real server itself, without our client (what it answers is what a case checks): `api(method,
 * path, body)` → {status, body} with a JSON body, and `sql(query)`.
 */
function serverAt(url) {
  async function api(method, p, body) {
    const res = await fetch(`${url}/api${p}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json };
  }
  return { api, sql: (query) => api('POST', '/sql/query', { query }) };
}

/** Skips the running case, saying why (mocha's own output does not show a reason). */
function skipBecause(ctx, version, reason) {
  console.log(`      - skipped on MindsDB ${version}: ${reason}`);
  ctx.skip();
}

module.exports = { send, ok, fails, skipBecause, realMindsDB, eachCaseInNodeRed, serverAt };
