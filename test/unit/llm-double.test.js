'use strict';
/** The loopback LLM double (test/support/llm-double.js) answers as the OpenAI API does. */
const assert = require('node:assert/strict');
const { startLlmDouble, argumentsFor } = require('../support/llm-double');

describe('LLM double (test support)', () => {
  let llm;
  before(async () => {
    llm = await startLlmDouble();
  });
  after(() => llm.close());

  const post = async (path, body) => {
    const res = await fetch(`${llm.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), res };
  };

  it('listens on loopback and lists models; an unknown model id is a 404', async () => {
    assert.match(llm.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const list = await (await fetch(`${llm.url}/models`)).json();
    assert.ok(list.data.some((m) => m.id === 'gpt-4o'));
    assert.equal((await fetch(`${llm.url}/models/gpt-4`)).status, 200);
    assert.equal((await fetch(`${llm.url}/models/nope`)).status, 404);
  });

  it('echoes the last line of the last user message as plain text and records the call', async () => {
    const r = await post('/chat/completions', {
      model: 'gpt-4',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'prefix\nNew input: How warm is it?\n' },
      ],
    });
    const body = JSON.parse(r.text);
    assert.equal(body.choices[0].message.content, 'Echo: New input: How warm is it?');
    assert.equal(body.choices[0].finish_reason, 'stop');
    assert.deepEqual(llm.calls.at(-1).path, '/v1/chat/completions');
  });

  it('answers a bare arithmetic expression with its value, anything else that looks like one with an echo', async () => {
    const ask = async (content) =>
      JSON.parse((await post('/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content }] })).text)
        .choices[0].message.content;
    assert.equal(await ask('2 * 20 + 0.5 * 40 + 3'), '63');
    assert.equal(await ask('(1 + 2) * -3 / 2'), '-4.5');
    assert.equal(await ask('2 * (3'), 'Echo: 2 * (3');
    assert.equal(await ask('1 / 0'), 'Echo: 1 / 0');
  });

  it('streams text as SSE chunks that add up to the answer, then [DONE]', async () => {
    const r = await post('/chat/completions', {
      model: 'gpt-4',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'a fairly long question about sensors' }],
    });
    assert.match(r.res.headers.get('content-type'), /text\/event-stream/);
    const lines = r.text
      .split('\n\n')
      .filter(Boolean)
      .map((l) => l.replace(/^data: /, ''));
    assert.equal(lines.at(-1), '[DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l));
    assert.ok(chunks.length > 3);
    assert.equal(
      chunks.map((c) => c.choices[0]?.delta.content || '').join(''),
      'Echo: a fairly long question about sensors',
    );
    assert.ok(chunks.at(-1).usage.total_tokens > 0);
  });

  it('answers tool_choice "required" with a final_result call whose arguments fit the schema (pydantic shapes)', async () => {
    const parameters = {
      type: 'object',
      properties: {
        plan: { type: 'string' },
        estimated_steps: { type: 'integer', minimum: 2 },
        kind: { $ref: '#/$defs/Kind' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        note: { anyOf: [{ type: 'null' }, { type: 'number', maximum: 0.5 }] },
        nested: { $ref: '#/$defs/Inner' },
        type: {
          type: 'string',
          description:
            "Type of query: 'exploratory_query' for more, 'final_query' for SQL, 'final_text' to return text",
        },
        optional: { type: 'string' },
      },
      required: ['plan', 'estimated_steps', 'kind', 'tags', 'note', 'nested', 'type'],
      $defs: {
        Kind: { enum: ['a', 'b'] },
        Inner: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
    };
    const r = await post('/chat/completions', {
      model: 'gpt-4o',
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'Plan it' }],
      tools: [
        { type: 'function', function: { name: 'other', parameters: { type: 'object', properties: {} } } },
        { type: 'function', function: { name: 'final_result', parameters } },
      ],
    });
    const call = JSON.parse(r.text).choices[0].message.tool_calls[0];
    assert.equal(call.function.name, 'final_result');
    assert.deepEqual(JSON.parse(call.function.arguments), {
      plan: 'Echo: Plan it',
      estimated_steps: 2,
      kind: 'a',
      tags: ['Echo: Plan it', 'Echo: Plan it'],
      note: 0.5,
      nested: { ok: true },
      type: 'final_text',
    });
  });

  it('calls a named tool, streams tool arguments in pieces, and leaves tools alone under "auto"', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_x',
          parameters: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
        },
      },
    ];
    const named = await post('/chat/completions', {
      model: 'gpt-4o',
      stream: true,
      tools,
      tool_choice: { type: 'function', function: { name: 'get_x' } },
      messages: [{ role: 'user', content: 'q' }],
    });
    const chunks = named.text
      .split('\n\n')
      .filter((l) => l && l !== 'data: [DONE]')
      .map((l) => JSON.parse(l.slice(6)));
    const args = chunks
      .flatMap((c) => c.choices[0]?.delta.tool_calls || [])
      .map((t) => t.function.arguments)
      .join('');
    assert.deepEqual(JSON.parse(args), { x: 'Echo: q' });
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'tool_calls');
    const auto = JSON.parse(
      (
        await post('/chat/completions', {
          model: 'gpt-4o',
          tools,
          tool_choice: 'auto',
          messages: [{ role: 'user', content: 'q' }],
        })
      ).text,
    );
    assert.equal(auto.choices[0].message.content, 'Echo: q');
  });

  it('embeds deterministically, normalised, texts sharing words closer; base64 as float32', async () => {
    const r = JSON.parse(
      (
        await post('/embeddings', {
          model: 'text-embedding-3-small',
          input: ['warm sensor readings', 'sensor readings in the hall', 'banana bread recipe'],
        })
      ).text,
    );
    const [a, b, c] = r.data.map((d) => d.embedding);
    const dot = (x, y) => x.reduce((s, v, i) => s + v * y[i], 0);
    assert.ok(Math.abs(dot(a, a) - 1) < 1e-9);
    assert.ok(dot(a, b) > dot(a, c), `${dot(a, b)} vs ${dot(a, c)}`);
    const again = JSON.parse(
      (await post('/embeddings', { input: 'warm sensor readings', encoding_format: 'base64', dimensions: 16 })).text,
    );
    const buf = Buffer.from(again.data[0].embedding, 'base64');
    assert.equal(buf.length, 16 * 4);
    const v = Array.from({ length: 16 }, (_, i) => buf.readFloatLE(i * 4));
    assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
  });

  it('argumentsFor honours const, defaults and prefixItems', () => {
    const tool = {
      function: {
        parameters: {
          type: 'object',
          properties: {
            c: { const: 3 },
            d: { type: 'string', default: 'dflt' },
            p: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'boolean' }] },
          },
        },
      },
    };
    assert.deepEqual(argumentsFor(tool, 'x'), { c: 3, d: 'dflt', p: [1, true] });
  });
});

describe('LLM double with agentQuery: an agent that queries, then answers from the rows', () => {
  const SQL = "SELECT chunk_content FROM mindsdb.kb WHERE product = 'pump'";
  let llm;
  before(async () => {
    llm = await startLlmDouble({ agentQuery: SQL });
  });
  after(() => llm.close());

  const chat = async (body) => {
    const res = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', ...body }),
    });
    return (await res.json()).choices[0].message;
  };
  const finalResult = (properties) => ({
    tools: [{ type: 'function', function: { name: 'final_result', parameters: { type: 'object', properties } } }],
    tool_choice: 'required',
  });
  const args = (message) => JSON.parse(message.tool_calls[0].function.arguments);
  const answerTool = { sql_query: { type: 'string' }, text: { type: 'string' }, type: { type: 'string' } };

  it('26.x: plans, queries, then answers from the "Previous exploratory query results" it was given', async () => {
    const user = (content) => ({ messages: [{ role: 'user', content }] });
    assert.match(
      args(await chat({ ...user('Question'), ...finalResult({ plan: {}, estimated_steps: {} }) })).plan,
      /pump/,
    );
    assert.deepEqual(args(await chat({ ...user('Question'), ...finalResult(answerTool) })), {
      sql_query: SQL,
      text: '',
      short_description: 'search',
      type: 'exploratory_query',
    });
    const seen = 'Q\nPrevious exploratory query results:\nResult:\n| chunk_content |\n| --- |\n| pump seal |\n';
    const last = args(await chat({ ...user(seen), ...finalResult(answerTool) }));
    assert.deepEqual([last.type, last.text], ['final_text', 'Answer from the rows: pump seal']);
    const sqlMode = finalResult({ sql_query: { type: 'string' }, type: { type: 'string' } });
    assert.equal(args(await chat({ ...user('Q'), ...sqlMode })).type, 'final_query');
  });

  it("25.x: a ReAct prompt gets the kb_query_tool action, then an answer from the tool's observation", async () => {
    const prompt = 'Tools: kb_query_tool\nAction: …\nAction Input: …\nObservation: …\n\nNew input: Why?';
    const first = await chat({ messages: [{ role: 'user', content: prompt }] });
    assert.equal(first.content, `Thought: Do I need to use a tool? Yes\nAction: kb_query_tool\nAction Input: ${SQL};`);
    const observed = `${prompt}\nObservation: Output columns: 'chunk_content'\nResult in CSV format (dialect is 'excel'):\nchunk_content\npump seal\n`;
    assert.equal(
      (await chat({ messages: [{ role: 'user', content: observed }] })).content,
      'Thought: Do I need to use a tool? No\nAI: Answer from the rows: pump seal',
    );
  });

  it('anything else is answered as without it (a reranker, a plain chat)', async () => {
    assert.equal((await chat({ messages: [{ role: 'user', content: 'hello 90' }] })).content, 'Echo: hello 90');
  });
});
