'use strict';
/**
 * Proxies: every request of a server node goes through an HTTP proxy when the environment names
 * one (HTTP_PROXY / HTTPS_PROXY / NO_PROXY, as Node-RED core's http request node reads them) or
 * when the node points at a core `http proxy` node; https through CONNECT; proxy credentials go to
 * the proxy only and into no error; a 407 is a clear error. Against a real proxy server (the npm
 * package `proxy`, which the tests start) and the fake MindsDB over http and over https
 * (a self-signed certificate).
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { selfSignedCertificate } = require('../support/certificate');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { sql } = require('../support/client-fixture');
const { helper, allNodes, coreNode, flowWith, nextMessage } = require('../support/nr');
const { MindsDBClient } = require('../../nodes/client');
const { envProxy } = require('../../nodes/runtime/node/proxy');

const httpProxyNode = coreNode('network/06-httpproxy.js');
const PROXY_USER = 'proxy-user';
const PROXY_PASSWORD = 'proxy-pa55-secret';

/** A real forward proxy (npm `proxy`) on loopback, counting what went through it. */
async function startProxy({ auth = false } = {}) {
  const { createProxy } = await import('proxy');
  const server = createProxy(http.createServer());
  const seen = { forwarded: 0, tunnels: 0, refused: 0 };
  server.on('request', () => {
    seen.forwarded++;
  });
  server.on('connect', () => {
    seen.tunnels++;
  });
  if (auth) {
    const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;
    server.authenticate = (req) => {
      const ok = req.headers['proxy-authorization'] === expected;
      if (!ok) seen.refused++;
      return ok;
    };
  }
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    seen,
    async close() {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('proxies', function () {
  this.timeout(20000);
  let tls;
  before(() => {
    tls = selfSignedCertificate('mindsdb-proxy-');
  });
  after(() => tls.remove());

  describe('the client through a real proxy', () => {
    let fake;
    let proxy;
    let client;
    afterEach(async () => {
      await client?.close(0);
      client = undefined;
      await fake?.close();
      await proxy?.close();
    });

    for (const scheme of ['http', 'https']) {
      const serve = () =>
        createFakeMindsDB(scheme === 'https' ? { tls: { key: tls.key, cert: tls.cert } } : {}).listen();
      const clientOf = (opts) =>
        new MindsDBClient({
          baseUrl: fake.url,
          retries: 0,
          timeoutMs: 5000,
          ...(scheme === 'https' ? { tls: { ca: tls.cert } } : {}),
          ...opts,
        });
      const through = () => (scheme === 'https' ? proxy.seen.tunnels : proxy.seen.forwarded);

      it(`reaches an ${scheme} MindsDB through the proxy (${scheme === 'https' ? 'a CONNECT tunnel' : 'forwarded'}), whole answers and streams`, async () => {
        fake = await serve();
        proxy = await startProxy();
        client = clientOf({ proxy: { url: proxy.url } });
        assert.equal(client.proxy, proxy.url);
        assert.equal((await sql(client, { query: 'SELECT 1' })).type, 'table');
        const stream = await client.sqlStream({ query: 'SELECT 1' });
        assert.deepEqual(await stream.read(10), [[1]]);
        stream.close();
        assert.ok(through() >= 1, `nothing went through the proxy (${JSON.stringify(proxy.seen)})`);
        assert.ok(fake.requests.length >= 2);
      });

      it(`sends the proxy's credentials to the proxy only (${scheme})`, async () => {
        fake = await serve();
        proxy = await startProxy({ auth: true });
        client = clientOf({ proxy: { url: proxy.url, username: PROXY_USER, password: PROXY_PASSWORD } });
        assert.equal((await sql(client, { query: 'SELECT 1' })).type, 'table');
        assert.ok(through() >= 1);
        for (const r of fake.requests)
          assert.equal(
            r.headers['proxy-authorization'],
            undefined,
            `${r.method} ${r.path} carried the proxy's credentials`,
          );
      });

      it(`reports a 407 as a clear auth error that names neither password (${scheme})`, async () => {
        fake = await serve();
        proxy = await startProxy({ auth: true });
        client = clientOf({
          proxy: { url: proxy.url, username: PROXY_USER, password: 'wrong-pa55' },
          retries: 2,
          retryBaseDelayMs: 1,
        });
        await assert.rejects(sql(client, { query: 'SELECT 1' }), (e) => {
          assert.equal(e.kind, 'auth');
          assert.equal(e.status, 407);
          assert.match(e.message, /proxy .* refused .*407 Proxy Authentication Required.*username and password/);
          assert.doesNotMatch(e.message + e.stack, /wrong-pa55|pa55-secret/);
          return true;
        });
        assert.equal(proxy.seen.refused, 1, 'a 407 is not retried');
        assert.equal(fake.requests.length, 0);
      });
    }

    it('takes credentials written into the proxy URL, and never quotes them', async () => {
      fake = await createFakeMindsDB().listen();
      proxy = await startProxy({ auth: true });
      const port = new URL(proxy.url).port;
      client = new MindsDBClient({
        baseUrl: fake.url,
        retries: 0,
        proxy: { url: `http://${PROXY_USER}:${encodeURIComponent(PROXY_PASSWORD)}@127.0.0.1:${port}` },
      });
      assert.equal(client.proxy, proxy.url);
      assert.equal((await sql(client, { query: 'SELECT 1' })).type, 'table');
      assert.ok(
        client.redactor.text(`x ${PROXY_PASSWORD} y`).includes('***') ||
          !client.redactor.text(`x ${PROXY_PASSWORD} y`).includes(PROXY_PASSWORD),
      );
    });

    it('says the proxy could not be reached, and retries it as never sent', async () => {
      fake = await createFakeMindsDB().listen();
      proxy = await startProxy();
      const dead = proxy.url;
      await proxy.close();
      proxy = undefined;
      client = new MindsDBClient({ baseUrl: fake.url, retries: 1, retryBaseDelayMs: 1, proxy: { url: dead } });
      await assert.rejects(
        sql(client, { query: 'SELECT 1' }),
        (e) =>
          e.kind === 'network' &&
          e.message.includes(`through the proxy ${dead}`) &&
          /is the proxy running/.test(e.message),
      );
    });
  });

  describe('the server node', () => {
    let fake;
    let proxy;
    const saved = {};
    const setEnv = (vars) => {
      for (const [k, v] of Object.entries(vars)) {
        if (!(k in saved)) saved[k] = process.env[k];
        process.env[k] = v;
      }
    };
    beforeEach(async () => {
      fake = await createFakeMindsDB().listen();
      proxy = await startProxy({ auth: true });
      for (const k of [
        'HTTP_PROXY',
        'http_proxy',
        'HTTPS_PROXY',
        'https_proxy',
        'NO_PROXY',
        'no_proxy',
        'ALL_PROXY',
        'all_proxy',
      ])
        setEnv({ [k]: '' });
      await new Promise((r) => helper.startServer(r));
    });
    afterEach(async () => {
      await helper.unload();
      await new Promise((r) => helper.stopServer(r));
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
        delete saved[k];
      }
      await fake.close();
      await proxy.close();
    });
    const sqlNode = {
      type: 'mindsdb-sql',
      query: 'SELECT 1',
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: false,
      rowsPerMsg: 100,
    };
    const withProxyUrl = () => {
      const u = new URL(proxy.url);
      u.username = PROXY_USER;
      u.password = PROXY_PASSWORD;
      return u.href;
    };

    it('follows HTTP_PROXY as core does (credentials in the URL), and NO_PROXY', async () => {
      setEnv({ HTTP_PROXY: withProxyUrl() });
      await helper.load(allNodes(), flowWith(sqlNode, { url: fake.url }));
      let out = nextMessage('out');
      helper.getNode('n1').receive({});
      assert.deepEqual((await out).payload, [{ 1: 1 }]);
      assert.equal(proxy.seen.forwarded, 1);

      await helper.unload();
      setEnv({ NO_PROXY: '127.0.0.1' });
      await helper.load(allNodes(), flowWith(sqlNode, { url: fake.url }));
      out = nextMessage('out');
      helper.getNode('n1').receive({});
      await out;
      assert.equal(proxy.seen.forwarded, 1, 'NO_PROXY lists the host: straight to it');
    });

    it('ignores the environment with proxy "none"', async () => {
      setEnv({ HTTP_PROXY: 'http://127.0.0.1:9' });
      await helper.load(allNodes(), flowWith(sqlNode, { url: fake.url, proxyMode: 'none' }));
      const out = nextMessage('out');
      helper.getNode('n1').receive({});
      await out;
      assert.equal(proxy.seen.forwarded, 0);
    });

    it("uses a core http proxy node, its credentials from Node-RED's credentials, and a 407 reaches Catch", async () => {
      const flow = flowWith(sqlNode, { url: fake.url, proxyMode: 'node', proxy: 'px' }, [
        { id: 'px', type: 'http proxy', name: 'corp', url: proxy.url, noproxy: [] },
      ]);
      await helper.load([...allNodes(), httpProxyNode], flow, {
        px: { username: PROXY_USER, password: PROXY_PASSWORD },
      });
      const out = nextMessage('out');
      helper.getNode('n1').receive({});
      assert.deepEqual((await out).payload, [{ 1: 1 }]);
      assert.equal(proxy.seen.forwarded, 1);

      await helper.unload();
      await helper.load([...allNodes(), httpProxyNode], flow, { px: { username: PROXY_USER, password: 'not-it' } });
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ topic: 't' });
      const msg = await caught;
      assert.equal(msg.mindsdbError?.kind ?? msg.error.kind ?? 'auth', 'auth');
      assert.match(msg.error.message, /407 Proxy Authentication Required/);
      assert.doesNotMatch(JSON.stringify(msg), /not-it|pa55-secret/);
    });

    it('Test connection says the connection went through a proxy, and where it came from', async () => {
      setEnv({ HTTP_PROXY: withProxyUrl() });
      await helper.load(allNodes(), flowWith(sqlNode, { url: fake.url }));
      const res = await helper
        .request()
        .post('/mindsdb/test')
        .send({ url: fake.url, apiPrefix: '/api', authMode: 'none', proxyMode: 'env' })
        .expect(200);
      assert.equal(res.body.ok, true, JSON.stringify(res.body));
      assert.equal(res.body.proxy, 'HTTP_PROXY');
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(`${PROXY_PASSWORD}|${new URL(proxy.url).port}`));
      const direct = await helper
        .request()
        .post('/mindsdb/test')
        .send({ url: fake.url, apiPrefix: '/api', authMode: 'none', proxyMode: 'none' })
        .expect(200);
      assert.equal(direct.body.ok, true);
      assert.equal(direct.body.proxy, undefined);
    });
  });

  describe('the environment, read as Node-RED core reads it', () => {
    const core = (() => {
      try {
        const { createRequire } = require('node:module');
        return createRequire(require.resolve(`${process.env.NODE_RED_PACKAGE || 'node-red'}/package.json`))(
          '@node-red/nodes/core/network/lib/proxyHelper.js',
        );
      } catch {
        return undefined;
      } // Node-RED 3.1 has no proxy helper of its own
    })();
    const cases = [
      ['http://mindsdb.local:47334', { http_proxy: 'http://p:3128' }, {}],
      ['https://cloud.mindsdb.com', { http_proxy: 'http://p:3128' }, {}],
      ['https://cloud.mindsdb.com', { HTTPS_PROXY: 'http://q:8080', http_proxy: 'http://p:3128' }, {}],
      ['https://cloud.mindsdb.com', { https_proxy: 'q:8080' }, {}],
      ['http://10.0.0.5:47334', { all_proxy: 'http://a:1', no_proxy: '10.0.0.5' }, {}],
      ['http://db.corp.example:47334', { HTTP_PROXY: 'http://p:3128', NO_PROXY: '.corp.example' }, {}],
      [
        'http://db.corp.example:47334',
        { HTTP_PROXY: 'http://p:3128', NO_PROXY: 'other.example:47334, *.corp.example' },
        {},
      ],
      ['http://db.corp.example:47334', { HTTP_PROXY: 'http://p:3128', NO_PROXY: 'db.corp.example:80' }, {}],
      ['http://h:1', { HTTP_PROXY: 'http://P:1', http_proxy: 'http://p:1' }, { favourUpperCase: true }],
      ['http://h:1', { HTTP_PROXY: 'http://P:1' }, { lowerCaseOnly: true }],
      ['http://h:1', { npm_config_http_proxy: 'http://n:1', http_proxy: 'http://p:1' }, {}],
      ['http://h:1', { npm_config_http_proxy: 'http://n:1', http_proxy: 'http://p:1' }, { excludeNpm: true }],
      ['http://h:1', { HTTP_PROXY: 'http://p:1', NO_PROXY: '*' }, {}],
      ['http://h:1', { HTTP_PROXY: 'http://p:1', NO_PROXY: 'h' }, { mode: 'legacy' }],
    ];
    for (const [url, env, rules] of cases) {
      it(`${url} with ${JSON.stringify(env)}${Object.keys(rules).length ? ` and ${JSON.stringify(rules)}` : ''}`, function () {
        if (!core) this.skip();
        assert.equal(envProxy(url, env, rules)?.url ?? '', core.getProxyForUrl(url, { ...rules, env }));
      });
    }
    it('names the variable that gave the proxy', () => {
      assert.equal(envProxy('https://x', { HTTPS_PROXY: 'http://q:1' }).name, 'HTTPS_PROXY');
      assert.equal(envProxy('http://x', { all_proxy: 'http://q:1' }).name, 'all_proxy');
    });
  });
});
