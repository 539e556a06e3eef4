'use strict';
/**
 * The rule behind every node credential that is sent inside settings (src/runtime/stored-secret.ts):
 * node settings win, the msg fills the rest, and the stored secret goes only with a destination
 * the node itself configured. The database and knowledge-base node tests check it through the
 * nodes; this checks the shared function that other nodes (an ML engine's API key …) use.
 */
const assert = require('node:assert/strict');
const { isDestinationKey, withStoredSecret } = require('../../nodes/runtime/message/stored-secret');

describe('a stored secret goes only where it was configured to go', () => {
  it('names that say where settings go are destinations; others are not', () => {
    for (const key of [
      'host',
      'hostname',
      'port',
      'url',
      'base_url',
      'api_base',
      'baseUrl',
      'azure_endpoint',
      'connection_string',
      'uri',
      'dsn',
      'serverName',
      'provider',
      'account',
      'region',
      'proxy',
      'socket_path',
      'HOST',
    ]) {
      assert.equal(isDestinationKey(key), true, key);
    }
    for (const key of [
      'database',
      'user',
      'username',
      'password',
      'api_key',
      'model_name',
      'schema',
      'sslmode',
      'dimensions',
      'timeout',
      'database_name',
    ]) {
      assert.equal(isDestinationKey(key), false, key);
    }
  });

  const rule = (fromNode, fromMsg, extra = {}) =>
    withStoredSecret({
      key: 'api_key',
      stored: 'STORED',
      what: 'the API key',
      fromNode,
      fromMsg,
      msgPath: 'msg.payload.x',
      ...extra,
    });

  it('node settings win, the msg fills the rest, the stored secret is added when the node says where it goes', () => {
    assert.deepEqual(rule({ base_url: 'https://mine' }, { base_url: 'https://theirs', model_name: 'm' }), {
      base_url: 'https://mine',
      model_name: 'm',
      api_key: 'STORED',
    });
    assert.deepEqual(
      rule({}, { model_name: 'm' }),
      { model_name: 'm', api_key: 'STORED' },
      'no destination from anyone: the default one',
    );
    assert.deepEqual(
      rule({ base_url: 'https://mine' }, { api_key: 'msg' }),
      { base_url: 'https://mine', api_key: 'STORED' },
      'the stored secret wins where it may go',
    );
  });

  it('a destination from the msg: its own secret is used, or the message fails naming what chose', () => {
    assert.deepEqual(rule({}, { base_url: 'https://theirs', api_key: 'msg-own' }), {
      base_url: 'https://theirs',
      api_key: 'msg-own',
    });
    assert.throws(
      () => rule({}, { base_url: 'https://theirs' }),
      (e) =>
        e.kind === 'input' &&
        /msg\.payload\.x\.base_url chose where this message goes/.test(e.message) &&
        !e.message.includes('STORED'),
    );
    assert.throws(() => rule({ base_url: 'https://mine' }, {}, { chosenByMsg: 'msg.name' }), /msg\.name chose/);
    assert.deepEqual(
      rule({}, { base_url: '' }),
      { base_url: '', api_key: 'STORED' },
      'a blank msg value chooses nothing',
    );
  });

  it('without a stored secret nothing is added or refused', () => {
    assert.deepEqual(
      withStoredSecret({
        key: 'password',
        stored: '',
        what: 'p',
        fromNode: {},
        fromMsg: { host: 'h', password: 'x' },
        msgPath: 'm',
      }),
      { host: 'h', password: 'x' },
    );
  });
});
