'use strict';
/** TLS: certificates are verified by default; a core tls-config node adds a CA or turns checks off. */
const assert = require('node:assert/strict');
const { selfSignedCertificate } = require('../support/certificate');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, allNodes, coreNode, flowWith, nextMessage } = require('../support/nr');

const tlsNode = coreNode('network/05-tls.js');

describe('TLS', function () {
  this.timeout(20000);
  let certificate;
  let fake;
  before(() => {
    certificate = selfSignedCertificate();
  });
  after(() => certificate.remove());
  beforeEach(async () => {
    fake = await createFakeMindsDB({ tls: { key: certificate.key, cert: certificate.cert } }).listen();
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
  });

  const sql = {
    type: 'mindsdb-sql',
    query: 'SELECT 1',
    database: '',
    databaseType: 'str',
    rowFormat: 'objects',
    split: false,
    rowsPerMsg: 100,
  };
  const tlsConfig = (extra) => ({
    id: 'tls1',
    type: 'tls-config',
    name: '',
    cert: '',
    key: '',
    ca: '',
    certname: '',
    keyname: '',
    caname: '',
    servername: '',
    verifyservercert: true,
    alpnprotocol: '',
    ...extra,
  });

  it('refuses a self-signed certificate by default, with a clear error', async () => {
    await helper.load(allNodes(), flowWith(sql, { url: fake.url, retries: 0 }));
    const caught = nextMessage('caught');
    helper.getNode('n1').receive({});
    assert.match((await caught).error.message, /TLS certificate was not accepted.*TLS configuration/);
    assert.equal(fake.requests.length, 0);
  });

  it('trusts the server with its CA from a tls-config node', async () => {
    await helper.load(
      [...allNodes(), tlsNode],
      [...flowWith(sql, { url: fake.url, tls: 'tls1' }), tlsConfig({ ca: certificate.certPath })],
    );
    const out = nextMessage('out');
    helper.getNode('n1').receive({});
    assert.deepEqual((await out).payload, [{ 1: 1 }]);
  });

  it('accepts any certificate when the tls-config node turns verification off', async () => {
    await helper.load(
      [...allNodes(), tlsNode],
      [...flowWith(sql, { url: fake.url, tls: 'tls1' }), tlsConfig({ verifyservercert: false })],
    );
    const out = nextMessage('out');
    helper.getNode('n1').receive({});
    assert.deepEqual((await out).payload, [{ 1: 1 }]);
  });
});
