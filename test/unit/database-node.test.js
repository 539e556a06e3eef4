'use strict';
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, catchNode, flowWith, nextMessage } = require('../support/nr');

const nodes = [node('mindsdb-server'), node('mindsdb-database'), catchNode];
const base = {
  type: 'mindsdb-database',
  operation: 'create',
  dbName: '',
  dbNameType: 'str',
  engine: '',
  host: '',
  port: '',
  user: '',
  database: '',
  extraParams: '',
  checkConnection: false,
};

describe('mindsdb-database node', function () {
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
  const load = (def = {}, creds) =>
    helper.load(nodes, flowWith({ ...base, ...def }, { url: fake.url }), creds ? { n1: creds } : undefined);
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

  it('update fails on a missing database (no upsert by mistake); "update creates" allows it', async () => {
    await load({ operation: 'update', dbName: 'typo_db', engine: 'postgres' });
    const m = await fail({ payload: { parameters: { host: 'h' } }, marker: 3 });
    assert.equal(m.marker, 3);
    assert.match(m.error.message, /database "typo_db" does not exist, nothing was changed/);
    assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 0, 'no PUT was sent');
    assert.equal(fake.state.databases.has('typo_db'), false);
    await helper.unload();
    await load({ operation: 'update', dbName: 'new_db', engine: 'postgres', updateCreates: true });
    await run({ payload: { parameters: { host: 'h' } } });
    assert.equal(fake.state.databases.has('new_db'), true, 'create-or-update when asked');
  });

  it("update that creates a missing database checks its connection first, as asked, and saves nothing when it fails (25.14.1's PUT would save it unchecked)", async () => {
    await load({
      operation: 'update',
      dbName: 'fresh_db',
      engine: 'postgres',
      host: '127.0.0.1',
      port: '1',
      updateCreates: true,
      checkConnection: true,
    });
    const m = await fail({});
    assert.match(m.error.message, /could not connect to the data source, nothing was saved.*Connection refused/);
    assert.equal(fake.state.databases.has('fresh_db'), false);
    assert.deepEqual(
      fake.requests.filter((r) => r.method !== 'GET').map((r) => [r.method, r.path]),
      [['POST', '/api/databases/']],
    );
    await helper.unload();
    await load({
      operation: 'update',
      dbName: 'fresh_db',
      engine: 'postgres',
      host: '127.0.0.1',
      port: '5432',
      updateCreates: true,
      checkConnection: true,
    });
    assert.equal((await run({})).payload.name, 'fresh_db');
    assert.equal(fake.state.databases.has('fresh_db'), true);
  });

  it('update asking for another engine is refused, nothing sent (MindsDB keeps the engine, merges the parameters and answers 200)', async () => {
    fake.state.databases.set('pg', {
      id: 1,
      name: 'pg',
      type: 'data',
      engine: 'postgres',
      connection_data: { host: 'h', port: 5432 },
    });
    await load({ operation: 'update', dbName: 'pg', engine: 'mysql' });
    const m = await fail({ payload: { parameters: { port: 3306 } } });
    assert.match(
      m.error.message,
      /database "pg" uses the engine postgres, and MindsDB does not change a data source's engine on update .*nothing was changed/,
    );
    assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 0);
    await helper.unload();
    await load({ operation: 'update', dbName: 'pg', engine: 'postgres' });
    await run({ payload: { parameters: { port: 5433 } } });
    assert.equal(fake.state.databases.get('pg').connection_data.port, 5433);
  });

  it("update with the connection check on fails with the data source's reason (400), nothing changed", async () => {
    fake.state.databases.set('pg', {
      id: 1,
      name: 'pg',
      type: 'data',
      engine: 'postgres',
      connection_data: { host: 'h', port: 5432 },
    });
    await load({ operation: 'update', dbName: 'pg', checkConnection: true });
    const m = await fail({ payload: { parameters: { port: 1 } } });
    assert.match(m.error.message, /400.*Connection refused/);
    assert.equal(fake.state.databases.get('pg').connection_data.port, 5432);
  });

  it('creates from the node fields: wrapper body, no empty parameters, number port, password credential', async () => {
    await load(
      {
        dbName: 'pg',
        engine: 'postgres',
        host: '127.0.0.1',
        port: '5432',
        user: 'postgres',
        database: '',
        extraParams: '{"schema":"public"}',
      },
      { password: 'pw-secret-1' },
    );
    const msg = await run({});
    assert.deepEqual(msg.payload, { name: 'pg', engine: 'postgres', type: 'data' });
    assert.deepEqual(msg.mindsdb, { operation: 'create', name: 'pg' });
    const sent = fake.requests.at(-1);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/api/databases/');
    assert.deepEqual(sent.body, {
      database: {
        name: 'pg',
        engine: 'postgres',
        parameters: { schema: 'public', host: '127.0.0.1', port: 5432, user: 'postgres', password: 'pw-secret-1' },
      },
    });
  });

  it('fills blanks from msg.payload {name, engine, parameters}; node fields win', async () => {
    await load({ host: 'node-host' });
    await run({
      payload: { name: 'pg2', engine: 'postgres', parameters: { host: 'msg-host', port: 1234, sslmode: 'disable' } },
    });
    assert.deepEqual(fake.requests.at(-1).body.database, {
      name: 'pg2',
      engine: 'postgres',
      parameters: { host: 'node-host', port: 1234, sslmode: 'disable' },
    });
  });

  it('lists, gets (password redacted), updates and deletes, with msg.operation and msg.name', async () => {
    await load({ operation: 'msg', engine: 'postgres', host: 'db.internal' }, { password: 'pw-secret-2' });
    await run({ operation: 'create', name: 'pg3' });
    const list = await run({ operation: 'list' });
    assert.ok(list.payload.some((d) => d.name === 'pg3'));
    assert.ok(!JSON.stringify(list.payload).includes('pw-secret-2'));
    const got = await run({ operation: 'get', name: 'pg3' });
    assert.equal(got.payload.connection_data.password, '******');
    const updated = await run({ operation: 'update', name: 'pg3', payload: { parameters: { schema: 's' } } });
    assert.equal(updated.payload.connection_data.schema, 's');
    assert.deepEqual(fake.requests.at(-1).body, {
      database: { parameters: { schema: 's', host: 'db.internal', password: 'pw-secret-2' }, engine: 'postgres' },
    });
    assert.equal(fake.requests.at(-1).method, 'PUT');
    const deleted = await run({ operation: 'delete', name: 'pg3' });
    assert.deepEqual(deleted.payload, { deleted: true, name: 'pg3' });
    assert.equal(fake.requests.at(-1).method, 'DELETE');
    assert.equal(fake.requests.at(-1).path, '/api/databases/pg3');
  });

  it('sends check_connection and turns a connection_error answer into an error without the password', async () => {
    await load(
      { dbName: 'pg4', engine: 'postgres', host: '127.0.0.1', port: '1', checkConnection: true },
      { password: 'pw-secret-3' },
    );
    const msg = await fail({});
    assert.match(msg.error.message, /could not connect to the data source.*Connection refused/);
    assert.equal(fake.requests.at(-1).body.check_connection, true);
    assert.ok(!JSON.stringify(msg).includes('pw-secret-3'));
  });

  it('reports an existing database (409) with the server message', async () => {
    await load({ dbName: 'pg5', engine: 'postgres' });
    await run({});
    const msg = await fail({});
    assert.match(msg.error.message, /409.*already exists/);
  });

  it('reports an unknown engine', async () => {
    await load({ dbName: 'x', engine: 'nosuch' });
    assert.match((await fail({})).error.message, /HTTP 500/);
  });

  it('never lets the password reach Catch, even when the server quotes it back', async () => {
    await load({ dbName: 'pg6', engine: 'postgres' }, { password: 'pw-secret-4' });
    fake.fault((_req, res, entry) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'Bad', detail: `rejected ${entry.rawBody}` }));
    });
    const msg = await fail({});
    assert.match(msg.error.message, /rejected/);
    assert.ok(!JSON.stringify(msg).includes('pw-secret-4'));
    const statuses = JSON.stringify(helper.getNode('n1').status.args);
    assert.ok(!statuses.includes('pw-secret-4'));
  });

  describe('the stored password goes only where the node says (issue 21, the class of instance 6)', () => {
    const PW = 'pw-STORED-only-here';
    const leaked = () => fake.requests.filter((r) => r.rawBody.includes(PW));

    it('a host from msg.payload.parameters does not get the stored password: the message fails, nothing is sent', async () => {
      await load({ dbName: 'pgx', engine: 'postgres', user: 'u' }, { password: PW });
      const m = await fail({ payload: { parameters: { host: 'attacker.example', port: 5432 } }, marker: 1 });
      assert.equal(m.marker, 1);
      assert.match(
        m.error.message,
        /database password stored in the node is sent only where the node says, but msg\.payload\.parameters\.host and msg\.payload\.parameters\.port chose/,
      );
      assert.match(m.error.message, /give msg\.payload\.parameters\.password/);
      assert.deepEqual(leaked(), []);
      assert.equal(fake.requests.filter((r) => r.method === 'POST').length, 0, 'nothing was created');
    });

    it('a msg that chooses the host and brings its own password is sent with that password, never the stored one', async () => {
      await load({ dbName: 'pgy', engine: 'postgres' }, { password: PW });
      await run({ payload: { parameters: { host: 'other.example', password: 'msg-own-pw' } } });
      assert.deepEqual(fake.requests.at(-1).body.database.parameters, {
        host: 'other.example',
        password: 'msg-own-pw',
      });
      assert.deepEqual(leaked(), []);
    });

    it('with the host in the node, msg parameters fill the rest and the stored password is sent (as before)', async () => {
      await load({ dbName: 'pgz', engine: 'postgres', host: 'db.internal' }, { password: PW });
      await run({ payload: { parameters: { host: 'attacker.example', schema: 'public' } } });
      assert.deepEqual(fake.requests.at(-1).body.database.parameters, {
        host: 'db.internal',
        schema: 'public',
        password: PW,
      });
    });

    it("an update of a database named by the msg, with no host in the node, does not send the stored password to that database's host", async () => {
      fake.state.databases.set('theirs', {
        id: 9,
        name: 'theirs',
        type: 'data',
        engine: 'postgres',
        connection_data: { host: 'attacker.example' },
      });
      await load({ operation: 'update' }, { password: PW });
      const m = await fail({ name: 'theirs', payload: { parameters: { user: 'u' } } });
      assert.match(m.error.message, /msg\.name \(the existing database's host\) chose where this message goes/);
      assert.deepEqual(leaked(), []);
      assert.equal(fake.requests.filter((r) => r.method === 'PUT').length, 0);
      await helper.unload();
      await load({ operation: 'update', dbName: 'theirs' }, { password: PW });
      await run({ payload: { parameters: { user: 'u' } } });
      assert.equal(
        fake.requests.at(-1).body.database.parameters.password,
        PW,
        "the node's own Name: the stored password may go",
      );
    });
  });

  for (const [what, def, msg, pattern] of [
    ['a bad msg.operation', { operation: 'msg' }, { operation: 'drop' }, /database operation must be one of/],
    ['no name', { engine: 'postgres' }, {}, /no database name/],
    ['no engine', { dbName: 'a' }, {}, /no engine/],
    ['bad other parameters', { dbName: 'a', engine: 'postgres', extraParams: '{nope' }, {}, /not valid JSON/],
    ['a missing database (404)', { operation: 'get', dbName: 'none' }, {}, /404.*Database not found/],
  ]) {
    it(`sends ${what} to Catch with the msg`, async () => {
      await load(def);
      const m = await fail({ ...msg, marker: 7 });
      assert.equal(m.marker, 7);
      assert.match(m.error.message, pattern);
    });
  }
});
