'use strict';
/** Which sequence a tick acknowledges, and when a sequence may send. */
const assert = require('node:assert/strict');
const { TickWindow } = require('../../nodes/runtime/message/tick-window');
const { flushDeliveries } = require('../support/wait');

const pending = (p) => {
  let state = 'waiting';
  p.then(
    () => {
      state = 'ready';
    },
    (e) => {
      state = e.message;
    },
  );
  return () => state;
};
/** Lets the promise callbacks already scheduled run. */
const tick = () => flushDeliveries(1);

describe('TickWindow (msg.tick flow control)', () => {
  it('lets a sequence have `window` parts out, then one more per tick', async () => {
    const w = new TickWindow(2);
    w.start('a');
    await w.ready('a', 1000);
    w.sent('a');
    await w.ready('a', 1000);
    w.sent('a');
    const third = pending(w.ready('a', 1000));
    await tick();
    assert.equal(third(), 'waiting');
    w.tick(undefined);
    await tick();
    assert.equal(third(), 'ready');
  });

  it('gives a tick to the sequence its msg.parts (or nested msg.parts.parts) names, else to the oldest with parts out', async () => {
    const w = new TickWindow(1);
    for (const id of ['a', 'b']) {
      w.start(id);
      await w.ready(id, 1000);
      w.sent(id);
    }
    const a = pending(w.ready('a', 1000));
    const b = pending(w.ready('b', 1000));
    w.tick({ id: 'other', parts: { id: 'b' } });
    await tick();
    assert.deepEqual([a(), b()], ['waiting', 'ready']);
    w.tick({ id: 'unknown' });
    await tick();
    assert.equal(a(), 'ready');
  });

  it('drops the late tick of a sequence that ended, rather than count it for another', async () => {
    const w = new TickWindow(1);
    w.start('old');
    await w.ready('old', 1000);
    w.sent('old');
    w.finish('old');
    w.start('new');
    await w.ready('new', 1000);
    w.sent('new');
    const next = pending(w.ready('new', 1000));
    w.tick({ id: 'old' });
    await tick();
    assert.equal(next(), 'waiting');
    w.tick({ id: 'new' });
    await tick();
    assert.equal(next(), 'ready');
  });

  it('fails a wait after the timeout, and every wait at once on close', async () => {
    const w = new TickWindow(1);
    w.start('a');
    await w.ready('a', 1000);
    w.sent('a');
    await assert.rejects(w.ready('a', 30), /no msg.tick came back within 30 ms/);
    const waiting = w.ready('a', 10000);
    w.close();
    await assert.rejects(waiting, /stopped \(redeploy\)/);
  });

  it('says which sequence a tick acknowledged; a sequence finished with awaitTicks is kept until its last parts are acknowledged', async () => {
    const w = new TickWindow(3);
    w.start('a');
    await w.ready('a', 1000);
    w.sent('a');
    await w.ready('a', 1000);
    w.sent('a');
    w.finish('a', true);
    w.start('b');
    await w.ready('b', 1000);
    w.sent('b');
    assert.equal(w.tick({ id: 'a' }), 'a');
    assert.equal(
      w.tick(undefined),
      'a',
      'a tick without parts goes to the oldest sequence with parts out, finished or not',
    );
    assert.equal(w.tick({ id: 'a' }), undefined, 'a has ended: its late tick is dropped');
    assert.equal(w.tick(undefined), 'b');
    w.start('c');
    await w.ready('c', 1000);
    w.sent('c');
    w.finish('c');
    assert.equal(w.tick({ id: 'c' }), undefined, 'without awaitTicks a sequence ends with its last part, as before');
  });
});
