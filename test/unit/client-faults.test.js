'use strict';
/** Retries only where safe, the bounded queue, and the response-size limit, counted at the server. */
const assert = require('node:assert/strict');
const { sql } = require('../support/client-fixture');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { FAULTS } = require('../support/faults');
const { MindsDBClient } = require('../../nodes/client');
const { waitFor } = require('../support/wait');
const { portBelowEphemeral } = require('../support/ports');

describe('client under faults', function () {
  let fake;
  let client;
  beforeEach(async () => { fake = await createFakeMindsDB().listen(); });
  afterEach(async () => { if (client) await client.close(0); await fake.close(); });
  const make = (o = {}) => (client = new MindsDBClient({ baseUrl: fake.url, retries: 2, retryBaseDelayMs: 5, timeoutMs: 5000, ...o }));

  it('retries a GET on 503 up to `retries` times, then succeeds', async () => {
    make();
    fake.fault(FAULTS['HTTP 503'], 2);
    assert.deepEqual(await client.request('GET', '/projects/'), [{ name: 'mindsdb' }]);
    assert.equal(fake.requests.length, 3);
  });

  it('gives up after `retries` extra attempts', async () => {
    make();
    fake.fault(FAULTS['HTTP 502'], 5);
    await assert.rejects(client.request('GET', '/projects/'), (e) => e.status === 502);
    assert.equal(fake.requests.length, 3);
  });

  it('never repeats a POST that may have reached the server (502, reset)', async () => {
    make();
    fake.fault(FAULTS['HTTP 502'], 5);
    await assert.rejects(sql(client, { query: 'SELECT 1' }), (e) => e.status === 502);
    assert.equal(fake.requests.length, 1);
    fake.clearFaults();
    fake.fault(FAULTS['reset mid-body'], 5);
    await assert.rejects(sql(client, { query: 'SELECT 1' }));
    assert.equal(fake.requests.length, 2);
  });

  it('repeats even a POST that the server refused without doing it (503), up to `retries` times', async () => {
    make();
    fake.fault(FAULTS['HTTP 503'], 5);
    await assert.rejects(sql(client, { query: 'SELECT 1' }), (e) => e.status === 503);
    assert.equal(fake.requests.length, 3);
  });

  it('repeats a POST when the user opts in (retryPost)', async () => {
    make({ retryPost: true });
    fake.fault(FAULTS['HTTP 503'], 1);
    assert.equal((await sql(client, { query: 'SELECT 1' })).type, 'table');
    assert.equal(fake.requests.length, 2);
  });

  it('repeats even a POST when the connection was refused (nothing was sent)', async () => {
    await fake.close(); // this test's server comes later, on a port nothing listens on yet
    const port = await portBelowEphemeral();
    // Six retries: the back-off has full jitter, and three could all fall within the 60 ms before the server is back.
    client = new MindsDBClient({ baseUrl: `http://127.0.0.1:${port}`, retries: 6, retryBaseDelayMs: 150 });
    const pending = sql(client, { query: 'SELECT 1' });
    let back;
    setTimeout(() => { fake = createFakeMindsDB(); back = fake.listen(port); }, 60); // fault: the server comes after the first attempts were refused
    assert.equal((await pending).type, 'table');
    await back;
    assert.equal(fake.requests.length, 1);
  });

  it('times out a stalled request per the timeout, or msg-level timeoutMs', async () => {
    make({ retries: 0 });
    fake.fault(FAULTS.stall, 2);
    const t0 = Date.now();
    await assert.rejects(client.request('GET', '/projects/', undefined, { timeoutMs: 100 }), (e) => e.kind === 'timeout');
    // Bounds here leave room for a loaded CI machine; the stall would end only at 3000 ms (as a network error).
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms for a 100 ms budget`);
  });

  it('fails fast with "queue full" beyond maxInFlight + maxQueue, without losing the others', async () => {
    make({ maxInFlight: 1, maxQueue: 2, retries: 0 });
    fake.fault(() => new Promise((r) => setTimeout(() => r(false), 100)), 5); // fault: each answer 100 ms late
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map(() => client.request('GET', '/projects/')));
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    assert.ok(results.slice(3).every((r) => r.reason.kind === 'queue-full'));
    assert.equal(fake.requests.length, 3);
  });

  it('refuses an answer over maxResponseBytes', async () => {
    make({ maxResponseBytes: 1024 * 1024, retries: 0 });
    fake.fault(FAULTS['body too large']);
    await assert.rejects(sql(client, { query: 'SELECT 1' }), (e) => e.kind === 'too-large');
  });

  it('close() fails waiting requests and lets in-flight ones finish', async () => {
    make({ maxInFlight: 1, retries: 0 });
    fake.fault(() => new Promise((r) => setTimeout(() => r(false), 100)), 3); // fault: each answer 100 ms late
    const a = client.request('GET', '/projects/');
    const b = client.request('GET', '/projects/').then(() => 'sent', (e) => e);
    await waitFor(() => fake.requests.length === 1, { what: 'the first request at the server' });
    await client.close(2000);
    assert.deepEqual(await a, [{ name: 'mindsdb' }]);
    assert.equal((await b).kind, 'closed');
    // the server sees the socket close a moment later
    await waitFor(() => fake.state.openConnections === 0, { timeoutMs: 5000, what: () => `every socket closed (${fake.state.openConnections} open)` });
  });
});
