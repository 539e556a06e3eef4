'use strict';
/**
 * The server's health watcher (src/client/connection/health.ts), on its own with a probe the test
 * answers, and inside a real client against the in-process double: a server that refuses, is
 * confirmed down by one probe, fails the next request at once with the time it went away, and is
 * found again by a probe on back-off once it listens again.
 */
const assert = require('node:assert/strict');
const { ServerHealth, MindsDBClient, MindsDBError } = require('../../nodes/client');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { portBelowEphemeral } = require('../support/ports');
const { waitFor, holdsFor } = require('../support/wait');

/** The client's sql, awaited (it answers through a callback). */
const sqlOf = (client, query) =>
  new Promise((resolve, reject) => {
    client.sql({ query }, undefined, (err, answer) => (err ? reject(err) : resolve(answer)));
  });
const refused = () =>
  new MindsDBError('cannot reach the MindsDB server for GET /api/x: connection refused', {
    kind: 'network',
    code: 'ECONNREFUSED',
  });

/** A probe whose answers the test gives: each call is recorded with its time and waits for `answer`. */
function scriptedProbe() {
  const calls = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const probe = () =>
    new Promise((resolve, reject) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const call = { at: Date.now() };
      call.answer = (status) => {
        inFlight--;
        call.endedAt = Date.now();
        resolve(status);
      };
      call.fail = (err) => {
        inFlight--;
        call.endedAt = Date.now();
        reject(err);
      };
      calls.push(call);
    });
  return {
    probe,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

describe('server health watcher', () => {
  const settings = { firstBackoffMs: 40, maxBackoffMs: 160, idleMs: 300, probeTimeoutMs: 1000 };
  let health;
  afterEach(() => health?.close());

  it('confirms a failure with one probe (never two at a time), then probes on a growing back-off, and says since when', async () => {
    const p = scriptedProbe();
    // Back-off steps large enough that a loaded CI machine's late timers (hundreds of ms) cannot
    // blur them: the uncapped fourth step (1,600 ms) stays well above the bound that proves the cap.
    const slow = { ...settings, firstBackoffMs: 200, maxBackoffMs: 800 };
    health = new ServerHealth(p.probe, slow);
    const views = [];
    health.watch((v) => views.push(v));
    const failedAt = Date.now();
    health.failed(refused());
    health.failed(refused());
    health.failed(refused());
    assert.equal(health.view.state, 'unknown', 'not down before a probe confirms it');
    assert.equal(health.refusal('GET', '/api/x'), undefined, 'requests still go meanwhile');
    await waitFor(() => p.calls.length === 1, { timeoutMs: 3000, what: 'the probe that confirms' });
    assert.ok(
      p.calls[0].at - failedAt >= 195,
      `confirmed firstBackoffMs after the failure (${p.calls[0].at - failedAt} ms)`,
    );
    await holdsFor(() => p.calls.length === 1, { forMs: 100, what: 'one probe for three failures' });
    p.calls[0].fail(refused());
    await waitFor(() => health.view.state === 'unreachable', { timeoutMs: 1000, what: 'unreachable' });
    assert.ok(health.view.since >= failedAt && health.view.since <= p.calls[0].at + 5, 'since the first failure');
    assert.equal(health.view.cause, 'connection refused');
    // Back-off: the next probes come after ~200, ~400, ~800, ~800 ms (±20 %), each only after the
    // one before ended. A late timer only lengthens a gap: the upper bound leaves 250 ms for that, and stays below
    // the shortest uncapped fourth gap (1,600 ms - 20 % = 1,280 ms), so it still proves the cap.
    for (let i = 1; i <= 4; i++) {
      await waitFor(() => p.calls.length > i, { timeoutMs: 4000, what: `probe ${i + 1}` });
      p.calls[i].fail(refused());
    }
    const gaps = p.calls.slice(1, 5).map((c, i) => c.at - p.calls[i].endedAt);
    const want = [200, 400, 800, 800];
    for (const [i, g] of gaps.entries()) {
      assert.ok(g >= want[i] * 0.8 - 5 && g <= want[i] * 1.2 + 250, `gap ${i + 1}: ${g} ms, about ${want[i]}`);
    }
    assert.equal(p.maxInFlight, 1, 'never more than one probe in flight');
    const refusal = health.refusal('POST', '/api/sql/query');
    assert.ok(refusal instanceof MindsDBError);
    assert.equal(refusal.kind, 'network');
    assert.equal(refusal.code, 'EUNREACHABLE');
    assert.match(
      refusal.message,
      new RegExp(
        `unreachable since ${new Date(health.view.since).toISOString().replace(/[.]/g, '\\.')} \\(connection refused\\): POST /api/sql/query was not sent`,
      ),
    );
    await waitFor(() => p.calls.length === 6, { timeoutMs: 4000, what: 'probe 6' });
    p.calls[5].answer(200);
    await waitFor(() => health.view.state === 'reachable', { timeoutMs: 1000, what: 'reachable again' });
    assert.deepEqual(
      views.map((v) => v.state),
      ['unknown', 'unreachable', 'reachable'],
    );
    assert.equal(health.refusal('GET', '/api/x'), undefined);
  });

  it('sends no probe while answers come, and one once they stop for idleMs', async () => {
    const p = scriptedProbe();
    health = new ServerHealth(p.probe, settings);
    health.watch(() => undefined);
    // answers every 50 ms for 900 ms (three idle periods): no probe
    await holdsFor(
      () => {
        health.answered(200);
        return p.calls.length === 0;
      },
      { forMs: 900, intervalMs: 50, what: 'no probe while answers come' },
    );
    await waitFor(() => p.calls.length === 1, { timeoutMs: 1000, what: 'the idle probe' });
    p.calls[0].answer(503);
    await waitFor(() => health.view.state === 'busy', { timeoutMs: 500, what: 'busy (readiness 503)' });
    assert.equal(health.refusal('GET', '/api/x'), undefined, 'busy is not down: requests go');
  });

  it('without watchers, probes only to confirm and recover from a failure', async () => {
    const p = scriptedProbe();
    health = new ServerHealth(p.probe, settings);
    await holdsFor(() => p.calls.length === 0, {
      forMs: 400,
      what: 'no idle probe while nobody watches and nothing failed',
    });
    health.answered(429);
    assert.equal(health.view.state, 'busy');
    health.answered(200);
    assert.equal(health.view.state, 'reachable');
    health.failed(refused());
    health.answered(200);
    await holdsFor(() => p.calls.length === 0, { forMs: 150, what: 'no probe: an answer came after the failure' });
    health.answered(502);
    assert.equal(health.view.state, 'reachable', "a gateway's 502 is not the server's answer");
    assert.equal(p.calls.length, 0);
  });

  it('behind a gateway that answers 502, the idle probe finds the server gone', async () => {
    const p = scriptedProbe();
    health = new ServerHealth(p.probe, settings);
    health.watch(() => undefined);
    health.answered(200);
    health.answered(502);
    await waitFor(() => p.calls.length === 1, { timeoutMs: 1000, what: 'the idle probe' });
    p.calls[0].answer(502);
    await waitFor(() => health.view.state === 'unreachable', {
      timeoutMs: 500,
      what: 'unreachable behind the gateway',
    });
    assert.match(health.view.cause, /gateway answered HTTP 502/);
  });

  it('inside a client: a refused server is confirmed down, later messages fail at once saying since when, and it is found again', async function () {
    this.timeout(20000);
    const port = await portBelowEphemeral();
    const client = new MindsDBClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retries: 0,
      timeoutMs: 5000,
      health: { firstBackoffMs: 100, maxBackoffMs: 200 },
    });
    let fake;
    try {
      await assert.rejects(sqlOf(client, 'SELECT 1'), (e) => e.code === 'ECONNREFUSED');
      await waitFor(() => client.health.view.state === 'unreachable', { timeoutMs: 3000, what: 'unreachable' });
      const t0 = Date.now();
      await assert.rejects(
        sqlOf(client, 'SELECT 1'),
        (e) => e.code === 'EUNREACHABLE' && /unreachable since .*connection refused/.test(e.message),
      );
      await assert.rejects(client.request('GET', '/projects'), (e) => e.code === 'EUNREACHABLE');
      // EUNREACHABLE (not ECONNREFUSED) says no connection was tried; the bound only keeps it prompt on a loaded
      // machine.
      assert.ok(Date.now() - t0 < 2000, 'failed at once, not after a connection attempt');
      fake = await createFakeMindsDB().listen(port);
      await waitFor(() => client.health.view.state === 'reachable', { timeoutMs: 3000, what: 'reachable again' });
      const probes = fake.state.requests.filter((r) => r.path === '/api/util/readiness');
      assert.ok(probes.length >= 1 && probes.length <= 2, `${probes.length} probes found it`);
      assert.equal(probes[0].headers.authorization, undefined, 'the probe carries no credentials');
      const answer = await sqlOf(client, 'SELECT 1');
      assert.equal(answer.type, 'table');
    } finally {
      await client.close();
      await fake?.close();
    }
  });
});
