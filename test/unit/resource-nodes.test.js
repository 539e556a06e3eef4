'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage, collect } = require('../support/nr');
const { flushDeliveries } = require('../support/wait');

const nodes = [
  node('mindsdb-server'),
  node('mindsdb-chatbot'),
  node('mindsdb-skill'),
  node('mindsdb-agent'),
  catchNode,
];
const base = {
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  agent: '',
  streamMode: 'final',
};

describe('mindsdb-chatbot / mindsdb-skill / mindsdb-agent nodes', function () {
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB().listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const load = (type, def = {}) =>
    helper.load(nodes, flowWith({ type, ...base, operation: 'msg', ...def }, { url: fake.url }));
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

  it('chatbot: a create in a project stored with capitals says MindsDB cannot keep chatbots there (its 500 says nothing of it)', async () => {
    fake.state.projects.add('Sales');
    await load('mindsdb-chatbot', { project: 'Sales' });
    const e = await fail({
      operation: 'create',
      name: 'c1',
      payload: { model_name: 'home_rentals', database_name: 'files' },
    });
    assert.match(
      e.error.message,
      /MindsDB cannot keep chatbots in project "Sales".*lower-case name; nothing was made \(MindsDB answered: .*'list' object has no attribute 'data'\)/,
    );
  });

  it('agent: create, list, get, update, delete through msg.operation / msg.name, api_key masked', async () => {
    await load('mindsdb-agent');
    const created = await run({
      operation: 'create',
      name: 'a1',
      payload: { model: { provider: 'openai', model_name: 'm', api_key: 'sk-very-secret' } },
    });
    assert.equal(created.payload.name, 'a1');
    // the fake is a 25.14.1: the key went into params, where that version reads it
    assert.equal(created.payload.params.api_key, '******');
    assert.deepEqual(created.mindsdb, { resource: 'agent', operation: 'create', project: 'mindsdb', name: 'a1' });
    assert.equal((await run({ operation: 'list' })).payload.length, 1);
    assert.equal((await run({ operation: 'get', name: 'a1' })).payload.params.api_key, '******');
    assert.equal(
      (await run({ operation: 'update', name: 'a1', payload: { prompt_template: 'p' } })).payload.prompt_template,
      'p',
    );
    assert.deepEqual((await run({ operation: 'delete', name: 'a1' })).payload, {
      deleted: true,
      resource: 'agent',
      project: 'mindsdb',
      name: 'a1',
    });
  });

  it('node fields win over msg.project / msg.name', async () => {
    fake.state.projects.add('p2');
    await load('mindsdb-chatbot', { operation: 'get', project: 'p2', itemName: 'bot' });
    await fail({ project: 'mindsdb', name: 'other' });
    // the get, then (after its 404) the listing where a stored spelling would be found
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      ['/api/projects/p2/chatbots/bot', '/api/projects/p2/chatbots'],
    );
  });

  it("skill: list with the agent filter from msg.agent keeps only that agent's skills", async () => {
    await load('mindsdb-skill');
    await run({ operation: 'create', name: 's1', payload: { type: 'text2sql', params: {} } });
    const s2 = await run({ operation: 'create', name: 's2', payload: { type: 'text2sql', params: {} } });
    fake.state.agents.set('mindsdb/a1', { id: 77, name: 'a1', project: 'mindsdb' });
    fake.state.skills.get('mindsdb/s2').agent_ids.push(77);
    const list = await run({ operation: 'list', agent: 'a1' });
    assert.deepEqual(
      list.payload.map((x) => x.name),
      ['s2'],
    );
    assert.equal(s2.payload.name, 's2');
    assert.equal((await run({ operation: 'list' })).payload.length, 2);
  });

  it('agent completions: a question string in, the answer string out, the full answer in msg.mindsdb.response', async () => {
    await load('mindsdb-agent', { operation: 'completions', itemName: 'a1' });
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
    const msg = await run({ payload: 'How many readings?' });
    assert.equal(msg.payload, 'answer to: How many readings?');
    assert.equal(msg.mindsdb.response.message.role, 'assistant');
  });

  it('agent completions in chunks mode: a message sequence ending with the final answer', async () => {
    await load('mindsdb-agent', { operation: 'completions', itemName: 'a1', streamMode: 'chunks' });
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
    const got = collect('out', 4);
    helper.getNode('n1').receive({ payload: 'Q' });
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.parts.index),
      [0, 1, 2, 3],
    );
    assert.ok(msgs.every((m) => m.parts.id === msgs[0].parts.id));
    assert.equal(msgs[3].parts.count, 4);
    assert.equal(msgs[3].complete, true);
    assert.equal(msgs[3].payload, 'answer to: Q');
    assert.equal(msgs[0].payload.type, 'start');
  });

  it('chunks mode: events at the Output property, an incoming msg.parts nested, the response masked', async () => {
    await load('mindsdb-agent', {
      operation: 'completions',
      itemName: 'a1',
      streamMode: 'chunks',
      outputProperty: 'result.answer',
    });
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
    fake.state.stream = [
      { type: 'start' },
      { type: 'data', text: 'ok', model: { api_key: 'sk-leaked-in-stream' } },
      { type: 'end' },
    ];
    const got = collect('out', 3);
    const outer = { id: 'outer-seq', index: 4, count: 9, type: 'array' };
    helper.getNode('n1').receive({ payload: 'Q', parts: outer, result: { keep: true } });
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.parts.index),
      [0, 1, 2],
    );
    for (const m of msgs) {
      assert.deepEqual(m.parts.parts, outer, 'the incoming sequence is nested, not replaced');
      assert.equal(m.payload, 'Q', 'msg.payload is left alone when the Output property is elsewhere');
      assert.equal(m.result.keep, true);
    }
    assert.equal(msgs[0].result.answer.type, 'start');
    assert.equal(msgs[1].result.answer.model.api_key, '******');
    assert.equal(msgs[2].result.answer, 'ok');
    assert.equal(msgs[2].parts.count, 3);
    assert.ok(
      !JSON.stringify(msgs[2].mindsdb.response).includes('sk-leaked-in-stream'),
      'msg.mindsdb.response is masked',
    );
  });

  it('chunks mode: a stream that breaks after N events gives those N parts, then one error to Catch naming the sequence, no last part', async () => {
    await load('mindsdb-agent', { operation: 'completions', itemName: 'a1', streamMode: 'chunks' });
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
    fake.fault((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type": "start"}\n\ndata: {"type": "context", "content": "x"}\n\n');
      setTimeout(() => res.destroy(), 50); // fault: the stream breaks after its first two events
    });
    const outputs = [];
    helper.getNode('out').on('input', (m) => outputs.push(m));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({ payload: 'Q', marker: 7 });
    const err = await caught;
    await flushDeliveries(); // the parts sent before the error have arrived
    assert.equal(err.marker, 7);
    assert.match(err.error.message, /broke off|closed|reset|terminated|socket/i);
    assert.equal(outputs.length, 2);
    assert.ok(outputs.every((m) => m.parts.count === undefined && m.complete === undefined));
    assert.deepEqual(err.mindsdb.sequence, { id: outputs[0].parts.id, chunks: 2 });
  });

  it('a msg.project or msg.name that is not text is an input error, never the default project', async () => {
    await load('mindsdb-agent', { operation: 'delete', project: '', itemName: 'a1' });
    fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
    for (const project of [{ name: 'p' }, ['p'], true]) {
      const m = await fail({ project, marker: 1 });
      assert.match(m.error.message, /msg\.project must be a string/);
    }
    assert.equal(fake.requests.filter((r) => r.method === 'DELETE').length, 0, 'nothing was deleted');
    await helper.unload();
    await load('mindsdb-agent', { operation: 'get', project: 'mindsdb', itemName: 'a1' });
    const ok = await run({ project: { not: 'text' } });
    assert.equal(ok.payload.name, 'a1', 'a msg field the node overrides does not fail the message');
  });

  for (const [what, type, def, msg, pattern] of [
    [
      'a missing chatbot (404)',
      'mindsdb-chatbot',
      { operation: 'get', itemName: 'none' },
      {},
      /404.*Chatbot not found/,
    ],
    [
      'a bad msg.operation',
      'mindsdb-skill',
      {},
      { operation: 'completions' },
      /must be one of list, get, create, update, delete/,
    ],
    [
      'a create payload that is not an object',
      'mindsdb-agent',
      { operation: 'create', itemName: 'a' },
      { payload: 'x' },
      /must be an object/,
    ],
    ['no name for get', 'mindsdb-agent', { operation: 'get' }, {}, /no agent name/],
    ['skills on a server without skills', 'mindsdb-skill', { operation: 'list' }, { v26: true }, /has no skills/],
    [
      'completions with an empty question',
      'mindsdb-agent',
      { operation: 'completions', itemName: 'a' },
      { payload: '' },
      /empty/,
    ],
    ['a skill filter naming an unknown agent', 'mindsdb-skill', { operation: 'list', agent: 'ghost' }, {}, /404/],
  ]) {
    it(`sends ${what} to Catch with the msg`, async () => {
      if (msg.v26) {
        await fake.close();
        fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
      }
      await load(type, def);
      const m = await fail({ ...msg, marker: 1 });
      assert.equal(m.marker, 1);
      assert.match(m.error.message, pattern);
    });
  }
});
