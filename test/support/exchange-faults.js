'use strict';
/**
 * Faults of the exchange (test code only): handlers for the fake MindsDB that answer one request
 * the way a misbehaving server or network does, a way to aim one at a given request, and a small
 * loopback server for what the fake cannot say. Used by the exchange-policy and fault-matrix suites.
 */
const http = require('node:http');
const { waitFor } = require('./wait');

/**
 * Queues `fault` for the first request that `matches` (the fake's entry: {method, path, body…});
 * requests before it are answered normally.
 */
function faultOn(fake, matches, fault) {
  const f = (req, res, entry) => {
    if (matches(entry)) return fault(req, res, entry);
    fake.state.faults.unshift(f);
    return false;
  };
  fake.fault(f);
}

/** Requests other than the public status probe (what a node asks for, not how it learns the version). */
const notStatus = (entry) => !entry.path.endsWith('/status');

/**
 * The request reaches the server and is carried out (the fake's own route runs and changes its
 * state), but the answer is lost: the connection drops instead.
 */
function lostAnswer(req, res) {
  res.writeHead = () => res;
  res.write = () => true;
  res.end = () => {
    req.socket.destroy();
    return res;
  };
  return false;
}

const FAULT_HANDLERS = {
  /** No answer at all; the socket is freed after 5 s. */
  'stall in headers': (req) => {
    setTimeout(() => req.socket.destroy(), 5000).unref();
  }, // fault: the socket is freed after 5 s
  /** A 200 and part of a body (of any shape the client reads), then nothing. */
  'stall mid-body': (req, res) => {
    const sse = /\/stream$/.test(req.url);
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    res.write(sse ? 'data: {"type": "start"' : '{"type": "table", "data": [[1], [2');
    setTimeout(() => req.socket.destroy(), 5000).unref(); // fault: the socket is freed after 5 s
  },
  /** A 500 whose body stops half-way (the server or a proxy hangs while writing its error). */
  'stall in an error body': (req, res) => {
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': 400 });
    res.write('{"title": "Internal Server Error", "detail": "the cause is somewh');
    setTimeout(() => req.socket.destroy(), 5000).unref(); // fault: the socket is freed after 5 s
  },
  /** The connection is reset before any answer (the request was not carried out). */
  reset: (req) => {
    req.socket.destroy();
  },
  /** 429 with Retry-After: 0 (retry now). */
  '429 + Retry-After': (_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
    res.end('{"title": "Too Many Requests", "detail": "slow down"}');
  },
  503: (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"title": "Service Unavailable", "detail": "busy"}');
  },
  'lost answer to a write': lostAnswer,
  /** A 307 to another host: never followed. */
  'redirect to nowhere': (_req, res) => {
    res.writeHead(307, { location: 'http://127.0.0.1:9/api/elsewhere' });
    res.end();
  },
  /** A 200 over the client's size limit (a 64 kB limit in the matrix): one huge row. */
  'oversized body': (req, res) => {
    const sse = /\/stream$/.test(req.url);
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    const big = 'x'.repeat(200 * 1024);
    res.end(sse ? `data: {"output": "${big}"}\n\n` : `{"type": "table", "data": [["${big}"]], "column_names": ["a"]}`);
  },
  /** A server-sent event over the size limit, after a first good one, never ending. */
  'oversized SSE event': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"type": "start"}\n\n');
    res.write(`data: {"output": "${'y'.repeat(200 * 1024)}`);
    setTimeout(() => req.socket.destroy(), 5000).unref(); // fault: the socket is freed after 5 s
  },
};

/** A loopback HTTP server answering with `handler(req, res, body)`; `close()` drops its sockets. */
async function serve(handler) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves when `test()` holds; rejects after `ms` (test/support/wait.js's waitFor). */
function until(test, ms = 5000, what = 'the condition') {
  return waitFor(test, { timeoutMs: ms, what });
}

module.exports = { faultOn, notStatus, lostAnswer, FAULT_HANDLERS, serve, until };
