'use strict';
// Benchmark-only nodes, loaded into the same Node-RED runtime as ours.
//   bench-bare  the least any node can do for an SQL message: one undici Pool.request with the same
//               body, one JSON parse, rows mapped to objects, send/done: a node written the usual way.
//   bench-sink  counts what arrives and records each message's latency since it was fed
//               (msg._benchT0, set by the worker), into globalThis.__bench. With `forward` it then
//               sends the msg on (its one output), as the last node of a chain would.
const { Pool } = require('undici');

module.exports = (RED) => {
  function BenchBare(config) {
    RED.nodes.createNode(this, config);
    const pool = new Pool(config.origin, { connections: Number(config.connections) || 8, pipelining: 1 });
    const headers = { 'content-type': 'application/json' };
    this.on('input', (msg, send, done) => {
      pool
        .request({ path: '/api/sql/query', method: 'POST', headers, body: JSON.stringify({ query: msg.query }) })
        .then((res) => res.body.json())
        .then((answer) => {
          const cols = answer.column_names;
          msg.payload = answer.data.map((r) => {
            const o = {};
            for (let i = 0; i < cols.length; i++) o[cols[i]] = r[i];
            return o;
          });
          send(msg);
          done();
        }, done);
    });
    this.on('close', (_removed, done) => {
      pool.close().then(
        () => done(),
        () => done(),
      );
    });
  }
  RED.nodes.registerType('bench-bare', BenchBare);

  function BenchSink(config) {
    RED.nodes.createNode(this, config);
    const forward = Boolean(config.forward);
    this.on('input', (msg, send, done) => {
      const b = globalThis.__bench;
      if (b) b.arrived(msg);
      if (forward) send(msg);
      done();
    });
  }
  RED.nodes.registerType('bench-sink', BenchSink);
};
