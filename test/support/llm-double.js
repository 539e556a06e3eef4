'use strict';
/**
 * An OpenAI-compatible LLM and embedding server on 127.0.0.1, so a real MindsDB can create agents,
 * answer completions, run its openai engine and embed documents without leaving the machine.
 * Test support only (never shipped: package.json "files" does not list test/).
 *
 *   const { startLlmDouble } = require('./llm-double');
 *   const llm = await startLlmDouble();          // { url: 'http://127.0.0.1:PORT/v1', port, close(), calls }
 *   // MindsDB: provider 'openai', base_url / api_base = llm.url, any api key
 *
 * What it answers, deterministically:
 * - GET  /v1/models, GET /v1/models/{id}: a fixed list (chat and embedding model names MindsDB
 *   knows, so its tokenizer lookups and name checks pass); an unknown id → 404 as OpenAI answers.
 * - POST /v1/chat/completions, with or without `stream` (SSE `data: {chunk}` lines and `data: [DONE]`):
 *   - when the request has `tools` and `tool_choice` is "required" or names a tool (pydantic-ai,
 *     which MindsDB 26.x uses, does so for structured output through its `final_result` tool and
 *     for the planning step): one tool call whose arguments are generated from the tool's JSON
 *     schema so that they validate (see argumentsFor);
 *   - otherwise plain text: `Echo: <the last non-empty line of the last user message>`. The last
 *     line is where both MindsDB versions put the question ("New input: …" in 25.x's ReAct prompt,
 *     the question itself in 26.x), so a test can assert that its question came back; the rest of
 *     those prompts is never echoed because 25.x would parse an echoed "Action:" as a tool call.
 *     A message that is only an arithmetic expression ("2 * 20 + 0.5 * 40 + 3") is answered with
 *     its value ("63"), as a model asked to compute would: MindsDB 26.x's only engines are LLMs,
 *     and this lets its openai engine stand in for a numeric model (scripts/seed-mindsdb.mjs).
 * - POST /v1/embeddings: one vector per input, a bag of words hashed into DIMENSIONS buckets
 *   (signed, L2-normalised), so texts sharing words are close and a similarity search ranks them
 *   sensibly; `dimensions` is honoured; `encoding_format: "base64"` (the openai Python client's
 *   default) gets little-endian float32 as OpenAI sends.
 * Every request is recorded in `calls` as {method, path, body}.
 *
 * `startLlmDouble({ agentQuery })` makes it an LLM that queries: an agent over a knowledge base or
 * table runs `agentQuery` (an SQL text, or a function of the prompt's text that returns one) once,
 * then answers from the rows MindsDB gave it back, as a real model would (the notes of issue 40):
 * - 26.x (pydantic-ai's `final_result` tool): the plan, then `type: "exploratory_query"` with the
 *   query, then, once the prompt holds "Previous exploratory query results", `type: "final_text"`
 *   (sql mode: `type: "final_query"` with the query at once);
 * - 25.x (langchain's ReAct prompt): `Action: kb_query_tool` (`sql_db_query` for an agent without a
 *   knowledge base) with the query, then, once an `Observation:` follows, `AI: …`.
 * The answer is `Answer from the rows: <the first row it was given>`. Without `agentQuery` (the
 * default) it never queries and answers as above.
 */
const http = require('node:http');
const crypto = require('node:crypto');

const DIMENSIONS = 256;
const CHAT_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo'];
const EMBEDDING_MODELS = ['text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002'];
const CREATED = 1700000000;

function modelObject(id) {
  return { id, object: 'model', created: CREATED, owned_by: 'llm-double' };
}

/** The text of one chat message's content (a string or OpenAI's list of parts). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function lastUserLine(messages) {
  const users = (Array.isArray(messages) ? messages : []).filter((m) => m && m.role === 'user');
  const text = users.length ? textOf(users[users.length - 1].content) : '';
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length ? lines[lines.length - 1] : '';
}

function replyText(body) {
  const line = lastUserLine(body.messages);
  const value = arithmetic(line);
  return value === undefined ? `Echo: ${line}` : String(value);
}

/** The value of + - * / and parentheses over decimal numbers; undefined for anything else. */
function arithmetic(text) {
  if (!/^[\d\s.+\-*/()]+$/.test(text) || !/\d/.test(text)) return undefined;
  const tokens = text.match(/\d+(?:\.\d+)?|[-+*/()]/g);
  let i = 0;
  const peek = () => tokens[i];
  const factor = () => {
    const t = tokens[i++];
    if (t === '-') return -factor();
    if (t === '(') {
      const v = sum();
      if (tokens[i++] !== ')') throw new Error('unbalanced');
      return v;
    }
    const v = Number(t);
    if (Number.isNaN(v)) throw new Error('not a number');
    return v;
  };
  const product = () => {
    let v = factor();
    while (peek() === '*' || peek() === '/') v = tokens[i++] === '*' ? v * factor() : v / factor();
    return v;
  };
  const sum = () => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  try {
    const v = sum();
    return i === tokens.length && Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A value that satisfies `schema`. Strings take `answer` (so a structured answer carries the same
 * echo as a plain one), except where the schema narrows them: enum/const, or a description that
 * lists quoted options ('a', 'b', …; MindsDB 26.x's AgentResponse.type is described so), where
 * an option containing "text" wins: the double never wants MindsDB to run SQL for it.
 */
function valueFor(schema, root, answer, depth = 0) {
  if (depth > 20 || schema === true || schema === undefined || schema === null) return answer;
  if (schema.$ref) return valueFor(resolveRef(schema.$ref, root), root, answer, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key]) && schema[key].length) {
      const choice = schema[key].find((s) => s && s.type !== 'null') || schema[key][0];
      return valueFor(choice, root, answer, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    return valueFor(
      Object.assign({}, ...schema.allOf.map((s) => (s?.$ref ? resolveRef(s.$ref, root) : s))),
      root,
      answer,
      depth + 1,
    );
  }
  const type = Array.isArray(schema.type)
    ? schema.type.find((t) => t !== 'null') || 'null'
    : schema.type || (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'object': {
      const out = {};
      const props = schema.properties || {};
      const required = Array.isArray(schema.required) ? schema.required : Object.keys(props);
      for (const name of Object.keys(props)) {
        if (required.includes(name) || schema.additionalProperties === false)
          out[name] = valueFor(props[name], root, answer, depth + 1);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems || 0);
      if (Array.isArray(schema.prefixItems)) return schema.prefixItems.map((s) => valueFor(s, root, answer, depth + 1));
      return Array.from({ length: n }, () => valueFor(schema.items, root, answer, depth + 1));
    }
    case 'integer':
      return clamp(1, schema, true);
    case 'number':
      return clamp(1, schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringFor(schema, answer);
  }
}

function clamp(v, schema, integer) {
  let x = v;
  if (typeof schema.minimum === 'number') x = Math.max(x, schema.minimum);
  if (typeof schema.exclusiveMinimum === 'number') x = Math.max(x, schema.exclusiveMinimum + (integer ? 1 : 0.5));
  if (typeof schema.maximum === 'number') x = Math.min(x, schema.maximum);
  if (typeof schema.exclusiveMaximum === 'number') x = Math.min(x, schema.exclusiveMaximum - (integer ? 1 : 0.5));
  return integer ? Math.ceil(x) : x;
}

function stringFor(schema, answer) {
  const options =
    typeof schema.description === 'string'
      ? [...schema.description.matchAll(/'([A-Za-z0-9_-]+)'/g)].map((m) => m[1])
      : [];
  let s = options.length ? options.find((o) => /text/i.test(o)) || options[0] : answer;
  if (schema.format === 'date-time') s = '2026-01-01T00:00:00Z';
  else if (schema.format === 'date') s = '2026-01-01';
  if (typeof schema.minLength === 'number') s = s.padEnd(schema.minLength, '.');
  if (typeof schema.maxLength === 'number') s = s.slice(0, schema.maxLength);
  return s;
}

function resolveRef(ref, root) {
  if (!ref.startsWith('#/')) return {};
  let at = root;
  for (const part of ref.slice(2).split('/')) at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return at || {};
}

/** The arguments of a call to `tool` (an OpenAI tools[] entry), valid against its schema. */
function argumentsFor(tool, answer) {
  const schema = tool?.function?.parameters || { type: 'object', properties: {} };
  return valueFor(schema, schema, answer);
}

/** The tool to call, or undefined when the request leaves the choice to the model (then: text). */
function toolToCall(body) {
  const tools = Array.isArray(body.tools) ? body.tools.filter((t) => t?.function?.name) : [];
  if (!tools.length) return undefined;
  const choice = body.tool_choice;
  if (choice && typeof choice === 'object') {
    const name = choice.function?.name || choice.name;
    return tools.find((t) => t.function.name === name);
  }
  if (choice !== 'required') return undefined;
  return tools.find((t) => t.function.name === 'final_result') || tools[0];
}

function embedding(text, dims) {
  const v = new Array(dims).fill(0);
  const words =
    String(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) || [];
  for (const w of words) {
    const h = crypto.createHash('sha1').update(w).digest();
    v[h.readUInt32BE(0) % dims] += h[4] & 1 ? 1 : -1;
  }
  if (!words.length) v[0] = 1;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function base64Floats(v) {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => {
    buf.writeFloatLE(x, i * 4);
  });
  return buf.toString('base64');
}

const tokens = (s) => Math.max(1, Math.ceil(String(s).length / 4));

/** The text of every message of a chat request, joined. */
const promptOf = (body) =>
  (Array.isArray(body.messages) ? body.messages : []).map((m) => textOf(m?.content)).join('\n');

/** The first row after the last result MindsDB gave the model (a markdown table on 26.x, CSV on 25.x). */
function firstRowSeen(prompt) {
  const at = Math.max(prompt.lastIndexOf('Result:'), prompt.lastIndexOf('Observation:'));
  const lines = prompt
    .slice(at)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const table = lines.filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l));
  if (table.length > 1) return table[1].replace(/^\|\s*|\s*\|$/g, '').replace(/\s*\|\s*/g, ', ');
  const csv = lines.indexOf(lines.find((l) => /^Result in CSV format/.test(l)) ?? '');
  return csv >= 0 && lines[csv + 2] ? lines[csv + 2] : '(no rows)';
}

/** With an agentQuery, the next step of an agent that queries; undefined where it has nothing to do. */
function agentStep(body, agentQuery) {
  const prompt = promptOf(body);
  const sql = typeof agentQuery === 'function' ? agentQuery(prompt) : agentQuery;
  if (!sql) return undefined;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const finalResult = tools.find((t) => t?.function?.name === 'final_result');
  if (finalResult) {
    const props = finalResult.function.parameters?.properties || {};
    if (props.plan) return { tool: finalResult, args: { plan: `Run: ${sql}`, estimated_steps: 1 } };
    if (!props.sql_query) return undefined;
    if (!props.text)
      return { tool: finalResult, args: { sql_query: sql, short_description: 'the rows', type: 'final_query' } };
    if (/Previous exploratory query results/.test(prompt))
      return {
        tool: finalResult,
        args: {
          sql_query: '',
          text: `Answer from the rows: ${firstRowSeen(prompt)}`,
          short_description: 'answer',
          type: 'final_text',
        },
      };
    return {
      tool: finalResult,
      args: { sql_query: sql, text: '', short_description: 'search', type: 'exploratory_query' },
    };
  }
  if (/Action:/.test(prompt) && /Action Input:/.test(prompt) && /New input:/.test(prompt)) {
    if (/Observation:/.test(prompt.split('New input:').pop()))
      return { content: `Thought: Do I need to use a tool? No\nAI: Answer from the rows: ${firstRowSeen(prompt)}` };
    // 25.x lists kb_query_tool for an agent over a knowledge base; its sql_db_query takes the query between markers.
    const input = /kb_query_tool/.test(prompt)
      ? `kb_query_tool\nAction Input: ${sql};`
      : `sql_db_query\nAction Input: $START$ ${sql}; $STOP$`;
    return { content: `Thought: Do I need to use a tool? Yes\nAction: ${input}` };
  }
  return undefined;
}

function chatCompletion(body, options = {}) {
  const id = `chatcmpl-${crypto.randomBytes(6).toString('hex')}`;
  const model = body.model || 'gpt-4o';
  const step = options.agentQuery ? agentStep(body, options.agentQuery) : undefined;
  const tool = step ? step.tool : toolToCall(body);
  const answer = step?.content ?? replyText(body);
  const n = Math.max(1, Math.min(8, Number(body.n) || 1));
  const promptTokens = tokens(JSON.stringify(body.messages || []));
  const message = tool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${crypto.randomBytes(6).toString('hex')}`,
            type: 'function',
            function: { name: tool.function.name, arguments: JSON.stringify(step?.args ?? argumentsFor(tool, answer)) },
          },
        ],
      }
    : { role: 'assistant', content: answer };
  const completionTokens = tokens(message.content || message.tool_calls[0].function.arguments);
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: Array.from({ length: n }, (_, index) => ({
      index,
      message,
      finish_reason: tool ? 'tool_calls' : 'stop',
      logprobs: null,
    })),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** The same answer as chunks: role first, the content (or tool arguments) in pieces, then the finish. */
function chunksOf(full, includeUsage) {
  const { id, created, model } = full;
  const base = (delta, finish) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const msg = full.choices[0].message;
  const out = [base({ role: 'assistant', content: '' }, null)];
  const pieces = (s) => s.match(/[\s\S]{1,12}/g) || [''];
  if (msg.tool_calls) {
    const call = msg.tool_calls[0];
    out.push(
      base(
        {
          tool_calls: [
            { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        },
        null,
      ),
    );
    for (const p of pieces(call.function.arguments))
      out.push(base({ tool_calls: [{ index: 0, function: { arguments: p } }] }, null));
  } else {
    for (const p of pieces(msg.content)) out.push(base({ content: p }, null));
  }
  out.push(base({}, full.choices[0].finish_reason));
  if (includeUsage) out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: full.usage });
  return out;
}

function startLlmDouble({ port = 0, agentQuery } = {}) {
  const calls = [];
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const path = req.url.split('?')[0].replace(/\/+$/, '');
      calls.push({ method: req.method, path, body });
      const json = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const notFound = (message) =>
        json(404, { error: { message, type: 'invalid_request_error', param: null, code: 'model_not_found' } });
      const bad = (message) =>
        json(400, { error: { message, type: 'invalid_request_error', param: null, code: null } });

      if (req.method === 'GET' && path === '/v1/models') {
        return json(200, { object: 'list', data: [...CHAT_MODELS, ...EMBEDDING_MODELS].map(modelObject) });
      }
      const modelMatch = /^\/v1\/models\/(.+)$/.exec(path);
      if (req.method === 'GET' && modelMatch) {
        const id = decodeURIComponent(modelMatch[1]);
        return [...CHAT_MODELS, ...EMBEDDING_MODELS].includes(id)
          ? json(200, modelObject(id))
          : notFound(`The model '${id}' does not exist`);
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        if (!body || typeof body !== 'object' || !Array.isArray(body.messages))
          return bad("'messages' is a required property");
        const full = chatCompletion(body, { agentQuery });
        if (!body.stream) return json(200, full);
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
        for (const chunk of chunksOf(full, Boolean(body.stream_options?.include_usage)))
          res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
        return undefined;
      }
      if (req.method === 'POST' && path === '/v1/embeddings') {
        if (!body || typeof body !== 'object' || body.input === undefined) return bad("'input' is a required property");
        const inputs =
          Array.isArray(body.input) && !body.input.every((x) => typeof x === 'number') ? body.input : [body.input];
        const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : DIMENSIONS;
        const asText = (x) => (Array.isArray(x) ? x.join(' ') : String(x));
        const data = inputs.map((x, index) => {
          const v = embedding(asText(x), dims);
          return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? base64Floats(v) : v };
        });
        const used = inputs.reduce((s, x) => s + tokens(asText(x)), 0);
        return json(200, {
          object: 'list',
          data,
          model: body.model || 'text-embedding-3-small',
          usage: { prompt_tokens: used, total_tokens: used },
        });
      }
      return json(404, {
        error: {
          message: `Unknown request URL: ${req.method} ${path}`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}/v1`,
        port: actual,
        calls,
        close: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

module.exports = { startLlmDouble, argumentsFor, embedding, DIMENSIONS };
