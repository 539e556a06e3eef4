// One Node-RED runtime in its own process, for tests that need several: this package installed
// (by symlink) in a temporary user directory, the flows from the JSON file given as argument.
// Prints "ready" once every node exists and every MQTT broker node is connected; stops on SIGTERM.
//   node test/support/red-process.mjs <flows.json>
import fs from 'node:fs';
import { startRed } from '../../bench/lib/red.mjs';

const flows = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const red = await startRed(flows);
const brokers = flows.filter((n) => n.type === 'mqtt-broker').map((n) => n.id);
for (let i = 0; i < 500 && !brokers.every((id) => red.node(id)?.connected); i++) await new Promise((r) => setTimeout(r, 20));
if (!brokers.every((id) => red.node(id)?.connected)) { console.error('MQTT broker not connected'); process.exit(1); }
// The subscription is sent right after the connection: give the broker a moment to register it.
await new Promise((r) => setTimeout(r, 300));
console.log('ready');
process.on('SIGTERM', () => { red.stop().finally(() => process.exit(0)); });
