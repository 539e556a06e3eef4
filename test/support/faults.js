'use strict';
/**
 * Fault handlers for the fake MindsDB (`fake.fault(handler, times)`): each answers one request
 * the way a broken network or server would. Test code only.
 */
const json = (status, body) => (req, res) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const FAULTS = {
  /** The connection is dropped before any answer. */
  'connection dropped': (req) => { req.socket.destroy(); },
  /** Headers and half a body, then the connection is reset. */
  'reset mid-body': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4000 });
    res.write('{"type":"table","column_names":["a"],"data":[[1],[2');
    setTimeout(() => req.socket.destroy(), 5);
  },
  /** No answer at all (past any timeout the tests use); the socket is freed after 3 s. */
  stall: (req) => { setTimeout(() => req.socket.destroy(), 3000).unref(); },
  'HTTP 500': json(500, { title: 'KeyError', detail: "'x'", message: "'x'" }),
  'HTTP 502': (req, res) => { res.writeHead(502, { 'content-type': 'text/html' }); res.end('<h1>502 Bad Gateway</h1>'); },
  'HTTP 503': json(503, { title: 'Service Unavailable', detail: 'busy' }),
  'HTTP 401 (expired session)': json(401, { title: 'Unauthorized', detail: 'Authorization is required to complete the request' }),
  'invalid JSON': (req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"type": "table", oops'); },
  /** 2 MB, over a 1 MB limit. */
  'body too large': (req, res) => {
    const big = JSON.stringify({ type: 'table', column_names: ['a'], data: [['x'.repeat(2 * 1024 * 1024)]] });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(big);
  },
  /** A server-sent event stream (or what a client takes for one) that breaks after its first event. */
  'stream broken after one event': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"type": "start", "prompt": "q"}\n\n');
    setTimeout(() => req.socket.destroy(), 5);
  },
  /** A slow but timely answer: must succeed. */
  'slow answer': () => new Promise((resolve) => setTimeout(() => resolve(false), 100)),
};

module.exports = { FAULTS };
