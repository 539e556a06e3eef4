'use strict';
/** Names stay inside their path segment through every node; SQL values are never spliced. */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, observeOutcomes } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

const NAMES = ['a/b', '..', '%2e%2e', 'q?x=1', 'h#frag', 'with space', '../../etc'];
const byType = (t) => NODE_CASES.find((c) => c.type === t);

describe('injection and addressing through the nodes', function () {
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

  const cases = [
    [
      'mindsdb-predict model',
      'mindsdb-predict',
      (name) => ({ model: name, payload: { sqft: 1 } }),
      { model: '' },
      '/api/projects/mindsdb/models/',
    ],
    [
      'mindsdb-predict project',
      'mindsdb-predict',
      (name) => ({ project: name, payload: { sqft: 1 } }),
      { project: '' },
      '/api/projects/',
    ],
    ['mindsdb-database name', 'mindsdb-database', (name) => ({ operation: 'get', name }), {}, '/api/databases/'],
    [
      'mindsdb-chatbot name',
      'mindsdb-chatbot',
      (name) => ({ operation: 'get', name }),
      {},
      '/api/projects/mindsdb/chatbots/',
    ],
    [
      'mindsdb-skill name',
      'mindsdb-skill',
      (name) => ({ operation: 'delete', name }),
      {},
      '/api/projects/mindsdb/skills/',
    ],
    [
      'mindsdb-agent name',
      'mindsdb-agent',
      (name) => ({ operation: 'get', name }),
      {},
      '/api/projects/mindsdb/agents/',
    ],
    ['mindsdb-file name', 'mindsdb-file', (name) => ({ operation: 'delete', name }), {}, '/api/files/'],
    [
      'mindsdb-model name',
      'mindsdb-model',
      (name) => ({ operation: 'get', model: name }),
      {},
      '/api/projects/mindsdb/models/',
    ],
    [
      'mindsdb-knowledge-base name',
      'mindsdb-knowledge-base',
      (name) => ({ operation: 'get', name }),
      {},
      '/api/projects/mindsdb/knowledge_bases/',
    ],
    ['mindsdb-job name', 'mindsdb-job', (name) => ({ operation: 'get', name }), {}, '/api/projects/mindsdb/jobs/'],
    [
      'mindsdb-job project',
      'mindsdb-job',
      (name) => ({ operation: 'list', project: name }),
      { project: '' },
      '/api/projects/',
    ],
  ];
  for (const [what, type, msgFor, defOverride, prefix] of cases) {
    it(`${what}: /, .., %2e%2e, ?, # and spaces stay inside one segment`, async () => {
      await helper.load(
        allNodes(),
        flowWith({ type, ...byType(type).def, ...defOverride }, { url: fake.url, retries: 0 }),
      );
      const outcomes = observeOutcomes(helper);
      NAMES.forEach((name, i) => {
        helper.getNode('n1').receive({ ...msgFor(name), marker: i });
      });
      await outcomes.settled(NAMES.length);
      // A miss is followed by a listing (to find a name stored in another case): not a request by name.
      const paths = fake.requests
        .filter((r) => !(r.method === 'GET' && /^\/api\/files\/$|\/models$/.test(r.path)))
        .map((r) => r.path)
        .filter((p) => p.startsWith(prefix));
      assert.equal(paths.length, NAMES.length);
      for (const name of NAMES) {
        const segment = paths
          .map((p) => p.slice(prefix.length).split('/')[0])
          .find((s) => decodeURIComponent(s) === name);
        assert.ok(segment !== undefined, `${name} was not sent as one segment: ${paths.join(' ')}`);
        assert.ok(!/[/?#]/.test(segment) && segment !== '..', `${name} → ${segment}`);
      }
    });
  }

  it('knowledge-base search text is bound by the server, never spliced into the query text', async () => {
    await helper.load(
      allNodes(),
      flowWith({ type: 'mindsdb-knowledge-base', ...byType('mindsdb-knowledge-base').def }, { url: fake.url }),
    );
    const outcomes = observeOutcomes(helper);
    const evil = '1\'; DROP TABLE users; --"';
    helper.getNode('n1').receive({ operation: 'search', name: 'kb', payload: evil, marker: 0 });
    await outcomes.settled(1);
    const r = fake.requestsTo('/sql/query').at(-1);
    assert.ok(!r.body.query.includes(evil), r.body.query);
    assert.equal(r.body.params.q, evil);
  });

  it('SQL parameters never reach the server spliced into the query text', async () => {
    await helper.load(allNodes(), flowWith({ type: 'mindsdb-sql', ...byType('mindsdb-sql').def }, { url: fake.url }));
    const outcomes = observeOutcomes(helper);
    const evil = '1; DROP TABLE users; --\'"';
    helper.getNode('n1').receive({ query: 'SELECT :v AS v', params: { v: evil }, marker: 0 });
    helper.getNode('n1').receive({ query: 'SELECT ? AS v', params: [evil], marker: 1 });
    await outcomes.settled(2);
    for (const r of fake.requestsTo('/sql/query')) {
      assert.ok(!r.body.query.includes(evil), r.body.query);
      assert.ok(Object.values(r.body.params).includes(evil));
    }
  });
});
