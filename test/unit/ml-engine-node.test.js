'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { secretsIn } = require('../support/node-cases');

const nodes = [node('mindsdb-server'), node('mindsdb-ml-engine'), catchNode];
const base = {
  type: 'mindsdb-ml-engine',
  operation: 'msg',
  engineName: '',
  engineNameType: 'str',
  handler: '',
  apiKeyParam: '',
  settings: '',
};
const SECRET = 'sk-unit-ml-engine-secret-456';

for (const version of ['25.14.1', '26.1.0']) {
  describe(`mindsdb-ml-engine node (MindsDB ${version})`, function () {
    let fake;
    beforeEach(async () => {
      fake = await createFakeMindsDB({ version }).listen();
      await new Promise((r) => helper.startServer(r));
    });
    afterEach(async () => {
      await helper.unload();
      await new Promise((r) => helper.stopServer(r));
      await fake.close();
    });
    const load = (def = {}, credentials = { apiKey: SECRET }) =>
      helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url }), { n1: credentials });
    const run = async (msg) => {
      const got = nextMessage('out');
      helper.getNode('n1').receive(msg);
      return got;
    };
    const fail = async (msg) => {
      const got = nextMessage('caught');
      helper.getNode('n1').receive(msg);
      return got;
    };
    const sqlSent = () => fake.requests.filter((r) => r.path.endsWith('/sql/query')).map((r) => r.body.query);
    const leaked = () => fake.requests.filter((r) => r.rawBody.includes(SECRET));
    const logged = () =>
      secretsIn(
        helper.log().args.map((a) => a[0]),
        [SECRET],
      );

    it("creates an engine from a handler: the stored key under <handler>_api_key, settings quoted for MindsDB's lexer; the key never comes back", async () => {
      await load({
        operation: 'create',
        engineName: 'llm',
        handler: 'openai',
        settings: '{"api_base": "http://127.0.0.1:9/v1"}',
      });
      const m = await run({ payload: { settings: { temperature: 0.5, api_base: 'https://attacker.example/v1' } } });
      assert.deepEqual(sqlSent(), [
        `CREATE ML_ENGINE \`llm\` FROM openai USING \`temperature\` = 0.5, \`api_base\` = 'http://127.0.0.1:9/v1', \`openai_api_key\` = '${SECRET}'`,
      ]);
      assert.deepEqual(fake.state.mlEngines.get('llm'), {
        name: 'llm',
        handler: 'openai',
        settings: { temperature: 0.5, api_base: 'http://127.0.0.1:9/v1', openai_api_key: SECRET },
      });
      assert.deepEqual(m.payload, { created: true, name: 'llm', handler: 'openai' });
      assert.deepEqual(m.mindsdb, { resource: 'ml_engine', operation: 'create', name: 'llm' });
      assert.deepEqual(secretsIn(m, [SECRET]), []);
      assert.deepEqual(logged(), []);
    });

    it('Key setting names another USING key; msg.payload fills name, handler and settings the node leaves blank', async () => {
      await load({ operation: 'create', apiKeyParam: 'api_key' }, {});
      const m = await run({
        payload: { name: 'e2', handler: 'openai', settings: { api_key: 'sk-msg-own', api_base: 'http://x/v1' } },
      });
      assert.deepEqual(m.payload, { created: true, name: 'e2', handler: 'openai' });
      assert.match(sqlSent()[0], /FROM openai USING `api_key` = 'sk-msg-own', `api_base` = 'http:\/\/x\/v1'$/);
    });

    it('lists engines with their settings masked, and the ML handlers (not data handlers) with whether each loads, asked without importing them all', async () => {
      await load();
      await run({
        operation: 'create',
        name: 'e1',
        payload: { handler: 'openai', settings: { api_base: 'http://h/v1', openai_api_key: 'sk-in-msg' } },
      });
      const list = await run({ operation: 'list' });
      assert.deepEqual(list.payload, [
        { name: 'e1', handler: 'openai', settings: { api_base: 'http://h/v1', openai_api_key: '******' } },
      ]);
      assert.deepEqual(list.mindsdb, { resource: 'ml_engine', operation: 'list', name: undefined });
      const handlers = await run({ operation: 'handlers' });
      assert.equal(fake.requests.at(-1).path, '/api/handlers/?lazy=1');
      const expected = [
        {
          name: 'anthropic',
          title: 'Anthropic',
          imported: false,
          error: "No module named 'anthropic'",
          dependencies: ['anthropic>=1.0'],
        },
        ...(version.startsWith('25') ? [{ name: 'byom', title: 'Byom', imported: true, dependencies: [] }] : []),
        { name: 'openai', title: 'Openai', imported: null, dependencies: [] },
      ];
      assert.deepEqual(handlers.payload, expected);
    });

    it('deletes an engine by any case (DROP ML_ENGINE compares exactly): the stored spelling', async () => {
      fake.state.mlEngines.set('MyEngine', { name: 'MyEngine', handler: 'openai', settings: {} });
      await load({ operation: 'delete' });
      const m = await run({ name: 'myengine' });
      assert.deepEqual(m.payload, { deleted: true, name: 'MyEngine' });
      assert.deepEqual(sqlSent(), ['DROP ML_ENGINE `myengine`', 'SHOW ML_ENGINES', 'DROP ML_ENGINE `MyEngine`']);
      assert.equal(fake.state.mlEngines.size, 0);
    });

    it('a name with capitals: MindsDB stores it and answers an error; the listing shows it made, so it is reported created', async () => {
      await load({ operation: 'create', handler: 'openai' });
      const m = await run({ name: 'BigEngine' });
      assert.deepEqual(m.payload, { created: true, name: 'BigEngine', handler: 'openai' });
      assert.ok(fake.state.mlEngines.has('BigEngine'));
    });

    describe('bad input fails before anything is sent', () => {
      for (const [what, def, msg, pattern] of [
        ['no name', { operation: 'create', handler: 'openai' }, {}, /no ML engine name/],
        ['no name to delete', { operation: 'delete' }, {}, /no ML engine name: set it in the node or in msg\.name/],
        ['no handler', { operation: 'create', engineName: 'e' }, {}, /no ML handler/],
        [
          'a quoted handler',
          { operation: 'create', engineName: 'e' },
          { payload: { handler: '`openai`' } },
          /not a handler name/,
        ],
        [
          'a handler that is not text',
          { operation: 'create', engineName: 'e' },
          { payload: { handler: 7 } },
          /msg\.payload\.handler must be a string/,
        ],
        [
          'settings that are not an object',
          { operation: 'create', engineName: 'e', handler: 'openai' },
          { payload: { settings: 'x' } },
          /msg\.payload\.settings must be an object/,
        ],
        [
          'node settings that are not JSON',
          { operation: 'create', engineName: 'e', handler: 'openai', settings: '{oops' },
          {},
          /the node's settings are not valid JSON/,
        ],
        [
          'a name with a backtick',
          { operation: 'create', handler: 'openai' },
          { name: 'a`b' },
          /cannot take in a name/,
        ],
        [
          'a masked value sent back',
          { operation: 'create', engineName: 'e', handler: 'openai' },
          { payload: { settings: { other_key: '******' } } },
          /masked/,
        ],
        ['an unknown operation', {}, { operation: 'train' }, /operation/],
        ['a bad msg.timeout', { operation: 'list' }, { timeout: -1 }, /msg\.timeout/],
      ]) {
        it(what, async () => {
          await load(def);
          const m = await fail({ ...msg, marker: what });
          assert.equal(m.marker, what);
          assert.match(m.error.message, pattern);
          assert.equal(fake.requests.filter((r) => r.method === 'POST').length, 0, 'nothing was sent');
          assert.deepEqual(secretsIn(m, [SECRET]), []);
        });
      }
    });

    describe("the stored API key goes only with the node's own handler and destinations", () => {
      it('an api_base from the msg does not get the stored key: the message fails, nothing is sent', async () => {
        await load({ operation: 'create', engineName: 'e', handler: 'openai' });
        const m = await fail({ payload: { settings: { api_base: 'https://attacker.example/v1' } } });
        assert.match(
          m.error.message,
          /ML engine API key stored in the node is sent only where the node says, but msg\.payload\.settings\.api_base chose/,
        );
        assert.deepEqual(leaked(), []);
        assert.deepEqual(sqlSent(), []);
      });

      it('a handler from the msg chooses where the key goes too', async () => {
        await load({ operation: 'create', engineName: 'e' });
        const m = await fail({ payload: { handler: 'anthropic' } });
        assert.match(m.error.message, /msg\.payload\.handler chose/);
        assert.deepEqual(leaked(), []);
      });

      it('a msg that chooses the destination and brings its own key is sent with that key, never the stored one', async () => {
        await load({ operation: 'create', engineName: 'e', handler: 'openai' });
        await run({ payload: { settings: { api_base: 'https://other.example/v1', openai_api_key: 'sk-msg-own' } } });
        assert.match(sqlSent()[0], /`openai_api_key` = 'sk-msg-own'/);
        assert.deepEqual(leaked(), []);
      });
    });

    describe("the server's refusals, with the key masked", () => {
      it('a handler the server lacks: an error naming the version', async () => {
        await load({ operation: 'create', engineName: 'e', handler: 'lightwood' });
        const m = await fail({});
        assert.match(
          m.error.message,
          new RegExp(`MindsDB ${version.replace(/\./g, '\\.')} has no ML handler "lightwood"`),
        );
      });

      it('an engine that exists already', async () => {
        fake.state.mlEngines.set('e', { name: 'e', handler: 'openai', settings: {} });
        await load({ operation: 'create', engineName: 'e', handler: 'openai' });
        assert.match((await fail({})).error.message, /ML engine "e" already exists/);
      });

      it('deleting an engine that does not exist', async () => {
        await load({ operation: 'delete', engineName: 'nope' });
        assert.match((await fail({})).error.message, /Integration does not exists: nope/);
      });

      it('a server that quotes the statement back in its error never shows the key', async () => {
        await load({ operation: 'create', engineName: 'e', handler: 'openai' });
        fake.fault((_req, res, entry) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ title: 'Error', detail: `failed: ${entry.body.query}` }));
        });
        const m = await fail({});
        assert.match(m.error.message, /failed: CREATE ML_ENGINE/);
        assert.deepEqual(secretsIn(m, [SECRET]), []);
        assert.deepEqual(logged(), []);
      });

      for (const fault of ['connection dropped', 'stall']) {
        it(`a fault (${fault}) ends the message with one error`, async () => {
          await load({ operation: 'list' });
          fake.fault(FAULTS[fault]);
          const m = await fail({ timeout: 300 });
          assert.ok(m.error.message);
        });
      }
    });
  });
}
