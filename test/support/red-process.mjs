// One Node-RED runtime in its own process, for tests that need several: this package installed
// (by symlink) in a temporary user directory, the flows from the JSON file given as argument.
// Prints "ready" once every node exists and every MQTT broker node is connected with every
// subscription acknowledged by the broker; stops on SIGTERM.
//   node test/support/red-process.mjs <flows.json>
import fs from 'node:fs';
import { startRed } from '../../bench/lib/red.mjs';
import wait from './wait.js';

const flows = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const red = await startRed(flows);
const brokers = flows.filter((n) => n.type === 'mqtt-broker').map((n) => n.id);
// Node-RED subscribes in the same turn as it marks a broker connected; mqtt.js keeps each
// SUBSCRIBE in `outgoing` until its SUBACK: so connected, subscribed and nothing outgoing means
// the broker has registered every subscription.
const subscribing = new Set(flows.filter((n) => n.type === 'mqtt in').map((n) => n.broker));
const subscribed = (id) => {
  const b = red.node(id);
  if (!b || !b.connected || !b.client) return false;
  return !subscribing.has(id) || (Object.keys(b.subscriptions || {}).length > 0 && Object.keys(b.client.outgoing || {}).length === 0);
};
try {
  await wait.waitFor(() => brokers.every(subscribed), { timeoutMs: 10000, what: 'every MQTT broker connected and subscribed' });
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
console.log('ready');
process.on('SIGTERM', () => { red.stop().finally(() => process.exit(0)); });
