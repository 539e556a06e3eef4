'use strict';
/** Retries only where safe, the bounded queue, and the response-size limit, counted at the server. */
const assert = require('node:assert/strict');
const { fakeClient, sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { waitFor } = require('../support/wait');
const { portBelowEphemeral } = require('../support/ports');

describe('client under faults', function () {
  const t = fakeClient({ retries: 2, retryBaseDelayMs: 5, timeoutMs: 5000 });

  it('retries a GET on 503 up to `retries` times, then succeeds', async () => {
    t.make();
    t.fake.fault(FAULTS['HTTP 503'], 2);
    assert.deepEqual(await t.client.request('GET', '/projects/'), [{ name: 'mindsdb' }]);
    assert.equal(t.fake.requests.length, 3);
  });

  it('gives up after `retries` extra attempts', async () => {
    t.make();
    t.fake.fault(FAULTS['HTTP 502'], 5);
    await assert.rejects(t.client.request('GET', '/projects/'), (e) => e.status === 502);
    assert.equal(t.fake.requests.length, 3);
  });

  it('never repeats a POST that may have reached the server (502, reset)', async () => {
    t.make();
    t.fake.fault(FAULTS['HTTP 502'], 5);
    await assert.rejects(sql(t.client, { query: 'SELECT 1' }), (e) => e.status === 502);
    assert.equal(t.fake.requests.length, 1);
    t.fake.clearFaults();
    t.fake.fault(FAULTS['reset mid-body'], 5);
    await assert.rejects(sql(t.client, { query: 'SELECT 1' }));
    assert.equal(t.fake.requests.length, 2);
  });

  it('repeats even a POST that the server refused without doing it (503), up to `retries` times', async () => {
    t.make();
    t.fake.fault(FAULTS['HTTP 503'], 5);
    await assert.rejects(sql(t.client, { query: 'SELECT 1' }), (e) => e.status === 503);
    assert.equal(t.fake.requests.length, 3);
  });

  it('repeats a POST when the user opts in (retryPost)', async () => {
    t.make({ retryPost: true });
    t.fake.fault(FAULTS['HTTP 503'], 1);
    assert.equal((await sql(t.client, { query: 'SELECT 1' })).type, 'table');
    assert.equal(t.fake.requests.length, 2);
  });

  it('repeats even a POST when the connection was refused (nothing was sent)', async () => {
    await t.fake.close(); // this test's server comes later, on a port nothing listens on yet
    const port = await portBelowEphemeral();
    // Six retries: the back-off has full jitter, and three could all fall within the 60 ms before the server is back.
    t.make({ baseUrl: `http://127.0.0.1:${port}`, retries: 6, retryBaseDelayMs: 150 });
    const pending = sql(t.client, { query: 'SELECT 1' });
    let back;
    setTimeout(() => {
      t.fake = createFakeMindsDB();
      back = t.fake.listen(port);
    }, 60); // fault: the server comes after the first attempts were refused
    assert.equal((await pending).type, 'table');
    await back;
    // The query reached the server once; a health probe after the refusals may have come too (a GET, not counted).
    const queries = t.fake.requests.filter((r) => r.method === 'POST');
    assert.equal(queries.length, 1, JSON.stringify(t.fake.requests.map((r) => `${r.method} ${r.path}`)));
  });

  it('times out a stalled request per the timeout, or msg-level timeoutMs', async () => {
    t.make({ retries: 0 });
    t.fake.fault(FAULTS.stall, 2);
    const t0 = Date.now();
    await assert.rejects(
      t.client.request('GET', '/projects/', undefined, { timeoutMs: 100 }),
      (e) => e.kind === 'timeout',
    );
    // Bounds here leave room for a loaded CI machine; the stall would end only at 3000 ms (as a network error).
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms for a 100 ms budget`);
  });

  it('fails fast with "queue full" beyond maxInFlight + maxQueue, without losing the others', async () => {
    t.make({ maxInFlight: 1, maxQueue: 2, retries: 0 });
    t.fake.fault(() => new Promise((r) => setTimeout(() => r(false), 100)), 5); // fault: each answer 100 ms late
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map(() => t.client.request('GET', '/projects/')));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected'],
    );
    assert.ok(results.slice(3).every((r) => r.reason.kind === 'queue-full'));
    assert.equal(t.fake.requests.length, 3);
  });

  it('refuses an answer over maxResponseBytes', async () => {
    t.make({ maxResponseBytes: 1024 * 1024, retries: 0 });
    t.fake.fault(FAULTS['body too large']);
    await assert.rejects(sql(t.client, { query: 'SELECT 1' }), (e) => e.kind === 'too-large');
  });

  it('close() fails waiting requests and lets in-flight ones finish', async () => {
    t.make({ maxInFlight: 1, retries: 0 });
    t.fake.fault(() => new Promise((r) => setTimeout(() => r(false), 100)), 3); // fault: each answer 100 ms late
    const a = t.client.request('GET', '/projects/');
    const b = t.client.request('GET', '/projects/').then(
      () => 'sent',
      (e) => e,
    );
    await waitFor(() => t.fake.requests.length === 1, { what: 'the first request at the server' });
    await t.client.close(2000);
    assert.deepEqual(await a, [{ name: 'mindsdb' }]);
    assert.equal((await b).kind, 'closed');
    // the server sees the socket close a moment later
    await waitFor(() => t.fake.state.openConnections === 0, {
      timeoutMs: 5000,
      what: () => `every socket closed (${t.fake.state.openConnections} open)`,
    });
  });
});
