'use strict';
/**
 * The server's health on every node (src/runtime/status/health-ring.ts): MindsDB goes away, every
 * node on that server shows since when on its ring (a Status node receives it), a message that
 * arrives meanwhile fails at once saying so instead of waiting out its timeout, and when MindsDB
 * is back the rings say so and messages go again. The server is the in-process double on a port
 * that refuses until the test starts it.
 */
const assert = require('node:assert/strict');
const { helper, node, catchNode, coreNode } = require('../support/nr');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { portBelowEphemeral } = require('../support/ports');
const { waitFor } = require('../support/wait');

const statusNode = coreNode('common/25-status.js');
const nodes = ['mindsdb-server', 'mindsdb-sql', 'mindsdb-predict'].map(node).concat([catchNode, statusNode]);

function flow(port) {
  return [
    { id: 'f1', type: 'tab', label: 'health' },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: 'local MindsDB',
      url: `http://127.0.0.1:${port}`,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 30000,
      retries: 0,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
    },
    {
      id: 'sql',
      z: 'f1',
      type: 'mindsdb-sql',
      server: 'srv',
      query: '',
      database: '',
      databaseType: 'str',
      outputProperty: 'payload',
      version: 1,
      wires: [['out']],
    },
    {
      id: 'predict',
      z: 'f1',
      type: 'mindsdb-predict',
      server: 'srv',
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      outputProperty: 'payload',
      version: 1,
      wires: [['out']],
    },
    { id: 'out', z: 'f1', type: 'helper' },
    { id: 'catcher', z: 'f1', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', z: 'f1', type: 'helper' },
    { id: 'watch', z: 'f1', type: 'status', scope: ['sql', 'predict'], wires: [['rings']] },
    { id: 'rings', z: 'f1', type: 'helper' },
  ];
}

describe('server health on every node', function () {
  this.timeout(20000);
  let fake;
  afterEach(async () => {
    await helper.unload();
    await fake?.close();
    fake = undefined;
  });

  it('shows on every node since when MindsDB is unreachable, fails messages at once meanwhile, and shows it back', async () => {
    const port = await portBelowEphemeral();
    await helper.load(nodes, flow(port));
    const rings = [];
    helper.getNode('rings').on('input', (m) => rings.push({ node: m.status.source.id, ...m.status }));
    const caught = [];
    helper.getNode('caught').on('input', (m) => caught.push(m));
    const outs = [];
    helper.getNode('out').on('input', (m) => outs.push(m));

    const wentAt = Date.now();
    helper.getNode('sql').receive({ query: 'SELECT 1' });
    await waitFor(() => caught.length === 1, { timeoutMs: 5000, what: 'the refused message at Catch' });
    assert.equal(caught[0].mindsdbError.code, 'ECONNREFUSED', 'the first message met the refused connection itself');
    // The watcher confirms with one probe (~0.5 s later); then both nodes show it, red ring.
    await waitFor(
      () =>
        ['sql', 'predict'].every((id) =>
          rings.some(
            (r) => r.node === id && r.fill === 'red' && /^MindsDB unreachable since \d\d:\d\d:\d\d$/.test(r.text),
          ),
        ),
      { timeoutMs: 5000, what: () => `a red "unreachable since" ring on both nodes (${JSON.stringify(rings)})` },
    );
    assert.ok(
      rings.filter((r) => /MindsDB/.test(r.text)).every((r) => r.shape === 'ring'),
      "the health is a ring (a node's own work is a dot)",
    );

    const t0 = Date.now();
    helper.getNode('predict').receive({ payload: { sqft: 900 } });
    await waitFor(() => caught.length === 2, { timeoutMs: 8000, what: 'the second message at Catch' });
    assert.ok(Date.now() - t0 < 8000, `it failed at once (${Date.now() - t0} ms), not after its 30 s timeout`);
    const second = caught[1];
    assert.equal(second.mindsdbError.code, 'EUNREACHABLE');
    assert.equal(second.mindsdbError.kind, 'network');
    const since = /unreachable since (\S+) \(/.exec(second.error.message);
    assert.ok(since, second.error.message);
    assert.ok(Math.abs(Date.parse(since[1]) - wentAt) < 1000, `since the first failure (${since[1]})`);
    assert.match(second.error.message, /connection refused/);

    fake = await createFakeMindsDB().listen(port);
    await waitFor(
      () =>
        ['sql', 'predict'].every((id) =>
          rings.some((r) => r.node === id && r.fill === 'green' && r.text === `mindsdb-${id}.status.serverUp`),
        ),
      { timeoutMs: 5000, what: () => `a green "reachable" ring on both nodes (${JSON.stringify(rings.slice(-4))})` },
    );
    helper.getNode('sql').receive({ query: 'SELECT 1' });
    await waitFor(() => outs.length === 1, { timeoutMs: 3000, what: 'an answer once MindsDB is back' });
    assert.equal(caught.length, 2);
  });
});
