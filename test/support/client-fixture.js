'use strict';
/**
 * The setup the client-level unit files share: a fake MindsDB (test/support/fake-mindsdb.js) and
 * a client of it, made fresh for each test and closed after it, so a test that fails leaves no
 * socket or server behind for the next one.
 *
 *   const t = fakeClient({ retries: 0 });          // inside a describe
 *   it('…', async () => {
 *     t.make({ maxInFlight: 1 });                  // a client of t.fake, options over the defaults
 *     const answer = await sql(t.client, { query: 'SELECT 1' });
 *     assert.equal(t.fake.requests.length, 1);
 *   });
 *
 * `fakeClient(defaults, { fake: { version: '26.1.0' } })` gives the fake its options;
 * `await t.replaceFake({ version })` replaces it mid-test (its client is closed first);
 * `{ client: true }` makes the client before each test with the defaults.
 */
const { createFakeMindsDB } = require('./fake-mindsdb');
const { MindsDBClient } = require('../../nodes/client');

function fakeClient(defaults = {}, setup = {}) {
  const made = [];
  const t = {
    /** The fake MindsDB of the running test. */
    fake: undefined,
    /** The client made last in the running test. */
    client: undefined,
    /** A client of the fake (or of `baseUrl`) with `opts` over the defaults; closed after the test. */
    make(opts = {}) {
      t.client = new MindsDBClient({ baseUrl: t.fake?.url, ...defaults, ...opts });
      made.push(t.client);
      return t.client;
    },
    /** Replaces the fake with one of `options` (its clients closed first). */
    async replaceFake(options = setup.fake ?? {}) {
      await closeAll();
      await t.fake?.close();
      t.fake = await createFakeMindsDB(options).listen();
      return t.fake;
    },
  };
  async function closeAll() {
    for (const c of made.splice(0)) await c.close(0);
    t.client = undefined;
  }
  beforeEach(async () => {
    t.fake = await createFakeMindsDB(setup.fake ?? {}).listen();
    if (setup.client) t.make();
  });
  afterEach(async () => {
    await closeAll();
    await t.fake?.close();
    t.fake = undefined;
  });
  return t;
}

/** `client.sql` awaited: the client hands its SQL answer to a callback (its per-message path). */
function sql(client, req, opts) {
  return new Promise((resolve, reject) => {
    client.sql(req, opts, (err, answer) => (err ? reject(err) : resolve(answer)));
  });
}

module.exports = { fakeClient, sql };
