'use strict';
/**
 * A TCP proxy in front of a PostgreSQL, for the one fault a real server cannot be asked for: a
 * statement that the server committed, whose answer never reaches the client (a restart or a
 * broken network right after the commit). `dropAnswerOf('INSERT 0 3')` cuts the connection that carries
 * the next CommandComplete for that command, before the client sees it; the server has committed.
 */
const net = require('node:net');

function pgProxy(target) {
  let drop;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      // CommandComplete: 'C', length, the command tag ("INSERT 0 3", "DELETE 3") and a zero byte
      if (drop && chunk.includes(Buffer.from(`${drop.tag}\u0000`))) {
        const done = drop.resolve;
        drop = undefined;
        client.destroy(); // fault: the answer of a committed statement is lost
        upstream.destroy();
        done();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  return {
    listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
    /** Resolves once the answer of the next statement with this whole tag ("INSERT 0 3") was dropped. */
    dropAnswerOf(tag) {
      return new Promise((resolve) => {
        drop = { tag, resolve };
      });
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

module.exports = { pgProxy };
