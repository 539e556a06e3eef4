'use strict';
const assert = require('node:assert/strict');
const { fakeClient } = require('../support/client-fixture');
const { ResourcesApi, SseParser, toAgentMessages, completeAgent, streamAgent } = require('../../nodes/client');

const settings = {
  chatbot: { model_name: 'home_rentals', database_name: 'files' },
  skill: { type: 'text2sql', params: { database: 'files', tables: ['t'] } },
  agent: { model: { provider: 'mindsdb', model_name: 'home_rentals' } },
};
const collection = { chatbot: 'chatbots', skill: 'skills', agent: 'agents' };

describe('chatbot / skill / agent client (the RESOURCES table)', function () {
  const t = fakeClient({ retries: 0 }, { client: true });
  let api;
  beforeEach(() => {
    api = new ResourcesApi(t.client);
  });
  const last = () => t.fake.requests.at(-1);

  for (const kind of ['chatbot', 'skill', 'agent']) {
    const coll = `/api/projects/mindsdb/${collection[kind]}`;
    describe(kind, () => {
      it('create: POST the collection with the record wrapped under its name', async () => {
        const rec = await api.run(kind, 'create', { project: 'mindsdb', name: 'x1', payload: settings[kind] });
        assert.equal(rec.name, 'x1');
        assert.equal(last().method, 'POST');
        assert.equal(last().path, coll);
        // agents go out in the server's shape (25.14.1 here): model_name and provider at the top level
        const sent = kind === 'agent' ? { model_name: 'home_rentals', provider: 'mindsdb' } : settings[kind];
        assert.deepEqual(last().body, { [kind]: { ...sent, name: 'x1' } });
      });
      it('list: GET the collection → array', async () => {
        await api.run(kind, 'create', { project: 'mindsdb', name: 'x1', payload: settings[kind] });
        const list = await api.run(kind, 'list', { project: 'mindsdb' });
        assert.deepEqual(
          list.map((r) => r.name),
          ['x1'],
        );
        assert.equal(last().method, 'GET');
        assert.equal(last().path, coll);
      });
      it('get: GET the item by name', async () => {
        await api.run(kind, 'create', { project: 'mindsdb', name: 'x1', payload: settings[kind] });
        const rec = await api.run(kind, 'get', { project: 'mindsdb', name: 'x1' });
        assert.equal(rec.name, 'x1');
        assert.equal(last().method, 'GET');
        assert.equal(last().path, `${coll}/x1`);
      });
      it('update: PUT the item with the wrapper', async () => {
        await api.run(kind, 'create', { project: 'mindsdb', name: 'x1', payload: settings[kind] });
        const rec = await api.run(kind, 'update', { project: 'mindsdb', name: 'x1', payload: { params: { k: 1 } } });
        assert.deepEqual(rec.params, { k: 1 });
        assert.equal(last().method, 'PUT');
        assert.equal(last().path, `${coll}/x1`);
        assert.deepEqual(last().body, {
          [kind]: kind === 'chatbot' ? { params: { k: 1 }, name: 'x1' } : { params: { k: 1 } },
        });
      });
      it('delete: DELETE the item and confirm what was deleted', async () => {
        await api.run(kind, 'create', { project: 'mindsdb', name: 'x1', payload: settings[kind] });
        const res = await api.run(kind, 'delete', { project: 'mindsdb', name: 'x1' });
        assert.deepEqual(res, { deleted: true, resource: kind, project: 'mindsdb', name: 'x1' });
        assert.equal(last().method, 'DELETE');
        assert.equal(last().path, `${coll}/x1`);
      });
      it('get of a missing record: 404 with the server message', async () => {
        await assert.rejects(
          api.run(kind, 'get', { project: 'mindsdb', name: 'none' }),
          (e) => e.status === 404 && /not found/i.test(e.message),
        );
      });
    });
  }

  it('chatbot and skill update create a missing record (upsert, 201)', async () => {
    const bot = await api.run('chatbot', 'update', { project: 'mindsdb', name: 'newbot', payload: settings.chatbot });
    assert.equal(bot.name, 'newbot');
    const skill = await api.run('skill', 'update', { project: 'mindsdb', name: 'newskill', payload: settings.skill });
    assert.equal(skill.name, 'newskill');
  });

  it('agent update of a missing agent: a clear error saying it must exist', async () => {
    await assert.rejects(
      api.run('agent', 'update', { project: 'mindsdb', name: 'ghost', payload: {} }),
      /does not exist.*create it first/,
    );
  });

  it('agent delete falls back to the singular /agent/ path only when the plural route does not exist', async () => {
    t.fake.fault((_req, res) => {
      res.writeHead(405, { 'content-type': 'text/html' });
      res.end('<h1>Method Not Allowed</h1>');
    });
    t.fake.fault((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await api.run('agent', 'delete', { project: 'mindsdb', name: 'a1' });
    assert.deepEqual(
      t.fake.requests.map((r) => `${r.method} ${r.path}`),
      ['DELETE /api/projects/mindsdb/agents/a1', 'DELETE /api/projects/mindsdb/agent/a1'],
    );
  });

  it('agent delete does not fall back on a JSON 404 (agent not found)', async () => {
    await assert.rejects(api.run('agent', 'delete', { project: 'mindsdb', name: 'ghost' }), (e) => e.status === 404);
    // only the listing that looks for a stored spelling of "ghost" follows, never /agent/ghost
    assert.deepEqual(
      t.fake.requests.map((r) => `${r.method} ${r.path}`),
      ['DELETE /api/projects/mindsdb/agents/ghost', 'GET /api/projects/mindsdb/agents'],
    );
  });

  it('records are found by name only, as on the real server (an id is just an unknown name)', async () => {
    const a = await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    await assert.rejects(
      api.run('agent', 'get', { project: 'mindsdb', name: String(a.id) }),
      (err) => err.status === 404,
    );
  });

  it('an agent update with a skills list is rejected by 25.x (skills_to_add / skills_to_remove work)', async () => {
    await api.run('skill', 'create', { project: 'mindsdb', name: 's1', payload: settings.skill });
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    await assert.rejects(
      api.run('agent', 'update', { project: 'mindsdb', name: 'a1', payload: { skills: ['s1'] } }),
      (err) => err.status === 500,
    );
  });

  it("skills list filtered by agent name, from each skill's agent_ids", async () => {
    await api.run('skill', 'create', { project: 'mindsdb', name: 's1', payload: settings.skill });
    await api.run('skill', 'create', { project: 'mindsdb', name: 's2', payload: settings.skill });
    await api.run('agent', 'create', {
      project: 'mindsdb',
      name: 'a1',
      payload: { ...settings.agent, skills: ['s2'] },
    });
    assert.deepEqual(
      (await api.run('skill', 'list', { project: 'mindsdb', agent: 'a1' })).map((s) => s.name),
      ['s2'],
    );
    assert.equal((await api.run('skill', 'list', { project: 'mindsdb' })).length, 2);
  });

  it('a MindsDB 26 server: every skill operation says the server has no skills', async () => {
    await t.replaceFake({ version: '26.1.0' });
    t.make({ retries: 0 });
    api = new ResourcesApi(t.client);
    for (const op of ['list', 'get', 'create', 'update', 'delete']) {
      await assert.rejects(
        api.run('skill', op, { project: 'mindsdb', name: 's', payload: settings.skill }),
        (e) => e.kind === 'unsupported' && /has no skills \(skills were removed in MindsDB 26\.0\)/.test(e.message),
        op,
      );
    }
  });

  it('agent completions: question/answer messages, answer from message.content', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    const r = await completeAgent(t.client, 'mindsdb', 'a1', toAgentMessages('How many?'));
    assert.equal(r.answer, 'answer to: How many?');
    assert.deepEqual(last().body, { messages: [{ question: 'How many?', answer: null }] });
    assert.equal(last().path, '/api/projects/mindsdb/agents/a1/completions');
  });

  it('agent completions never repeat a question that reached the server (a 500 is reported, not re-posted)', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    t.fake.state.completionsFail = true;
    await assert.rejects(
      completeAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q')),
      (err) => err.status === 500 && /trace_id/.test(err.message),
    );
    assert.equal(
      t.fake.requests.filter((r) => r.path.includes('/completions')).length,
      1,
      'asked once, never through /stream as well',
    );
  });

  it('agent completions use the stream only when the server has no plain completions route', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    t.fake.fault((_req, res) => {
      res.writeHead(405, { 'content-type': 'text/html' });
      res.end('<h1>Method Not Allowed</h1>');
    });
    const r = await completeAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q'));
    assert.equal(r.answer, 'answer to: Q');
    assert.deepEqual(
      t.fake.requests.filter((x) => x.path.includes('/completions')).map((x) => x.path),
      ['/api/projects/mindsdb/agents/a1/completions', '/api/projects/mindsdb/agents/a1/completions/stream'],
    );
  });

  it('an agent stream after a server restart logs in again once and asks once more (login mode)', async () => {
    await t.replaceFake({ auth: { username: 'user', password: 'pw-123', type: 'token' } });
    t.make({ retries: 0, auth: { mode: 'login', username: 'user', password: 'pw-123' } });
    api = new ResourcesApi(t.client);
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    t.fake.restart(); // the token the t.client holds is gone: the next request gets a 401
    const r = await streamAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q'), () => undefined);
    assert.equal(r.answer, 'answer to: Q');
    assert.equal(t.fake.requestsTo('/login').length, 2, 'one login at start, one after the restart');
    const asked = t.fake.requests.filter((x) => x.path.endsWith('/completions/stream'));
    assert.equal(asked.length, 2, 'the 401, then the question once more');
    assert.doesNotMatch(JSON.stringify(r), /pw-123/);
  });

  it('keeps multi-byte characters whole when the network splits them between chunks', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    const text = 'Grüße, 温度 21 °C 🌡️';
    const bytes = Buffer.from(`data: ${JSON.stringify({ type: 'data', text })}\n\ndata: {"type": "end"}\n\n`, 'utf8');
    t.fake.fault((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Cut inside "ü", "温" and the emoji: each piece leaves on its own.
      const cuts = [
        bytes.indexOf(Buffer.from('ü')) + 1,
        bytes.indexOf(Buffer.from('温')) + 2,
        bytes.indexOf(Buffer.from('🌡')) + 3,
      ];
      let from = 0;
      const next = () => {
        const to = cuts.shift() ?? bytes.length;
        res.write(bytes.subarray(from, to));
        from = to;
        if (from < bytes.length) setTimeout(next, 20);
        else res.end(); // fault: a slow server, one piece every 20 ms
      };
      next();
    });
    const r = await streamAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q'), () => undefined);
    assert.equal(r.answer, text);
    assert.ok(!r.answer.includes('\uFFFD'));
  });

  it('streams v26-shaped chunks and stops at the first end', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    t.fake.state.stream = [
      { type: 'context', content: 'planning' },
      { type: 'data', text: 'forty-two', trace_id: '' },
      { type: 'end', trace_id: '' },
      { type: 'end' },
    ];
    const chunks = [];
    const r = await streamAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q'), (c) => chunks.push(c));
    assert.equal(r.answer, 'forty-two');
    assert.deepEqual(
      chunks.map((c) => c.type),
      ['context', 'data'],
    );
  });

  it('an in-band stream error becomes an error', async () => {
    await api.run('agent', 'create', { project: 'mindsdb', name: 'a1', payload: settings.agent });
    t.fake.state.stream = [
      { type: 'start' },
      { type: 'error', content: 'Agent streaming failed: no LLM', trace_id: '' },
    ];
    await assert.rejects(
      streamAgent(t.client, 'mindsdb', 'a1', toAgentMessages('Q'), () => undefined),
      /the agent failed: Agent streaming failed: no LLM/,
    );
  });

  it('role/content conversations become question/answer pairs', () => {
    assert.deepEqual(
      toAgentMessages([
        { role: 'system', content: 's' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ]),
      [
        { question: 'q1', answer: 'a1' },
        { question: 'q2', answer: null },
      ],
    );
    assert.throws(() => toAgentMessages(42), /question/);
  });

  it('parses SSE split across arbitrary chunk boundaries', () => {
    const text =
      'data: {"type": "start"}\n\ndata: {"output": "x y"}\r\n\r\ndata: not json\n\ndata: {"type": "end"}\n\n';
    for (let size = 1; size <= text.length; size += 3) {
      const p = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...p.push(text.slice(i, i + size)));
      assert.deepEqual(events, [{ type: 'start' }, { output: 'x y' }, { type: 'end' }], `chunk size ${size}`);
    }
  });
});
