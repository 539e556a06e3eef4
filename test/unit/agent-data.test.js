'use strict';
/**
 * Agents over data (src/client/resources/agents.ts, src/runtime/agent/agent-settings.ts): the agent
 * node's Knowledge bases, Tables and Mode, or msg.payload's data, checked before anything is
 * sent (its shape, and that each knowledge base and table is there, named as MindsDB stored it),
 * sent as the server's version takes them, and an update that names one list keeping the other.
 * The fake answers as the real lines did (docs/real-mindsdb.md, "Agents over data"); on the real
 * servers, test/e2e/kb-search.e2e.js.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { agentData } = require('../../nodes/client');

const KEY = 'sk-unit-agent-key-42';
const LLM = { provider: 'openai', model_name: 'gpt-4o', api_key: KEY, base_url: 'http://127.0.0.1:9/v1' };

describe('agent data', () => {
  it('takes knowledge_bases and tables as lists of names, nothing else', () => {
    assert.deepEqual(agentData({ knowledge_bases: [' mindsdb.docs '], tables: [] }), {
      knowledge_bases: ['mindsdb.docs'],
      tables: [],
    });
    assert.throws(() => agentData({ views: ['v'] }), /takes only knowledge_bases and tables \(got views\)/);
    assert.throws(
      () => agentData({ knowledge_bases: 'mindsdb.docs' }),
      /data\.knowledge_bases must be a list of names/,
    );
    assert.throws(() => agentData({ tables: [''] }), /data\.tables must be a list of names/);
    assert.throws(() => agentData(['mindsdb.docs']), /data must be an object/);
  });
});

describe('mindsdb-agent node: agents over data', function () {
  let fake;
  const nodes = [node('mindsdb-server'), node('mindsdb-agent'), catchNode];
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  /** A fake of `version` with the knowledge base Docs and the table files.parts (SELECT … LIMIT 0 answers). */
  const start = async (version, def = {}) => {
    fake = await createFakeMindsDB({ version }).listen();
    await fetch(`${fake.url}/api/projects/mindsdb/knowledge_bases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ knowledge_base: { name: 'Docs', storage: { database: 'v', table: 't' } } }),
    });
    fake.state.sql = (body) =>
      /`files`\.`parts` LIMIT 0$/.test(body.query)
        ? { type: 'table', column_names: ['part'], data: [] }
        : { type: 'error', error_code: 0, error_message: `Table '${body.query.split('FROM ')[1]}' not found` };
    await new Promise((r) => helper.startServer(r));
    await helper.load(
      nodes,
      flowWith(
        {
          type: 'mindsdb-agent',
          project: 'mindsdb',
          projectType: 'str',
          itemName: 'a1',
          itemNameType: 'str',
          streamMode: 'final',
          operation: 'msg',
          knowledgeBases: '',
          tables: '',
          mode: 'default',
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
  const sent = (method) => fake.requests.filter((r) => r.method === method && /\/agents/.test(r.path));

  it("26.x: the node's lists and mode win, msg.payload.data fills the rest; names go as MindsDB stored them", async () => {
    await start('26.1.0', { knowledgeBases: 'mindsdb.docs', mode: 'sql' });
    await send({
      operation: 'create',
      payload: { model: LLM, data: { knowledge_bases: ['x'], tables: ['files.parts'] } },
    });
    assert.deepEqual(sent('POST').at(-1).body.agent, {
      name: 'a1',
      model: LLM,
      data: { knowledge_bases: ['mindsdb.Docs'], tables: ['files.parts'] },
      params: { mode: 'sql' },
    });
  });

  it('an update that names one list keeps the other, as the agent has it (MindsDB replaces data whole)', async () => {
    await start('26.1.0');
    await send({
      operation: 'create',
      payload: { model: LLM, data: { knowledge_bases: ['Docs'], tables: ['files.parts'] } },
    });
    await send({ operation: 'update', payload: { data: { knowledge_bases: [] } } });
    assert.deepEqual(sent('PUT').at(-1).body.agent.data, { knowledge_bases: [], tables: ['files.parts'] });
  });

  it('what is not there is refused before anything is sent, all of it in one input error', async () => {
    await start('25.14.1', { knowledgeBases: 'nokb, mindsdb.docs', tables: 'files.nothere, pg' });
    const m = await send({ operation: 'create', payload: { model: LLM } }, 'caught');
    assert.equal(m.mindsdbError.kind, 'input');
    assert.match(
      m.error.message,
      /knowledge base nokb does not exist in project mindsdb; table files\.nothere cannot be read \(Table .*not found\); pg is not a table's name/,
    );
    assert.equal(sent('POST').length, 0);
  });

  it('25.x: data at the top level, mode text left out (25.x has none), mode sql refused', async () => {
    await start('25.14.1', { knowledgeBases: 'mindsdb.Docs' });
    await send({ operation: 'create', payload: { model: LLM, params: { mode: 'text' } } });
    const body = sent('POST').at(-1).body.agent;
    assert.deepEqual(body.data, { knowledge_bases: ['mindsdb.Docs'] });
    assert.deepEqual(body.params, { api_key: KEY, base_url: LLM.base_url });
    const m = await send({ operation: 'update', payload: { params: { mode: 'sql' } } }, 'caught');
    assert.match(m.error.message, /MindsDB 25\.14\.1 agents have no mode .* mode "sql" cannot be set/);
    const mixed = await send({ operation: 'update', payload: { skills_to_add: ['s'] } }, 'caught');
    assert.match(mixed.error.message, /cannot take data together with skills_to_add/);
  });

  it("26.x's misleading 404 on create becomes an error that says what it may be, without the api key", async () => {
    await start('26.1.0');
    // The fake answers 404 for a params key it refuses, as 26.1.0 does, quoting the model with its key.
    fake.fault((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ title: 'Resource not found', detail: `The model "{'api_key': '${KEY}'}" does not exist.` }),
      );
    });
    const m = await send({ operation: 'create', payload: { model: LLM } }, 'caught');
    assert.match(
      m.error.message,
      /refused to create agent "a1" and answered 404 "model does not exist".*check the model/,
    );
    assert.ok(!JSON.stringify([m.error, m.mindsdbError]).includes(KEY), `the key is masked: ${m.error.message}`);
  });
});
