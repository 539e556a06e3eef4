'use strict';
/**
 * A real MindsDB behind a real proxy (the npm package `proxy`), as a flow behind a corporate proxy
 * reaches it: the server node follows HTTP_PROXY / HTTPS_PROXY with proxy authentication; plain
 * http is forwarded, https goes through a CONNECT tunnel (to a TLS front with a self-signed
 * certificate that passes the bytes to the real server). Read-only: it creates nothing on MindsDB.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const tls = require('node:tls');
const { selfSignedCertificate } = require('../support/certificate');
const { realMindsDB } = require('./outcomes');
const { helper, node, catchNode, coreNode, flowWith } = require('../support/nr');

const URL_ = process.env.MINDSDB_URL || 'http://127.0.0.1:47334';
const all = ['mindsdb-server', 'mindsdb-sql'].map(node).concat([catchNode]);
const tlsNode = coreNode('network/05-tls.js');
const USER = 'e2e-proxy';
const PASSWORD = 'e2e-proxy-pa55';

describe('a real MindsDB through a real proxy', function () {
  let certificate;
  let proxy;
  let front;
  let seen;
  const saved = {};
  before(async () => {
    await realMindsDB(URL_);
    certificate = selfSignedCertificate('mindsdb-proxy-e2e-');
    // https in front of the real server: TLS ends here, the bytes go on to MindsDB as they are.
    const upstream = new URL(URL_);
    front = tls.createServer({ key: certificate.key, cert: certificate.cert }, (socket) => {
      const out = net.connect(Number(upstream.port), upstream.hostname);
      socket.pipe(out).pipe(socket);
      socket.on('error', () => out.destroy());
      out.on('error', () => socket.destroy());
    });
    await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
    const { createProxy } = await import('proxy');
    proxy = createProxy(http.createServer());
    seen = { forwarded: 0, tunnels: 0 };
    proxy.on('request', () => {
      seen.forwarded++;
    });
    proxy.on('connect', () => {
      seen.tunnels++;
    });
    const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    proxy.authenticate = (req) => req.headers['proxy-authorization'] === expected;
    await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://${USER}:${PASSWORD}@127.0.0.1:${proxy.address().port}`;
    for (const [k, v] of Object.entries({
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: '',
      http_proxy: '',
      https_proxy: '',
      no_proxy: '',
    })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  after(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    proxy?.closeAllConnections?.();
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve()));
    await new Promise((resolve) => (front ? front.close(resolve) : resolve()));
    certificate?.remove();
  });
  beforeEach((done) => {
    helper.startServer(done);
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
  });

  const sqlNode = (extra = {}) => ({
    type: 'mindsdb-sql',
    query: 'SELECT 1 AS one',
    database: '',
    databaseType: 'str',
    rowFormat: 'objects',
    split: false,
    rowsPerMsg: 100,
    ...extra,
  });
  const answer = (id = 'n1') =>
    new Promise((resolve) => {
      helper.getNode('out').once('input', (msg) => resolve({ out: msg }));
      helper.getNode('caught').once('input', (msg) => resolve({ error: msg.error }));
      helper.getNode(id).receive({});
    });

  it("http: the sql node's query is forwarded through the proxy (HTTP_PROXY, with proxy credentials)", async () => {
    await helper.load(all, flowWith(sqlNode(), { url: URL_, retries: 0, timeout: 30000 }));
    const before = seen.forwarded;
    const { out, error } = await answer();
    assert.equal(error, undefined, error?.message);
    assert.deepEqual(out.payload, [{ one: 1 }]);
    assert.ok(seen.forwarded > before, 'nothing was forwarded through the proxy');
  });

  it('https: through a CONNECT tunnel (HTTPS_PROXY), also for a streamed answer', async () => {
    const front_ = `https://127.0.0.1:${front.address().port}`;
    const flow = [
      ...flowWith(sqlNode({ split: true, rowsPerMsg: 1 }), { url: front_, retries: 0, timeout: 30000, tls: 'tls1' }),
      {
        id: 'tls1',
        type: 'tls-config',
        name: '',
        cert: '',
        key: '',
        ca: certificate.certPath,
        certname: '',
        keyname: '',
        caname: '',
        servername: '',
        verifyservercert: true,
        alpnprotocol: '',
      },
    ];
    await helper.load([...all, tlsNode], flow);
    const before = seen.tunnels;
    const { out, error } = await answer();
    assert.equal(error, undefined, error?.message);
    assert.deepEqual(out.payload, [{ one: 1 }]);
    assert.ok(seen.tunnels > before, 'no CONNECT tunnel through the proxy');
  });
});
