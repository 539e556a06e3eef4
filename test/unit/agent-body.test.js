'use strict';
/**
 * Version-aware agents: one settings shape in, the body 25.x or 26.x accepts out, and what a
 * version would reject refused before anything is sent (src/client/resources/agent-body.ts).
 */
const assert = require('node:assert/strict');
const { fakeClient } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { portBelowEphemeral } = require('../support/ports');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const {
  ResourcesApi,
  agentBody,
  normaliseAgentSettings,
  completeAgent,
  toAgentMessages,
} = require('../../nodes/client');

const LLM = { provider: 'openai', model_name: 'gpt-4o', api_key: 'sk-x', base_url: 'http://127.0.0.1:9/v1' };

describe("agent settings → the body of the server's version", () => {
  it('reads the top-level shape and the nested model: {…} shape alike', () => {
    const flat = normaliseAgentSettings({ ...LLM, prompt_template: 'p' });
    const nested = normaliseAgentSettings({ model: LLM, prompt_template: 'p' });
    assert.deepEqual(flat, nested);
    assert.deepEqual(flat, { model: LLM, rest: { prompt_template: 'p' }, params: {} });
    assert.deepEqual(normaliseAgentSettings({ model: 'sensor_energy', provider: 'mindsdb' }).model, {
      model_name: 'sensor_energy',
      provider: 'mindsdb',
    });
  });

  it('takes the same value twice, refuses two different ones', () => {
    assert.deepEqual(normaliseAgentSettings({ model_name: 'gpt-4o', model: { model_name: 'gpt-4o' } }).model, {
      model_name: 'gpt-4o',
    });
    assert.throws(
      () => normaliseAgentSettings({ model_name: 'gpt-4o', model: { model_name: 'gpt-4' } }),
      (e) => e.kind === 'input' && /model_name is given twice/.test(e.message),
    );
    assert.throws(() => normaliseAgentSettings({ model: 42 }), /model must be an object/);
    assert.throws(() => normaliseAgentSettings({ params: 'x' }), /params must be an object/);
  });

  it('25.x: model_name and provider at the top level, the other LLM settings in params', () => {
    assert.deepEqual(
      agentBody('25.14.1', {
        model: { ...LLM, temperature: 0.2 },
        prompt_template: 'p',
        skills: ['s1'],
        params: { max_iterations: 3 },
      }),
      {
        model_name: 'gpt-4o',
        provider: 'openai',
        prompt_template: 'p',
        skills: ['s1'],
        params: { max_iterations: 3, api_key: 'sk-x', base_url: 'http://127.0.0.1:9/v1', temperature: 0.2 },
      },
    );
    assert.deepEqual(agentBody('25.14.1', { prompt_template: 'only this' }), { prompt_template: 'only this' });
  });

  it('26.x: model: {…} with every LLM setting, params only timeout and mode', () => {
    assert.deepEqual(
      agentBody('26.1.0', {
        ...LLM,
        model: { temperature: 0.2 },
        data: { tables: ['files.t'] },
        params: { timeout: 30, mode: 'sql' },
      }),
      {
        model: { ...LLM, temperature: 0.2 },
        data: { tables: ['files.t'] },
        params: { timeout: 30, mode: 'sql' },
      },
    );
    // a record read back from 25.x (key and URL in params, prompt_template there too) converts
    assert.deepEqual(
      agentBody('26.1.0', {
        model_name: 'gpt-4o',
        provider: 'openai',
        params: { api_key: 'sk-x', prompt_template: 'p' },
      }),
      {
        model: { model_name: 'gpt-4o', provider: 'openai', api_key: 'sk-x' },
        prompt_template: 'p',
      },
    );
  });

  it('26.x: refuses other params keys, skills and unknown modes, saying what to send instead', () => {
    assert.throws(
      () => agentBody('26.1.0', { model: LLM, params: { temperature: 0.1, verbose: true } }),
      (e) =>
        e.kind === 'input' &&
        /accepts only timeout and mode in an agent's params \(got temperature, verbose\): put LLM settings such as temperature in model: \{/.test(
          e.message,
        ),
    );
    for (const key of ['skills', 'skills_to_add', 'skills_to_remove']) {
      assert.throws(
        () => agentBody('26.1.0', { model: LLM, [key]: ['s'] }),
        (e) =>
          e.kind === 'input' && new RegExp(`has no skills .*${key} cannot be sent: .*data: \\{tables`).test(e.message),
        key,
      );
    }
    assert.throws(() => agentBody('26.1.0', { params: { mode: 'retrieval' } }), /mode of "text" or "sql" only/);
  });
});

describe('agents against a fake 26.1 server', () => {
  const t = fakeClient({ retries: 0 }, { fake: { version: '26.1.0' }, client: true });
  let api;
  beforeEach(() => {
    api = new ResourcesApi(t.client);
  });
  const posts = () => t.fake.requests.filter((r) => r.method !== 'GET');

  it('creates with the nested model from top-level settings, and asks the version once', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: { ...LLM, prompt_template: 'p' } });
    assert.deepEqual(t.fake.requests.at(-1).body, { agent: { model: LLM, prompt_template: 'p', name: 'a1' } });
    await api.run('agent', 'update', { project: 'mindsdb', name: 'a1', payload: { prompt_template: 'q' } });
    await api.run('agent', 'update', { project: 'mindsdb', name: 'a1', payload: { params: { timeout: 10 } } });
    assert.equal(t.fake.requestsTo('/status').length, 1);
  });

  it('a refused body sends nothing', async () => {
    await assert.rejects(
      api.run('agent', 'create', {
        project: 'mindsdb',
        name: 'a1',
        payload: { model: LLM, params: { temperature: 1 } },
      }),
      /accepts only timeout and mode/,
    );
    await assert.rejects(
      api.run('agent', 'update', { project: 'mindsdb', name: 'a1', payload: { skills_to_add: ['s'] } }),
      /has no skills/,
    );
    assert.deepEqual(posts(), []);
  });

  it('the same settings the 25.x way would have been a 404 there: proof the t.fake is strict like the real server', async () => {
    const raw = await fetch(`${t.fake.url}/api/projects/mindsdb/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: { name: 'a2', model_name: 'gpt-4o', provider: 'openai', params: { api_key: 'k' } },
      }),
    });
    assert.equal(raw.status, 404);
  });

  it("completions go to the stream (26.1.0's plain endpoint fails every answer), once", async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: LLM });
    const r = await completeAgent(t.client, 'mindsdb', 'a1', toAgentMessages('How warm?'));
    assert.equal(r.answer, 'answer to: How warm?');
    const calls = t.fake.requests.filter((q) => q.path.includes('/completions'));
    assert.deepEqual(
      calls.map((q) => q.path),
      ['/api/projects/mindsdb/agents/a1/completions/stream'],
    );
  });

  it("a chatbot on a 26.x agent: the server's 500 becomes an error that explains it", async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: LLM });
    await assert.rejects(
      api.run('chatbot', 'create', {
        project: 'mindsdb',
        name: 'c1',
        payload: { agent_name: 'a1', database_name: 'files' },
      }),
      (e) =>
        e.status === 500 &&
        /chatbot on agent "a1": the chatbot needs the agent's top-level model_name, which agents on MindsDB 26\.x .*Give the chatbot a model_name instead/.test(
          e.message,
        ),
    );
  });

  it('forgets the version when the server goes away (it may come back as another version)', async () => {
    // Its own server, on a port no outgoing connection can take while nothing listens there.
    await t.client.close(0);
    await t.fake.close();
    const port = await portBelowEphemeral();
    t.fake = await createFakeMindsDB({ version: '26.1.0' }).listen(port);
    t.make({ retries: 0 });
    assert.equal(await t.client.serverVersion(), '26.1.0');
    await t.fake.close();
    await assert.rejects(t.client.request('GET', '/projects'));
    t.fake = await createFakeMindsDB({ version: '25.14.1' }).listen(port);
    assert.equal(await t.client.serverVersion(), '25.14.1');
  });
});

describe('mindsdb-agent node on 25.x and 26.x servers', function () {
  let fake;
  const nodes = [node('mindsdb-server'), node('mindsdb-agent'), catchNode];
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const start = async (version, def = {}) => {
    fake = await createFakeMindsDB({ version }).listen();
    await new Promise((r) => helper.startServer(r));
    await helper.load(
      nodes,
      flowWith(
        {
          type: 'mindsdb-agent',
          project: 'mindsdb',
          projectType: 'str',
          itemName: '',
          itemNameType: 'str',
          agent: '',
          streamMode: 'final',
          operation: 'msg',
          ...def,
        },
        { url: fake.url },
      ),
    );
  };
  const send = (msg, to = 'out') => {
    const got = nextMessage(to);
    helper.getNode('n1').receive(msg);
    return got;
  };

  for (const version of ['25.14.1', '26.1.0']) {
    it(`${version}: one msg.payload shape creates, updates and answers`, async () => {
      await start(version);
      const created = await send({ operation: 'create', name: 'a1', payload: { model: LLM } });
      assert.equal(created.payload.name, 'a1');
      const body = fake.requests.filter((r) => r.method === 'POST').at(-1).body.agent;
      if (version === '26.1.0') assert.deepEqual(body.model, LLM);
      else assert.deepEqual([body.model_name, body.provider, body.params.api_key], ['gpt-4o', 'openai', 'sk-x']);
      await send({ operation: 'update', name: 'a1', payload: { prompt_template: 'brief' } });
      assert.equal((await send({ operation: 'completions', name: 'a1', payload: 'Q?' })).payload, 'answer to: Q?');
    });
  }

  it('26.1: a refused params key reaches Catch as an input error, nothing sent', async () => {
    await start('26.1.0');
    const m = await send(
      { operation: 'create', name: 'a1', payload: { model: LLM, params: { temperature: 0 } } },
      'caught',
    );
    assert.match(m.error.message, /accepts only timeout and mode in an agent's params \(got temperature\)/);
    assert.equal(m.mindsdbError.kind, 'input');
    assert.equal(fake.requests.filter((r) => r.method === 'POST').length, 0);
  });
});
