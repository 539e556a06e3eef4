'use strict';
/**
 * Ports for tests that close a server and listen on its port again (a server that goes away and
 * comes back). A port from the kernel's ephemeral range can be taken in between as the local port
 * of an outgoing connection (this suite makes thousands, and CI runs the e2e and browser suites
 * beside it), and then the second listen fails with EADDRINUSE. So such a test takes a port below
 * that range, which only an explicit listen can take.
 */
const fs = require('node:fs');
const net = require('node:net');

/** The lowest port the kernel hands out for outgoing connections (Linux; 32768 elsewhere). */
function ephemeralLow() {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    /* not Linux: the IANA range's start below */
  }
  return 32768;
}

/** Resolves once `port` on loopback takes a listener (and frees it again), or false when it is in use. */
function canListen(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A loopback port that is free now and below the ephemeral range, so that no outgoing connection takes it. */
async function portBelowEphemeral() {
  const high = ephemeralLow() - 1000;
  const low = Math.max(1024, high - 8000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${low} and ${high}`);
}

/** A loopback URL where nothing listens (a port below the ephemeral range, free now). */
async function closedPortUrl() {
  return `http://127.0.0.1:${await portBelowEphemeral()}`;
}

module.exports = { closedPortUrl, portBelowEphemeral, ephemeralLow };
