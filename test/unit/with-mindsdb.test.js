'use strict';
/**
 * scripts/with-mindsdb.mjs never runs one version's e2e leg against a server of the other version
 * (npm test runs a 25.14.1 and a 26.1.0 leg, each on its own ports).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { createFakeMindsDB } = require('../support/fake-mindsdb');

describe('with-mindsdb: reusing a running MindsDB', () => {
  let fake;
  let mod;
  const saved = process.env.MINDSDB_URL;
  before(async () => {
    mod = await import(pathToFileURL(path.join(__dirname, '..', '..', 'scripts', 'with-mindsdb.mjs')).href);
  });
  beforeEach(async () => {
    fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
    process.env.MINDSDB_URL = fake.url;
  });
  afterEach(async () => {
    await fake.close();
    if (saved === undefined) delete process.env.MINDSDB_URL;
    else process.env.MINDSDB_URL = saved;
  });

  it('reads the version from /api/status', async () => {
    assert.equal(await mod.versionAt(fake.url), '26.1.0');
    assert.equal(await mod.versionAt('http://127.0.0.1:1'), undefined);
  });

  it('refuses a server of the other version, saying which answers and which is wanted', async () => {
    await assert.rejects(
      mod.ensureMindsDB({ version: '25.14.1' }),
      /MindsDB 26\.1\.0 answers at http:\/\/127\.0\.0\.1:\d+, but MindsDB 25\.14\.1 is wanted/,
    );
  });

  it("reuses a server of the wanted version, and hands the command the LLM double's URL", async () => {
    const server = await mod.ensureMindsDB({ version: '26.1.0' });
    try {
      assert.equal(server.env.MINDSDB_URL, fake.url);
      assert.equal(server.env.MINDSDB_VERSION, '26.1.0');
      const models = await (await fetch(`${server.env.LLM_DOUBLE_URL}/models`)).json();
      assert.ok(models.data.length > 0);
    } finally {
      server.stop();
    }
  });

  it('npm start (anyVersion) takes whatever version answers', async () => {
    const server = await mod.ensureMindsDB({ version: '25.14.1', anyVersion: true });
    server.stop();
    assert.equal(server.version, '26.1.0');
  });
});
