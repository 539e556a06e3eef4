'use strict';
/**
 * The agent node's conversations (issue 33, part 2) against the test stand-in, on both MindsDB
 * lines' answer shapes: with memory on, each conversation's earlier turns go with its next
 * question as {question, answer} messages (what both lines read as history: docs/real-mindsdb.md);
 * a turn limit, an idle expiry, msg.reset forgets one conversation; the turns are kept in the
 * package's store (a restart forgets nothing), never put on a msg that leaves the node unless the
 * node is told to, and never into a log.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, completeNode, flowWith, nextMessage, userDirEachCase } = require('../support/nr');
const { leaseStore } = require('../../nodes/store');
const { waitFor } = require('../support/wait');

const nodes = ['mindsdb-server', 'mindsdb-agent'].map(node).concat([catchNode, completeNode]);
const AGENT = {
  type: 'mindsdb-agent',
  operation: 'completions',
  project: 'mindsdb',
  projectType: 'str',
  itemName: 'a1',
  itemNameType: 'str',
  streamMode: 'final',
  memory: true,
  conversationKey: 'topic',
  maxTurns: 20,
  idleMinutes: 60,
  historyOut: false,
};

for (const version of ['25.14.1', '26.1.0']) {
  describe(`agent memory: conversations kept per msg.topic (MindsDB ${version})`, function () {
    let fake;
    beforeEach(async () => {
      fake = await createFakeMindsDB({ version }).listen();
      fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb' });
      await new Promise((r) => helper.startServer(r));
    });
    afterEach(async () => {
      await helper.unload();
      await new Promise((r) => helper.stopServer(r));
      await fake.close();
    });
    const userDir = userDirEachCase('mindsdb-conv-');
    const load = (def = {}) => helper.load(nodes, flowWith({ ...AGENT, ...def }, { url: fake.url }));
    const ask = async (topic, payload, extra = {}) => {
      const got = nextMessage('out');
      helper.getNode('n1').receive({ topic, payload, ...extra });
      return got;
    };
    /** The messages array of each completion request, in order. */
    const sent = () => fake.requests.filter((r) => r.path.includes('/completions')).map((r) => r.body.messages);
    const turns = (...qs) => qs.map((q) => ({ question: q, answer: `answer to: ${q}` }));

    it('five turns: the fifth question carries the four before it; another conversation carries only its own', async () => {
      await load();
      for (let i = 1; i <= 5; i++) assert.equal((await ask('chat-a', `q${i}`)).payload, `answer to: q${i}`);
      await ask('chat-b', 'other');
      const all = sent();
      assert.deepEqual(all[4], [...turns('q1', 'q2', 'q3', 'q4'), { question: 'q5', answer: null }]);
      assert.deepEqual(all[0], [{ question: 'q1', answer: null }]);
      assert.deepEqual(all[5], [{ question: 'other', answer: null }]);
    });

    it('msg.reset forgets one conversation (a control message: no request, no output), the others stay', async () => {
      await load();
      await ask('chat-a', 'a1');
      await ask('chat-b', 'b1');
      const before = fake.requests.length;
      const done = nextMessage('completed');
      helper.getNode('n1').receive({ topic: 'chat-a', reset: true });
      await done;
      assert.equal(fake.requests.length, before, 'the reset made no request');
      await ask('chat-a', 'a2');
      await ask('chat-b', 'b2');
      assert.deepEqual(sent().slice(-2), [
        [{ question: 'a2', answer: null }],
        [...turns('b1'), { question: 'b2', answer: null }],
      ]);
    });

    it('the history survives a restart (it is in the store, not in memory)', async () => {
      await load();
      await ask('chat-a', 'before');
      await helper.unload();
      await load();
      await ask('chat-a', 'after');
      assert.deepEqual(sent().at(-1), [...turns('before'), { question: 'after', answer: null }]);
    });

    it('keeps the last "Turns kept" turns of a conversation', async () => {
      await load({ maxTurns: 2 });
      for (const q of ['q1', 'q2', 'q3', 'q4']) await ask('c', q);
      assert.deepEqual(sent().at(-1), [...turns('q2', 'q3'), { question: 'q4', answer: null }]);
    });

    it('forgets a conversation idle longer than "Forget after"', async () => {
      await load({ idleMinutes: 1 });
      await ask('c', 'old');
      await ask('d', 'recent');
      // The turn of "c" was two minutes ago.
      const lease = leaseStore(path.join(userDir.dir, 'node-red-mindsdb.sqlite'));
      lease.store.statement("UPDATE agent_turn SET at = at - 120000 WHERE conversation = 'c'").run();
      lease.release();
      await ask('c', 'new');
      await ask('d', 'again');
      assert.deepEqual(sent().slice(-2), [
        [{ question: 'new', answer: null }],
        [...turns('recent'), { question: 'again', answer: null }],
      ]);
    });

    it('questions of one conversation take turns: the second waits for the first answer and carries it', async () => {
      await load();
      const outs = [];
      helper.getNode('out').on('input', (m) => outs.push(m));
      helper.getNode('n1').receive({ topic: 'c', payload: 'first' });
      helper.getNode('n1').receive({ topic: 'c', payload: 'second' });
      await waitFor(() => outs.length === 2, { what: () => `two answers (${outs.length})` });
      assert.deepEqual(sent(), [
        [{ question: 'first', answer: null }],
        [...turns('first'), { question: 'second', answer: null }],
      ]);
    });

    it('the history never leaves the node unless asked, and never goes into a log', async () => {
      await load({ streamMode: 'chunks' });
      const n1 = helper.getNode('n1');
      const outs = [];
      helper.getNode('out').on('input', (m) => outs.push(m));
      /** Asks, and resolves with the last part (the answer) once the whole sequence is out. */
      const askAll = async (q) => {
        const from = outs.length;
        n1.receive({ topic: 'c', payload: q });
        await waitFor(() => outs.slice(from).some((m) => m.complete), { what: `the answer to ${q}` });
        return outs.slice(from).find((m) => m.complete);
      };
      await askAll('SECRET-EARLIER-QUESTION');
      outs.length = 0;
      const last = await askAll('now');
      assert.equal(last.payload, 'answer to: now');
      for (const m of outs)
        assert.ok(!JSON.stringify(m).includes('SECRET-EARLIER'), `an output carried the history: ${JSON.stringify(m)}`);
      assert.equal(last.mindsdb.conversation, undefined);
      // A failure of a later question: its error says nothing of the history either.
      fake.state.completionsFail = true;
      fake.fault((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"title":"Internal","detail":"boom"}');
      });
      const caught = nextMessage('caught');
      n1.receive({ topic: 'c', payload: 'fails' });
      const err = await caught;
      assert.ok(!JSON.stringify(err).includes('SECRET-EARLIER'), JSON.stringify(err));
      // What the node said (its log methods are spies) and what Node-RED's log got.
      const said = ['log', 'warn', 'error', 'debug', 'trace'].flatMap((level) =>
        (n1[level].args || []).map((a) => JSON.stringify(a)),
      );
      const nodeRedLog = helper.log().args.map((a) => JSON.stringify(a));
      assert.ok(said.length + nodeRedLog.length > 0, 'the logs were watched');
      assert.ok(
        ![...said, ...nodeRedLog].some((l) => l.includes('SECRET-EARLIER')),
        'nothing logged carries the history',
      );
    });

    it('with "Add the conversation" ticked, msg.mindsdb.conversation has the turns so far', async () => {
      await load({ historyOut: true });
      await ask('c', 'q1');
      const m = await ask('c', 'q2');
      assert.deepEqual(m.mindsdb.conversation, { key: 'c', turns: turns('q1', 'q2') });
    });

    it('the conversation can be named by another property', async () => {
      await load({ conversationKey: 'chat.id' });
      await ask(undefined, 'x1', { chat: { id: 42 } });
      await ask(undefined, 'x2', { chat: { id: 42 } });
      assert.deepEqual(sent().at(-1), [...turns('x1'), { question: 'x2', answer: null }]);
    });

    const bad = [
      ['a message without its conversation', { payload: 'q' }, /memory is on: msg\.topic must name the conversation/],
      [
        "a conversation of the flow's own (an array) while the node keeps it",
        { topic: 'c', payload: [{ question: 'q' }] },
        /memory is on: msg\.payload must be the question as text/,
      ],
      ['a msg.reset without its conversation', { reset: true }, /memory is on: msg\.topic must name the conversation/],
    ];
    for (const [what, msg, pattern] of bad) {
      it(`refuses ${what} with an error at Catch`, async () => {
        await load();
        const caught = nextMessage('caught');
        helper.getNode('n1').receive(msg);
        assert.match((await caught).error.message, pattern);
      });
    }

    it('an answer stopped by msg.reset is not kept: the next question of that conversation starts afresh', async () => {
      await load();
      await ask('c', 'kept?');
      // The next answer is slow: the reset comes first.
      let release;
      fake.fault(
        () =>
          new Promise((resolve) => {
            release = () => resolve(false);
          }),
      ); // held until the reset was taken
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ topic: 'c', payload: 'slow' });
      await waitFor(() => release !== undefined, { what: 'the slow question at the server' });
      helper.getNode('n1').receive({ topic: 'c', reset: true });
      release();
      const err = await caught;
      assert.equal(err.mindsdbError.kind, 'reset');
      assert.match(err.error.message, /forgot its conversation/);
      await ask('c', 'fresh');
      assert.deepEqual(sent().at(-1), [{ question: 'fresh', answer: null }]);
    });

    it('when the store cannot keep the turn, the answer is not sent (nothing leaves that was not kept)', async () => {
      await load();
      await ask('c', 'q1');
      const lease = leaseStore(path.join(userDir.dir, 'node-red-mindsdb.sqlite'));
      lease.store.statement('PRAGMA query_only = ON').get();
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ topic: 'c', payload: 'q2' });
      assert.match((await caught).error.message, /could not keep a conversation turn: .*readonly/);
      lease.store.statement('PRAGMA query_only = OFF').get();
      lease.release();
      await ask('c', 'q3');
      assert.deepEqual(sent().at(-1), [...turns('q1'), { question: 'q3', answer: null }]);
    });
  });
}
