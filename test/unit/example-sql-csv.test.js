'use strict';
/**
 * examples/sql-to-csv-file.json as shipped, against the fake MindsDB: every row reaches the CSV
 * file, in order, with one header line, and the sql node never has more than one part out
 * before the tick that the flow sends back.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { helper, node, coreNode, catchNode } = require('../support/nr');
const { waitFor } = require('../support/wait');

const ROWS = 5500;

describe('example: SQL → CSV → file with msg.tick', function () {
  this.timeout(20000);
  let fake;
  let dir;
  beforeEach(async () => {
    fake = await createFakeMindsDB({ version: '26.1.0' }).listen();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-example-'));
    await new Promise((r) => helper.startServer(r));
  });
  afterEach(async () => {
    await helper.unload();
    await new Promise((r) => helper.stopServer(r));
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes every row once, in order, one part at a time', async () => {
    fake.state.sql = () => ({
      type: 'table',
      column_names: ['sensor_id', 'temperature'],
      data: Array.from({ length: ROWS }, (_, i) => [i, 20 + (i % 10)]),
    });
    fake.state.jsonlinesBatch = 700;
    const file = path.join(dir, 'report.csv');
    const flow = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'sql-to-csv-file.json'), 'utf8'),
    ).map((n) => {
      if (n.type === 'mindsdb-server') return { ...n, url: fake.url };
      if (n.type === 'file') return { ...n, filename: file };
      return n;
    });
    // No report yet: the first run must create it (a delete of a missing file would fail it).
    const types = [
      node('mindsdb-server'),
      node('mindsdb-sql'),
      catchNode,
      coreNode('common/20-inject.js'),
      coreNode('common/21-debug.js'),
      coreNode('common/90-comment.js'),
      coreNode('storage/10-file.js'),
      coreNode('parsers/70-CSV.js'),
      coreNode('function/15-change.js'),
      coreNode('function/10-switch.js'),
      coreNode('function/10-function.js'),
    ];
    await helper.load(types, flow);

    // The sql node's parts and the ticks coming back, in order.
    const events = [];
    const sql = helper.getNode('sqlcsv-sql');
    const origSend = sql.send.bind(sql);
    sql.send = (m) => {
      events.push('part');
      return origSend(m);
    };
    sql.on('input', (m) => {
      if (m.tick) events.push('tick');
    });
    const errors = [];
    helper.getNode('sqlcsv-catch').on('input', (m) => errors.push(m.error));
    let completes = 0;
    helper.getNode('sqlcsv-last').on('input', (m) => {
      if (m.complete) completes++;
    });
    // The inject node sends its own configured payload (an empty report to start from).
    helper.getNode('sqlcsv-inject').receive({});
    // The last part is written (the file node sends it on after the write), and its tick is back.
    await waitFor(() => errors.length || (completes === 1 && events.filter((e) => e === 'tick').length === 6), {
      timeoutMs: 15000,
      what: () => `the report written (${events.join(' ')})`,
    });
    assert.deepEqual(errors, []);

    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    assert.equal(lines[0], 'sensor_id,temperature');
    assert.equal(lines.length, ROWS + 1);
    assert.deepEqual(
      lines.slice(1).map((l) => Number(l.split(',')[0])),
      Array.from({ length: ROWS }, (_, i) => i),
    );
    // one part out at a time: parts and ticks alternate
    assert.equal(events.filter((e) => e === 'part').length, 6);
    for (let i = 1; i < events.length; i++) assert.notEqual(events[i], events[i - 1], events.join(' '));

    // A second run starts the report afresh: the rows once, not twice.
    fs.appendFileSync(file, 'stale content\n');
    helper.getNode('sqlcsv-inject').receive({});
    await waitFor(() => completes === 2, { timeoutMs: 15000, what: 'the second report written' });
    assert.equal(fs.readFileSync(file, 'utf8').trim().split('\n').length, ROWS + 1);
  });
});
