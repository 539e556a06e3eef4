'use strict';
/**
 * What outputs mask and what they leave readable, and that a masked value from an output is never
 * written back to the server (a get → edit → update round trip).
 */
const assert = require('node:assert/strict');
const { fakeClient } = require('../support/client-fixture');
const { DatabasesApi, ResourcesApi, redactSecretFields, isSecretKey, MASK } = require('../../nodes/client');

describe('redaction', () => {
  it('masks secrets by the words of their key, nested objects included', () => {
    const out = redactSecretFields({
      password: 'p1',
      db_pass: 'p2',
      api_key: 'k1',
      apiKey: 'k2',
      openai_api_key: 'k3',
      private_key: '-----BEGIN',
      token: 't1',
      access_token: 't2',
      session: 'cookie-value',
      client_secret: 's1',
      pin: 1234,
      service_account_json: '{"type":"service_account"}',
      credentials: { user: 'u', key: 'k' },
      service_account_keys: { private_key_id: 'x', client_email: 'e' },
      model: { provider: 'openai', api_key: 'sk-123' },
      numeric_password: 98765,
    });
    for (const k of [
      'password',
      'db_pass',
      'api_key',
      'apiKey',
      'openai_api_key',
      'private_key',
      'token',
      'access_token',
      'session',
      'client_secret',
      'service_account_json',
      'numeric_password',
    ]) {
      assert.equal(out[k], MASK, k);
    }
    assert.deepEqual(out.credentials, { user: MASK, key: MASK });
    assert.deepEqual(out.service_account_keys, { private_key_id: MASK, client_email: MASK });
    assert.deepEqual(out.model, { provider: 'openai', api_key: MASK });
    assert.equal(out.pin, 1234, 'a key that names no secret stays');
  });

  it('leaves non-secrets readable, numbers included', () => {
    const record = {
      max_tokens: 512,
      prompt_tokens: 10,
      completion_tokens: 20,
      total_tokens: 30,
      session_id: 'abc-1',
      passthrough: true,
      passthrough_url: 'http://x',
      tokenizer: 'cl100k',
      keyword: 'k',
      monkey: 'm',
      compass: 'n',
      name: 'agent',
      session_name: 's',
    };
    assert.deepEqual(redactSecretFields(record), record);
  });

  it('masks the password inside connection URIs wherever they appear', () => {
    const out = redactSecretFields({
      connection: {
        uri: 'postgresql://admin:hunter22@db.example:5432/app',
        note: 'see mongodb+srv://u:p%40ss@cluster/db',
      },
    });
    assert.equal(out.connection.uri, `postgresql://admin:${MASK}@db.example:5432/app`);
    assert.equal(out.connection.note, `see mongodb+srv://u:${MASK}@cluster/db`);
    assert.equal(
      redactSecretFields({ url: 'http://host:47334/api' }).url,
      'http://host:47334/api',
      'host:port is not a password',
    );
  });

  it('classifies keys on words, not substrings', () => {
    for (const k of [
      'password',
      'PASSWORD',
      'x-api-key',
      'privateKey',
      'refresh_token',
      'service_account_info',
      'aws_secret_access_key',
    ])
      assert.ok(isSecretKey(k), k);
    for (const k of ['max_tokens', 'tokens', 'session_id', 'passthrough', 'keys', 'key_column', 'id_column'])
      assert.ok(!isSecretKey(k), k);
  });

  describe('never sends a masked value back', () => {
    const t = fakeClient({ retries: 0 }, { client: true });

    it('database update with a password from a get', async () => {
      const api = new DatabasesApi(t.client);
      await api.create({ name: 'pg', engine: 'postgres', parameters: { host: 'h', password: 'real-pw' } }, false);
      const got = redactSecretFields(await api.get('pg'));
      await assert.rejects(
        api.update({ name: 'pg', parameters: { ...got.connection_data, port: 5433 } }, false),
        (err) => err.kind === 'input' && /password/.test(err.message) && /never sent back/.test(err.message),
      );
      assert.equal(t.fake.requests.filter((r) => r.method === 'PUT').length, 0, 'nothing was sent');
    });

    it('agent update with an api_key from a get, and a URI with a masked password', async () => {
      const api = new ResourcesApi(t.client);
      await api.run('agent', 'create', {
        project: 'mindsdb',
        name: 'a1',
        payload: { model_name: 'gpt', provider: 'openai', params: { api_key: 'sk-real' } },
      });
      const got = redactSecretFields(await api.run('agent', 'get', { project: 'mindsdb', name: 'a1' }));
      await assert.rejects(
        api.run('agent', 'update', { project: 'mindsdb', name: 'a1', payload: { params: got.params } }),
        (err) => err.kind === 'input' && /params\.api_key/.test(err.message),
      );
      await assert.rejects(
        api.run('chatbot', 'create', {
          project: 'mindsdb',
          name: 'c1',
          payload: { params: { uri: `postgres://u:${MASK}@h/db` } },
        }),
        (err) => err.kind === 'input',
      );
      assert.equal(
        t.fake.requests.filter((r) => r.method === 'PUT' || (r.method === 'POST' && r.path.includes('chatbots')))
          .length,
        0,
      );
    });
  });
});
