'use strict';
/**
 * Every node reads its names the same way (runtime/properties nameFrom): the node's field wins; a
 * blank one is filled from msg, and a msg field that is not text is an input error, never silently
 * replaced by a default (a number or object becoming "mindsdb" could point a delete at the default
 * project). Nothing reaches the server for such a message.
 */
const assert = require('node:assert/strict');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES } = require('../support/node-cases');
const { helper, allNodes, flowWith, nextMessage } = require('../support/nr');

describe('a msg name field that is not text fails the message, in every node', function () {
  this.timeout(20000);
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

  const cases = NODE_CASES.filter((c) => c.def.project !== undefined || c.type === 'mindsdb-file');
  for (const nodeCase of cases) {
    const key = nodeCase.def.project !== undefined ? 'project' : 'name';
    it(`${nodeCase.label || nodeCase.type}: msg.${key} = {…} with a blank node field`, async () => {
      if (nodeCase.setup) nodeCase.setup(fake);
      const def = { ...nodeCase.def, ...(key === 'project' ? { project: '' } : { fileName: '' }) };
      await helper.load(allNodes(), flowWith({ type: nodeCase.type, ...def }, { url: fake.url, retries: 0 }));
      const before = fake.requests.length;
      const caught = nextMessage('caught');
      helper.getNode('n1').receive({ ...nodeCase.msg(), [key]: { not: 'text' }, marker: 1 });
      const m = await caught;
      assert.equal(m.marker, 1);
      assert.match(m.error.message, new RegExp(`msg\\.${key} must be a string`));
      assert.equal(
        fake.requests.slice(before).filter((r) => !r.path.endsWith('/status')).length,
        0,
        'nothing was sent',
      );
    });
  }

  it('blank text in msg.project fills nothing, like a missing field (the default project is used)', async () => {
    const agentList = NODE_CASES.find((c) => c.type === 'mindsdb-agent' && !c.setup);
    await helper.load(
      allNodes(),
      flowWith({ type: agentList.type, ...agentList.def, project: '' }, { url: fake.url, retries: 0 }),
    );
    const out = nextMessage('out');
    helper.getNode('n1').receive({ ...agentList.msg(), project: '   ' });
    assert.equal((await out).mindsdb.project, 'mindsdb');
  });
});
