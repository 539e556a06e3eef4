'use strict';
/**
 * Secrets (session cookie, password, token) live only in Node-RED credentials (Node-RED keeps
 * those out of flow exports itself): none of them may appear in an output msg, an error, a status
 * text or a log line, even when the server echoes the request (headers and body) back in its error.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, flowFor, observeOutcomes } = require('../support/node-cases');
const { helper, allNodes, flowWith } = require('../support/nr');

const SECRETS = {
  session: 'sess-SECRET-cookie-1234',
  username: 'nodered',
  password: 'pw-SECRET-pass-5678',
  token: 'tok-SECRET-bearer-9012',
};

describe('secrets never leak', function () {
  this.timeout(30000);
  let fake;
  beforeEach(async () => {
    fake = await createFakeMindsDB({ auth: { username: SECRETS.username, password: SECRETS.password } }).listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
    delete process.env.MINDSDB_TEST_PASSWORD;
  });

  const echo = (_req, res, entry) => {
    const body = JSON.stringify({
      title: 'Bad Request',
      detail: `you sent ${JSON.stringify(entry.headers)} ${entry.rawBody}`,
    });
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(body);
  };
  /** Everything a flow, a log or the editor could see. */
  const everything = (outputs) =>
    JSON.stringify({
      outputs,
      logs: helper.log().args.map((a) => a[0]),
      status: helper.getNode('n1').status.args,
      errors: helper.getNode('n1').error.args.map((a) => [String(a[0]), a[1]]),
      warns: helper.getNode('n1').warn.args.map((a) => String(a[0])),
    });
  const assertClean = (text) => {
    for (const [k, v] of Object.entries(SECRETS)) if (k !== 'username') assert.ok(!text.includes(v), `${k} leaked`);
    // the session cookie and token the server handed out at login are secrets too
    for (const v of [...fake.state.tokens, ...fake.state.sessions])
      assert.ok(!text.includes(v), `a learned credential leaked: ${v.slice(0, 6)}…`);
  };

  for (const mode of ['login', 'session', 'token']) {
    it(`${mode} mode: no secret in outputs, errors, statuses or logs, even when echoed`, async () => {
      if (mode === 'session') fake.state.sessions.add(SECRETS.session);
      if (mode === 'token') fake.state.tokens.add(SECRETS.token);
      const outputs = [];
      for (const nodeCase of NODE_CASES) {
        if (nodeCase.setup) nodeCase.setup(fake);
        await helper.load(allNodes(), flowFor(nodeCase, { url: fake.url, authMode: mode, retries: 0 }), {
          srv: { ...SECRETS },
        });
        const outcomes = observeOutcomes(helper, { ticks: nodeCase.ticks });
        helper.getNode('out').on('input', (m) => outputs.push(m));
        helper.getNode('caught').on('input', (m) => outputs.push(m));
        helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 0 });
        await outcomes.settled([0]);
        fake.fault(echo, 2); // the server now quotes the request's headers and body back in its error
        helper.getNode('n1').receive({ ...nodeCase.msg(), marker: 1 });
        await outcomes.settled([1]);
        await outcomes.quiesce();
        outcomes.assertEachOnce([0, 1]);
        assert.equal(
          outcomes.records.get(1).errors.length,
          1,
          `${nodeCase.label || nodeCase.type}: the echoed request failed`,
        );
        assertClean(everything(outputs));
        fake.clearFaults();
        await helper.unload();
      }
      assert.ok(
        outputs.some((m) => m.error && /you sent/.test(m.error.message)),
        'the echo reached Catch (redacted)',
      );
      assert.ok(
        outputs.some((m) => !m.error),
        'requests with the credentials succeeded',
      );
    });
  }

  it('${ENV_VAR} credentials work', async () => {
    process.env.MINDSDB_TEST_PASSWORD = SECRETS.password;
    await helper.load(
      allNodes(),
      flowWith({ type: 'mindsdb-sql', ...NODE_CASES[0].def }, { url: fake.url, authMode: 'login' }),
      { srv: { username: SECRETS.username, password: '${MINDSDB_TEST_PASSWORD}' } },
    );
    const outcomes = observeOutcomes(helper);
    helper.getNode('n1').receive({ query: 'SELECT 1', marker: 'env' });
    await outcomes.settled(['env']);
    assert.deepEqual(outcomes.seen.get('env'), ['out']);
    assert.deepEqual(fake.requestsTo('/login')[0].body, { username: SECRETS.username, password: SECRETS.password });
  });
});
