'use strict';
/**
 * Test support, loaded by a real Node-RED through settings.nodesDir (test/e2e/incremental-kill.e2e.js).
 * Every line is written with one synchronous append, so what is in a file survives a kill -9.
 *
 * - Node-RED's onSend hook runs inside a node's send(): for every mindsdb-sql node it appends the
 *   row ids of each message that node hands to the runtime to `<OBSERVER_DIR>/<node id>-handed.txt`,
 *   in the order it hands them on.
 * - The incremental-observer node, wired after one: it appends the ids of each message that reaches
 *   it to `<name>-received.txt`. With `store` set it is the end of a flow that keeps rows: a row at
 *   or before the last (ts, id) it stored is a repeat and is dropped, every other one is appended
 *   to `<name>-stored.txt` as "id<TAB>ts"; then, with `tick` set, it sends msg.tick back for the part.
 */
const fs = require('node:fs');
const path = require('node:path');

const rowsOf = (msg) => (msg && Array.isArray(msg.payload) ? msg.payload : []);
const lines = (items) => (items.length ? `${items.join('\n')}\n` : '');
const after = (a, b) => a.ts > b.ts || (a.ts === b.ts && a.id > b.id);

module.exports = function register(RED) {
  const dir = process.env.OBSERVER_DIR;
  RED.hooks.add('onSend.incrementalObserver', (events) => {
    for (const e of events) {
      if (e.source?.node && e.source.node.type === 'mindsdb-sql') {
        fs.appendFileSync(path.join(dir, `${e.source.id}-handed.txt`), lines(rowsOf(e.msg).map((r) => r.id)));
      }
    }
  });

  function IncrementalObserver(config) {
    RED.nodes.createNode(this, config);
    const received = path.join(dir, `${config.name}-received.txt`);
    const stored = path.join(dir, `${config.name}-stored.txt`);
    // After a restart: the last row this flow stored, from its own file.
    let last;
    if (config.store && fs.existsSync(stored)) {
      const tail = fs.readFileSync(stored, 'utf8').trim().split('\n').pop();
      if (tail) {
        const [id, ts] = tail.split('\t');
        last = { id: Number(id), ts };
      }
    }
    this.on('input', (msg, send, done) => {
      const rows = rowsOf(msg);
      fs.appendFileSync(received, lines(rows.map((r) => r.id)));
      if (config.store) {
        const fresh = rows.filter((r) => !last || after(r, last));
        fs.appendFileSync(stored, lines(fresh.map((r) => `${r.id}\t${r.ts}`)));
        if (fresh.length) last = fresh[fresh.length - 1];
      }
      if (config.tick) {
        msg.tick = true;
        send(msg);
      }
      done();
    });
  }
  RED.nodes.registerType('incremental-observer', IncrementalObserver);
};
