'use strict';
/**
 * The transport (HttpExchange on undici's dispatch API, controller interface), against a real HTTP
 * server that misbehaves in the ways a proxy or an overloaded MindsDB can: a body that trickles
 * past the deadline, a chunked body over the size limit, a redirect loop, a reset mid-body, a BOM
 * and multi-byte characters cut between chunks.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { HttpTransport } = require('../../nodes/client/exchange');
const { MindsDBClient } = require('../../nodes/client');
const { waitFor, holdsFor, flushDeliveries } = require('../support/wait');

describe('transport: one exchange, read whole or as it arrives', function () {
  let server;
  let transport;
  let handler;
  let origin;
  beforeEach(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      handler(req, res);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${server.address().port}`;
    transport = new HttpTransport({ origin, connections: 2 });
  });
  afterEach(async () => {
    await transport.close(0);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const exchange = (o = {}, maxBytes = 1024, mode = 'whole') => {
    const timeoutMs = o.timeoutMs ?? 2000;
    return new Promise((resolve, reject) =>
      transport.exchange(
        {
          method: 'POST',
          path: '/api/sql/query',
          headers: { 'content-type': 'application/json' },
          body: '{}',
          timeoutMs,
          deadlineAt: Date.now() + timeoutMs,
          ...o,
        },
        maxBytes,
        mode,
        { answered: resolve, opened: resolve, failed: reject },
      ),
    );
  };
  const send = (o, maxBytes) => exchange(o, maxBytes, 'whole');

  it('keeps one deadline for the whole exchange, even while the body keeps trickling in', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // fault: a byte every 20 ms, never idle for long: only a whole-exchange deadline ends it
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    };
    const t0 = Date.now();
    await assert.rejects(send({ timeoutMs: 150 }), (e) => e.kind === 'timeout' && /within 150 ms/.test(e.message));
    const took = Date.now() - t0;
    // the trickle never ends on its own: room for a loaded machine
    assert.ok(took >= 140 && took < 3000, `took ${took} ms`);
  });

  it('refuses a chunked body over the limit while it arrives, and the pool keeps working', async () => {
    let big = true;
    handler = (_req, res) => {
      if (!big) {
        res.end('{"ok":true}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
      for (let i = 0; i < 10; i++) res.write('x'.repeat(300));
      res.end();
    };
    await assert.rejects(send(), (e) => e.kind === 'too-large');
    big = false;
    assert.equal((await send()).text, '{"ok":true}');
  });

  it('refuses a declared content-length over the limit before reading the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': 5000 });
      res.end('y'.repeat(5000));
    };
    await assert.rejects(send(), (e) => e.kind === 'too-large');
  });

  it('reports an error answer over the limit by its status, its text cut at the limit', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<h1>Bad Gateway</h1>${'p'.repeat(5000)}`);
    }; // chunked, no content-length
    const res = await send();
    assert.equal(res.status, 502);
    assert.ok(res.text.startsWith('<h1>Bad Gateway</h1>') && res.text.length <= 1024, `${res.text.length} characters`);
  });

  it('follows at most 3 same-origin redirects, then hands back the last redirect answer', async () => {
    const paths = [];
    handler = (req, res) => {
      paths.push(req.url);
      res.writeHead(307, { location: `/hop${paths.length}` });
      res.end('moved');
    };
    const res = await send();
    assert.equal(res.status, 307);
    assert.deepEqual(paths, ['/api/sql/query', '/hop1', '/hop2', '/hop3']);
  });

  it('sends a redirected POST again with its method, body and headers', async () => {
    const seen = [];
    handler = (req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({ url: req.url, method: req.method, body, auth: req.headers.authorization });
        if (req.url === '/api/sql/query') {
          res.writeHead(308, { location: '/api/sql/query/' });
          res.end();
          return;
        }
        res.end('{"type":"ok"}');
      });
    };
    const res = await send({
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"query":"SELECT 1"}',
    });
    assert.equal(res.text, '{"type":"ok"}');
    assert.deepEqual(seen[1], {
      url: '/api/sql/query/',
      method: 'POST',
      body: '{"query":"SELECT 1"}',
      auth: 'Bearer t',
    });
  });

  it('reports a connection reset in the middle of the body as a network error', async () => {
    handler = (req, res) => {
      res.writeHead(200, { 'content-length': 1000 });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20); // fault: the reset comes after the partial body has left
    };
    await assert.rejects(send(), (e) => e.kind === 'network' && /reset|closed|socket/i.test(e.message));
  });

  it('decodes UTF-8 cut between chunks whole, without a leading BOM', async () => {
    const bytes = Buffer.from('\ufeff{"t":"ü温😀"}', 'utf8');
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let i = 0;
      const next = () => {
        if (i >= bytes.length) {
          res.end();
          return;
        }
        res.write(bytes.subarray(i, i + 1));
        i++;
        setImmediate(next);
      }; // fault: one byte per write
      next();
    };
    const res = await send({}, 4096);
    assert.equal(res.text, '{"t":"ü温😀"}');
    assert.deepEqual(JSON.parse(res.text), { t: 'ü温😀' });
  });

  it('times out a request still waiting for a free connection, at its own deadline', async () => {
    const held = [];
    handler = (_req, res) => {
      held.push(res);
    };
    // both connections taken until the test ends them
    const busy = [send({ timeoutMs: 10000 }), send({ timeoutMs: 10000 })];
    const t0 = Date.now();
    await assert.rejects(send({ timeoutMs: 100 }), (e) => e.kind === 'timeout');
    assert.ok(
      Date.now() - t0 < 2500,
      `failed after ${Date.now() - t0} ms: at its own deadline, not when a connection came free`,
    );
    for (const res of held) res.end('{}');
    await Promise.allSettled(busy);
  });

  it('drops an oversized error answer of a streamed query without an uncaught error', async () => {
    handler = (req, res) => {
      if (req.url === '/api/status') {
        res.end('{"mindsdb_version":"26.1.0"}');
        return;
      }
      res.writeHead(500, { 'content-length': 5000, 'content-type': 'application/json' });
      res.end('z'.repeat(5000));
    };
    const client = new MindsDBClient({ baseUrl: origin, maxResponseBytes: 1024, retries: 0 });
    try {
      await assert.rejects(client.sqlStream({ query: 'SELECT 1' }), (e) => e.status === 500);
      // an 'error' without a listener would surface while the dropped answer's socket closes
      await waitFor(() => new Promise((resolve) => server.getConnections((_, n) => resolve(n === 0))), {
        what: "the dropped answer's connection closed",
      });
      await flushDeliveries();
    } finally {
      await client.close(0);
    }
  });

  it('hands a streamed 2xx body over as it arrives, under the deadline for the whole stream', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      const timer = setInterval(() => res.write('data: more\n\n'), 20); // fault: the stream never ends
      res.on('close', () => clearInterval(timer));
    };
    const res = await exchange({ timeoutMs: 300 }, 1024, 'stream');
    assert.equal(res.status, 200);
    const t0 = Date.now();
    await assert.rejects(
      (async () => {
        for await (const _chunk of res.body) {
          /* read on */
        }
      })(),
      (e) => e.kind === 'timeout' && /within 300 ms/.test(e.message),
    );
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
    res.release();
  });

  it('ends the deadline of a paced stream once it started: a reader under flow control may wait', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('first');
      setTimeout(() => res.end('last'), 400);
    }; // fault: the rest comes after the 150 ms deadline
    const res = await exchange({ timeoutMs: 150 }, 1024, 'paced');
    let text = '';
    for await (const chunk of res.body) text += chunk;
    assert.equal(text, 'firstlast');
    res.release();
  });

  it('reads an error answer of a streamed request whole, and reports its status', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"title":"busy"}');
    };
    const res = await exchange({}, 1024, 'stream');
    assert.equal(res.status, 503);
    assert.equal(res.text, '{"title":"busy"}');
  });

  it('stops reading a streamed body nobody reads (the socket is paused), and aborts it when released', async () => {
    let written = 0;
    let blocked = false;
    let closed = false;
    handler = (_req, res) => {
      res.writeHead(200);
      const chunk = 'z'.repeat(64 * 1024);
      const pump = () => {
        while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 64 * 1024 * 1024) {
          blocked = true;
          res.once('drain', () => {
            blocked = false;
            written += chunk.length;
            pump();
          });
        }
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    };
    const res = await exchange({ timeoutMs: 10000 }, 1024, 'paced');
    await waitFor(() => blocked, { what: "the server's writes blocked by a reader that reads nothing" });
    // An eager reader would drain the socket within milliseconds; this one stays blocked.
    await holdsFor(() => blocked, { forMs: 300, what: "the server's writes blocked" });
    assert.ok(written < 16 * 1024 * 1024, `the server wrote ${written} bytes to a reader that read none`);
    res.release();
    await waitFor(() => closed, { what: "the released answer's request ended" });
  });
});
