'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');
const { jobDate, checkSchedule } = require('../../nodes/client');

const nodes = [node('mindsdb-server'), node('mindsdb-job'), catchNode];
const base = {
  type: 'mindsdb-job',
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  query: '',
  schedule: '',
  startAt: '',
  endAt: '',
  ifQuery: '',
};

describe('mindsdb-job node', function () {
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
  const load = (def = {}) => helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url }));
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

  it('creates a job with start_at and end_at always present (null when blank)', async () => {
    await load({ operation: 'create', itemName: 'nightly', query: 'RETRAIN mindsdb.m', schedule: 'every 1 day' });
    const m = await run({});
    assert.equal(m.payload.name, 'nightly');
    assert.deepEqual(fake.requests.at(-1).body, {
      job: { query: 'RETRAIN mindsdb.m', start_at: null, end_at: null, schedule_str: 'every 1 day', name: 'nightly' },
    });
    assert.deepEqual(m.mindsdb, { resource: 'job', operation: 'create', project: 'mindsdb', name: 'nightly' });
  });

  it('fills blank fields from msg.payload; node fields win; dates become what the server parses', async () => {
    await load({ operation: 'create', itemName: 'j', schedule: 'every 2 hours' });
    await run({
      payload: {
        query: 'SELECT 1',
        schedule: 'every 5 minutes',
        start_at: '2026-03-01T08:30',
        end_at: new Date(Date.UTC(2026, 11, 31, 23, 0, 0)),
        if_query: 'SELECT 1',
      },
    });
    assert.deepEqual(fake.requests.at(-1).body.job, {
      query: 'SELECT 1',
      start_at: '2026-03-01 08:30:00',
      end_at: '2026-12-31 23:00:00',
      schedule_str: 'every 2 hours',
      if_query: 'SELECT 1',
      name: 'j',
    });
  });

  it("with the query in the node, msg.payload may be anything (an inject's timestamp)", async () => {
    await load({ operation: 'create', itemName: 'ts', query: 'SELECT 1' });
    await run({ payload: 1763900000000 });
    assert.equal(fake.requests.at(-1).body.job.query, 'SELECT 1');
  });

  it('takes a string msg.payload as the query and runs once without a schedule', async () => {
    await load({ operation: 'create' });
    await run({ name: 'once', payload: 'INSERT INTO files.x (SELECT 1)' });
    assert.deepEqual(fake.requests.at(-1).body.job, {
      query: 'INSERT INTO files.x (SELECT 1)',
      start_at: null,
      end_at: null,
      name: 'once',
    });
  });

  it('lists, gets, reads the history of and deletes a job', async () => {
    await load();
    await run({ operation: 'create', name: 'a', payload: 'SELECT 1' });
    assert.deepEqual(
      (await run({ operation: 'list' })).payload.map((j) => j.name),
      ['a'],
    );
    assert.equal((await run({ operation: 'get', name: 'a' })).payload.query, 'SELECT 1');
    assert.equal((await run({ operation: 'history', name: 'a' })).payload.length, 1);
    assert.equal(fake.requests.at(-1).path, '/api/projects/mindsdb/jobs/a/history');
    assert.deepEqual((await run({ operation: 'delete', name: 'a' })).payload, {
      deleted: true,
      resource: 'job',
      project: 'mindsdb',
      name: 'a',
    });
  });

  for (const [what, def, msg, pattern, sent = false] of [
    [
      "a duplicate job (the server's 500 explained)",
      { operation: 'create' },
      { name: 'dup', payload: 'SELECT 1', twice: true },
      /job "dup" already exists in project "mindsdb"/,
      true,
    ],
    ['deleting a missing job', {}, { operation: 'delete', name: 'ghost' }, /job "ghost" does not exist/, true],
    ['a missing job (404)', {}, { operation: 'get', name: 'ghost' }, /404.*Job not found/, true],
    [
      'a schedule MindsDB would not understand',
      { operation: 'create', schedule: 'daily' },
      { name: 'x', payload: 'SELECT 1' },
      /schedule "daily" is not one MindsDB understands/,
    ],
    [
      'a bad start date',
      { operation: 'create' },
      { name: 'x', payload: { query: 'SELECT 1', start_at: 'tomorrow' } },
      /start must be a date/,
    ],
    ['no query', { operation: 'create' }, { name: 'x' }, /no job query/],
    ['a payload of the wrong type', { operation: 'create' }, { name: 'x', payload: 5 }, /must be the job's query/],
    ['no name', { operation: 'get' }, {}, /no job name/],
    ['a bad operation', {}, { operation: 'update' }, /must be one of create, list, get, history, delete/],
  ]) {
    it(`sends ${what} to Catch with the msg`, async () => {
      await load(def);
      if (msg.twice) await run({ ...msg });
      const before = fake.requests.length;
      const m = await fail({ ...msg, marker: 3 });
      assert.equal(m.marker, 3);
      assert.match(m.error.message, pattern);
      assert.equal(fake.requests.length > before, sent, sent ? 'asked the server' : 'nothing sent');
    });
  }

  it('helpers: schedules and dates', () => {
    assert.equal(checkSchedule('Every  1 Day'), 'every 1 day');
    assert.equal(checkSchedule('every hour'), 'every hour');
    assert.throws(() => checkSchedule('every 1 fortnight'), /not one MindsDB understands/);
    assert.equal(jobDate('2026-01-31', 'start'), '2026-01-31');
    assert.equal(jobDate('now', 'start'), 'now');
    assert.equal(jobDate('2026-01-31T10:00:00+02:00', 'start'), '2026-01-31 08:00:00');
    assert.equal(jobDate(0, 'start'), '1970-01-01 00:00:00');
    assert.equal(jobDate('', 'start'), null);
    assert.throws(() => jobDate({}, 'end'), /end must be a date/);
  });
});
