/**
 * The server node: the MindsDB a flow's nodes talk to (its URL, credentials, limits, TLS, proxy,
 * tenant, where its nodes keep their state); the state store's is ./state-store-node.ts.
 */
import { configNode, flag, number, oneOf, password, plainCredential, text } from './fields';
import { defineNode } from './node-schema';

// A tenant header's value: visible ASCII, no spaces (the client checks it again).
const TENANT = '^[\\x21-\\x7e]*$';

export const SERVER_NODE = defineNode(
  'mindsdb-server',
  1,
  {
    name: text(),
    url: text('http://127.0.0.1:47334', { required: true, check: { url: true } }),
    apiPrefix: text('/api', { check: { apiPrefix: true } }),
    authMode: oneOf(['none', 'session', 'login', 'token'], 'none'),
    /** A multi-tenant MindsDB's tenant: the company-id / user-id headers on every request to this server. */
    companyId: text('', { check: { pattern: TENANT }, error: 'tenant' }),
    userId: text('', { check: { pattern: TENANT }, error: 'tenant' }),
    timeout: number(60_000, { integer: true, min: 1 }, { required: true }),
    retries: number(2, { integer: true, min: 0 }, { required: true }),
    retryPost: flag(false),
    maxInFlight: number(8, { integer: true, min: 1 }, { required: true }),
    maxQueue: number(1000, { integer: true, min: 1 }, { required: true }),
    maxResponseMB: number(64, { above: 0 }, { required: true }),
    tls: configNode('tls-config', false),
    /**
     * Where requests go through a proxy: the environment (HTTP_PROXY …, as core does), core's http proxy node, or never
     * (runtime/node/proxy.ts); optional in the dialog check, because flows saved before it lack it (they get env).
     */
    proxyMode: oneOf(['env', 'none', 'node'], 'env', { optional: true }),
    proxy: configNode('http proxy', false),
    /** Where the nodes on this server keep their state: a mindsdb-state-store node, blank for this Node-RED's file. */
    stateStore: configNode('mindsdb-state-store', false),
  },
  {
    session: password(),
    username: plainCredential(),
    password: password(),
    token: password(),
  },
);
