'use strict';
/**
 * The agent node's memory against a real MindsDB (25.14.1 or 26.1.0, MINDSDB_URL) and the LLM
 * stand-in (test/support/llm-double.js, started here so this test sees what MindsDB sends it): a
 * conversation of five turns whose fifth question reaches the LLM with the four turns before it,
 * a second conversation that carries none of them, msg.reset that empties the first, and a history
 * that survives a restart of the flow. 25.x writes the turns into its prompt ("Previous
 * conversation history"), 26.x sends them as chat messages before the question.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ok, realMindsDB, eachCaseInNodeRed } = require('./outcomes');
const { helper, node, catchNode, flowWith } = require('../support/nr');
const { startLlmDouble } = require('../support/llm-double');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const AGENT = `s33_mem_${Date.now().toString(36).slice(-6)}`;
const nodes = ['mindsdb-server', 'mindsdb-agent'].map(node).concat([catchNode]);
const WORDS = ['apple', 'banana', 'cherry', 'damson', 'elder'];

describe('e2e: an agent conversation with memory, at the LLM stand-in', function () {
  this.timeout(300_000);
  let version = '';
  let llm;
  let dir;

  before(async () => {
    version = await realMindsDB(URL_);
    llm = await startLlmDouble();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-conv-e2e-'));
    console.log(`    MindsDB ${version} at ${URL_}, agent ${AGENT}, LLM stand-in at ${llm.url}`);
  });
  after(async () => {
    await fetch(`${URL_}/api/projects/mindsdb/agents/${AGENT}`, { method: 'DELETE' }).catch(() => undefined);
    if (llm) llm.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => helper.settings({ userDir: dir }));
  afterEach(() => helper.settings({}));
  eachCaseInNodeRed();

  const load = () =>
    helper.load(
      nodes,
      flowWith(
        {
          type: 'mindsdb-agent',
          operation: 'msg',
          project: 'mindsdb',
          projectType: 'str',
          itemName: AGENT,
          itemNameType: 'str',
          streamMode: 'final',
          memory: true,
          conversationKey: 'topic',
          maxTurns: 20,
          idleMinutes: 60,
          historyOut: false,
        },
        { url: URL_, timeout: 120_000 },
      ),
    );
  const ask = (topic, payload) => ok({ operation: 'completions', topic, payload });
  /** The text of every chat request the LLM stand-in got that carries `question`. */
  const callsWith = (question) =>
    llm.calls
      .filter((c) => c.path.endsWith('/chat/completions'))
      .map((c) => JSON.stringify(c.body.messages))
      .filter((t) => t.includes(question));
  /** The request that carries the conversation (the one that has most of it: 26.x plans first, without it). */
  const fullest = (question, words) =>
    callsWith(question)
      .map((t) => ({ t, n: words.filter((w) => t.includes(w)).length }))
      .sort((a, b) => b.n - a.n)[0];

  it('five turns: the fifth question reaches the LLM with the four before it; a second conversation carries none of them', async () => {
    await load();
    // The agent, on the stand-in (the node sends the shape this version takes).
    await ok({
      operation: 'create',
      payload: { model: { provider: 'openai', model_name: 'gpt-4', api_key: 'sk-stand-in', base_url: llm.url } },
    });
    const answers = [];
    for (const [i, word] of WORDS.entries())
      answers.push((await ask('chat-a', `turn ${i + 1}: remember ${word}`)).payload);
    assert.ok(
      answers.every((a) => typeof a === 'string' && a.length > 0),
      JSON.stringify(answers),
    );
    const fifth = fullest('remember elder', WORDS);
    assert.ok(fifth, 'the LLM got the fifth question');
    for (const word of WORDS.slice(0, 4))
      assert.ok(
        fifth.t.includes(`remember ${word}`),
        `the fifth request carries turn "${word}": ${fifth.t.slice(0, 400)}`,
      );
    // and the answers to them, as MindsDB gave them
    for (const a of answers.slice(0, 4))
      assert.ok(
        fifth.t.includes(JSON.stringify(a).slice(1, -1)),
        `the fifth request carries the answer ${JSON.stringify(a)}`,
      );
    console.log(
      `      MindsDB ${version}: the fifth request holds the four turns before it (${fifth.t.length} characters)`,
    );

    await ask('chat-b', 'another chat: remember fig');
    const other = fullest('remember fig', WORDS);
    assert.equal(other.n, 0, `a second conversation carries none of the first: ${other.t.slice(0, 400)}`);
  });

  it('msg.reset empties one conversation; the other keeps its turns, also across a restart of the flow', async () => {
    await load();
    helper.getNode('n1').receive({ topic: 'chat-a', reset: true });
    await ask('chat-a', 'after the reset: remember grape');
    const afterReset = fullest('remember grape', WORDS);
    assert.equal(afterReset.n, 0, `after msg.reset the conversation is empty: ${afterReset.t.slice(0, 400)}`);
    // Restart: the same user directory, a new flow.
    await helper.unload();
    await load();
    await ask('chat-b', 'after a restart: remember hazel');
    const restarted = fullest('remember hazel', ['remember fig']);
    assert.equal(restarted.n, 1, `chat-b's first turn survived the restart: ${restarted.t.slice(0, 400)}`);
  });
});
