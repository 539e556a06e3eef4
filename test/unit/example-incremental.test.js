'use strict';
/**
 * examples/incremental-report.json and examples/agent-chat-memory.json as shipped, against the
 * test stand-in: the report appends each reading once, in order, across runs and a restart, and
 * "start over" reports them all again; the chat keeps Alice's and Bob's conversations apart and
 * "forget alice" empties hers.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { selectFrom } = require('../support/sql-table');
const { helper, node, coreNode, catchNode, userDirEachCase } = require('../support/nr');
const { waitFor, holdsFor } = require('../support/wait');

const ROOT = path.join(__dirname, '..', '..');
const example = (name, map) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', `${name}.json`), 'utf8')).map(map);
const CORE = [
  'common/20-inject.js',
  'common/21-debug.js',
  'common/90-comment.js',
  'storage/10-file.js',
  'parsers/70-CSV.js',
  'function/15-change.js',
  'function/10-switch.js',
].map(coreNode);

describe('examples: incremental report, chat that remembers', function () {
  this.timeout(20000);
  let fake;
  beforeEach(async () => {
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });
  const userDir = userDirEachCase('mindsdb-example-');

  it('the hourly report appends each new reading once, in order, across runs and a restart; "start over" reports them all again', async () => {
    fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
    const readings = [];
    fake.state.sql = selectFrom({ 'iot_pg.iot_readings': readings }, ['sensor', 'read_at', 'temperature', 'humidity']);
    const add = (n) => {
      for (let i = 0; i < n; i++) {
        const k = readings.length;
        readings.push({
          sensor: `s${k % 3}`,
          read_at: `2026-01-01T00:${String(Math.floor(k / 3)).padStart(2, '0')}:00.000Z`,
          temperature: k,
          humidity: 40,
        });
      }
    };
    const file = path.join(userDir.dir, 'report.csv');
    const flow = example('incremental-report', (n) => {
      if (n.type === 'mindsdb-server') return { ...n, url: fake.url };
      if (n.type === 'file') return { ...n, filename: file };
      if (n.type === 'mindsdb-sql') return { ...n, rowsPerMsg: 4 }; // several parts per run
      return n;
    });
    const types = [node('mindsdb-server'), node('mindsdb-sql'), catchNode, ...CORE];
    const temperatures = () =>
      fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => Number(l.split(',')[2]))
        : [];
    const errors = [];
    const start = async () => {
      await helper.load(types, flow);
      helper.getNode('incr-catch').on('input', (m) => errors.push(m.error.message));
    };
    const report = async (expected) => {
      helper.getNode('incr-now').receive({});
      await waitFor(() => errors.length || temperatures().length === expected, {
        timeoutMs: 10000,
        what: () => `${expected} lines (${temperatures().length}; ${errors})`,
      });
      await holdsFor(() => temperatures().length === expected, { forMs: 100, what: 'no more lines' });
    };

    add(10);
    await start();
    await report(10);
    await report(10); // nothing new: nothing written
    add(5);
    await report(15);
    await helper.unload();
    add(2);
    await start(); // a restart: the position is on disk
    await report(17);
    assert.deepEqual(
      temperatures(),
      Array.from({ length: 17 }, (_, i) => i),
      'every reading once, in (read_at, sensor) order',
    );
    // The status spy is shared by every node of the helper: this node's own calls.
    const sqlNode = helper.getNode('incr-sql');
    const shown = () =>
      sqlNode.status
        .getCalls()
        .filter((c) => c.thisValue === sqlNode)
        .map((c) => c.args[0].text)
        .at(-1);
    await waitFor(() => shown() === '2 new rows, after 2026-01-01T00:05:00.000Z / s1', {
      timeoutMs: 2000,
      what: () => `the status (${shown()})`,
    });
    helper.getNode('incr-reset').receive({ reset: true });
    await report(34);
    assert.deepEqual(errors, []);
  });

  it('the chat keeps each person\'s conversation apart, and "forget alice" empties hers', async () => {
    fake = await createFakeMindsDB().listen();
    const flow = example('agent-chat-memory', (n) => (n.type === 'mindsdb-server' ? { ...n, url: fake.url } : n));
    await helper.load([node('mindsdb-server'), node('mindsdb-agent'), catchNode, ...CORE], flow);
    const errors = [];
    helper.getNode('chatm-catch').on('input', (m) => errors.push(m.error.message));
    const answers = [];
    helper.getNode('chatm-ask').on('input', () => undefined);
    helper.getNode('chatm-debug-answer').on('input', (m) => answers.push(m));
    const click = async (id) => {
      const before = answers.length;
      helper.getNode(id).receive({});
      await waitFor(() => errors.length || answers.length === before + 1, {
        timeoutMs: 5000,
        what: () => `an answer to ${id} (${errors})`,
      });
    };
    helper.getNode('chatm-setup').receive({});
    await waitFor(() => fake.state.agents.size === 1 || errors.length, { what: () => `the agent created (${errors})` });
    await click('chatm-alice-1');
    await click('chatm-alice-2');
    await click('chatm-bob-1');
    helper.getNode('chatm-forget').receive({});
    await holdsFor(() => answers.length === 3, { forMs: 100, what: 'the reset sends nothing' });
    await click('chatm-alice-2');
    const sent = fake.requests
      .filter((r) => r.path.endsWith('/completions'))
      .map((r) => r.body.messages.map((m) => m.question));
    assert.deepEqual(sent, [
      ['Hello, my name is Alice and I look after greenhouse 3.'],
      ['Hello, my name is Alice and I look after greenhouse 3.', 'Which greenhouse do I look after?'],
      ['Which greenhouse do I look after?'],
      ['Which greenhouse do I look after?'],
    ]);
    assert.deepEqual(errors, []);
  });
});
