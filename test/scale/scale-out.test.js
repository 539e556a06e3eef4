'use strict';
/**
 * Scale-out through an MQTT shared subscription: examples/iot-scale-out.json, as shipped, on two
 * Node-RED runtimes (two processes) against the Mosquitto at MQTT_URL (default
 * mqtt://127.0.0.1:1883) and the in-process fake MindsDB. 10,000 readings in → exactly 10,000
 * predictions out, none twice, and both runtimes did part of the work. The test keeps a window of
 * readings in flight, as a real sensor fleet publishes at its own pace.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const mqtt = require('mqtt');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { BROKER, iotScaleOutFlow } = require('../support/iot-flow');
const { deadline } = require('../support/wait');

const READINGS = 10_000;

function startRuntime(flowsFile, name) {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'support', 'red-process.mjs'), flowsFile], {
    env: { ...process.env, NODE_RED_INSTANCE: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`runtime ${name} exited (${code}) before it was ready`)));
    child.stdout.on('data', (d) => {
      if (String(d).includes('ready')) resolve();
    });
  });
  return { child, ready };
}

/** Publishes a marker on `topic` (subscribed by `client`) and resolves once it came back. */
async function afterEverything(client, topic) {
  const marker = crypto.randomBytes(8).toString('hex');
  const back = new Promise((resolve) => {
    const onMessage = (t, payload) => {
      if (t === topic && String(payload) === marker) {
        client.removeListener('message', onMessage);
        resolve();
      }
    };
    client.on('message', onMessage);
  });
  await client.publishAsync(topic, marker, { qos: 1 });
  await deadline(back, 10_000, `the end marker on ${topic}`);
}

describe('scale-out: two Node-RED runtimes share an MQTT stream', function () {
  this.timeout(120_000);
  const run = `mindsdb-test-${crypto.randomBytes(4).toString('hex')}`;
  let fake;
  let dir;
  let client;
  const runtimes = [];

  before(async () => {
    fake = await createFakeMindsDB().listen();
    fake.state.models.set('mindsdb/sensor_energy', { name: 'sensor_energy', predict: 'energy', status: 'complete' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-scale-'));
    const flowsFile = path.join(dir, 'flows.json');
    fs.writeFileSync(flowsFile, JSON.stringify(iotScaleOutFlow(run, fake.url)));
    client = await mqtt.connectAsync(BROKER, { clientId: `${run}-test`, reconnectPeriod: 0 }).catch((err) => {
      throw new Error(
        `this test needs an MQTT broker with shared subscriptions at ${BROKER} (MQTT_URL): ${err.message}`,
      );
    });
    for (const name of ['red-a', 'red-b']) runtimes.push(startRuntime(flowsFile, name));
    await Promise.all(runtimes.map((r) => r.ready));
  });

  const stopRuntimes = () =>
    Promise.all(
      runtimes.map(
        ({ child }) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              resolve();
              return;
            }
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );

  after(async () => {
    await stopRuntimes();
    if (client) await client.endAsync();
    if (fake) await fake.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`${READINGS.toLocaleString('en')} readings in, exactly as many predictions out, none twice, both runtimes busy`, async () => {
    const seen = new Map();
    const byInstance = new Map();
    let total = 0;
    let allIn;
    const arrived = new Promise((resolve) => {
      allIn = resolve;
    });
    // At most WINDOW readings in the pipeline: Mosquitto's default queue per client is 1,000
    // messages, and it drops QoS 1 messages beyond that rather than slow the publisher down.
    const WINDOW = 400;
    let published = 0;
    const publish = () => {
      const i = published++;
      client.publish(
        `${run}/sensors/s${i % 50}/reading`,
        JSON.stringify({ reading_id: i, sensor_id: `s${i % 50}`, temperature: 20 + (i % 10) }),
        { qos: 1 },
      );
    };
    client.on('message', (topic, payload) => {
      if (topic.endsWith('/end-marker')) return;
      const p = JSON.parse(String(payload));
      if (published < READINGS) publish();
      total++;
      seen.set(p.reading_id, (seen.get(p.reading_id) || 0) + 1);
      byInstance.set(p.instance, (byInstance.get(p.instance) || 0) + 1);
      if (total === READINGS) allIn();
    });
    await client.subscribeAsync(`${run}/predictions/#`, { qos: 1 });
    const t0 = Date.now();
    while (published < WINDOW) publish();
    await deadline(
      arrived,
      90_000,
      () => `${READINGS} predictions (${total} arrived: ${[...byInstance].map(([k, v]) => `${k}: ${v}`).join(', ')})`,
    );
    const seconds = (Date.now() - t0) / 1000;
    // A late duplicate would still be on its way: stop both runtimes, then send a marker after
    // everything they published; the broker hands a subscriber its messages in order, so once
    // the marker is here, so is every prediction.
    await stopRuntimes();
    await afterEverything(client, `${run}/predictions/end-marker`);
    assert.equal(total, READINGS, 'exactly one prediction per reading');
    assert.equal(seen.size, READINGS, 'every reading predicted');
    assert.ok(
      [...seen.values()].every((n) => n === 1),
      'no reading predicted twice',
    );
    assert.deepEqual([...byInstance.keys()].sort(), ['red-a', 'red-b']);
    for (const [name, n] of byInstance) assert.ok(n >= READINGS * 0.1, `runtime ${name} did ${n} of ${READINGS}`);
    assert.equal(
      fake.requestsTo('/projects/mindsdb/models/sensor_energy/predict').reduce((n, r) => n + r.body.data.length, 0),
      READINGS,
    );
    console.log(
      `      ${READINGS} readings in ${seconds.toFixed(1)} s: ${[...byInstance].map(([k, v]) => `${k} ${v}`).join(', ')}; ${fake.requestsTo('/projects/mindsdb/models/sensor_energy/predict').length} predict calls`,
    );
  });
});
