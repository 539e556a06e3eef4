'use strict';
/**
 * examples/iot-scale-out.json for a test run: its topics and shared-subscription group prefixed
 * with the run's name (parallel runs never meet), the broker and MindsDB URLs of the test, and
 * everything else as shipped. Test code only.
 */
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'iot-scale-out.json');
const BROKER = process.env.MQTT_URL || 'mqtt://127.0.0.1:1883';

function iotScaleOutFlow(run, mindsdbUrl, { broker = BROKER } = {}) {
  const url = new URL(broker);
  return JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')).map((n) => {
    if (n.type === 'mindsdb-server') return { ...n, url: mindsdbUrl };
    if (n.type === 'mqtt-broker') return { ...n, broker: url.hostname, port: url.port || '1883' };
    if (n.type === 'mqtt in')
      return {
        ...n,
        topic: n.topic.replace('$share/mindsdb-predictors/', `$share/g${run}/`).replace('sensors/', `${run}/sensors/`),
      };
    if (n.type === 'change')
      return { ...n, rules: n.rules.map((r) => (r.p === 'topic' ? { ...r, to: `${run}/${r.to}` } : r)) };
    return n;
  });
}

/** The topic a reading from `sensor` is published on, in this run. */
const readingTopic = (run, sensor) => `${run}/sensors/${sensor}/reading`;
/** Where the flow publishes its predictions, in this run (a filter for every one of them). */
const predictionTopics = (run) => `${run}/predictions/#`;

module.exports = { BROKER, EXAMPLE, iotScaleOutFlow, readingTopic, predictionTopics };
