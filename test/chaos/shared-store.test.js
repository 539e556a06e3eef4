'use strict';
/**
 * Issue 38's proof of the shared state store, against the real thing, on each MindsDB line (the chaos
 * suites' own servers, test/chaos/mindsdb-lines.js): Node-RED copies (the node-red binary, this package
 * linked in, each in its own process and user directory) run the same flows on one store, a PostgreSQL
 * cluster of this test's own (test/chaos/store-cluster.js: port PG_CLUSTER_PORT, default 25432, a password
 * asked over TCP), so that restarting it touches nothing else.
 *
 * 1. The outbox. An MQTT shared subscription (Mosquitto at MQTT_URL, a group and topics of this run) shares
 *    SHARED_READINGS readings between copies c1 and c2; each takes its share through the table node
 *    (micro-batched, outbox on, key column) into a PostgreSQL table (127.0.0.1:5432, database test, through
 *    a MindsDB data source). MindsDB is stopped; while it is away c1 is killed with SIGKILL once it holds
 *    every reading it took (kept in the store), its user directory is deleted (a replaced container), and it
 *    is never started again. When MindsDB is back, c2 sends its own backlog and c1's, which it takes over
 *    when c1's lease has expired; the store's PostgreSQL is restarted (as a crash: immediate) while it does.
 *    Then: the table holds every reading exactly once, none reached Catch on either copy, none had two
 *    outcomes, and a reading without an outcome is one whose output was lost with c1.
 *    The feed pauses before the kill and around the store's restart: a reading on its way from the MQTT node
 *    to the table node is Node-RED's, in memory, and a reading that arrives while the store is down cannot be
 *    kept and ends at Catch, as it must (docs/outbox.md).
 * 2. Incremental reads. Copies c3 and c4 run one sql node in incremental mode every second (flow control on)
 *    while 10,000 rows arrive in bursts: each row is sent once across the pair.
 * 3. Conversations. A conversation with an agent (on the LLM stand-in, test/support/llm-double.js, which
 *    records what MindsDB sends it) goes on from c3 to c4 and back: each request carries the turns of both.
 */
const assert = require('node:assert/strict');
const { execFile, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const mqtt = require('mqtt');
const { Pool } = require('pg');
const { startNodeRed } = require('../browser/harness');
const { startLlmDouble } = require('../support/llm-double');
const { startPgCluster } = require('./store-cluster');
const { waitFor, holdsFor } = require('../support/wait');
const { LINES, mindsdb, ensureLine, postgresSource } = require('./mindsdb-lines');

const BROKER = new URL(process.env.MQTT_URL || 'mqtt://127.0.0.1:1883');
const N = Number(process.env.SHARED_READINGS || 4000);
/** Readings a second, as a fleet of sensors sends them. */
const RATE = Number(process.env.SHARED_RATE || 250);
const INCREMENTAL_ROWS = 10_000;
const BURSTS = 10;
const PER_TIMESTAMP = 100;
/** The store's lease period: a dead copy's rows are taken over within two of them. */
const LEASE_SECONDS = 5;
/** The role the copies log in as, and its password (which must never appear in a log, a status or a msg). */
const STORE_USER = 'nodered';
const STORE_PASSWORD = `pw-${crypto.randomBytes(9).toString('hex')}`;
const SCHEMA = 'node_red_mindsdb';

const psqlArgs = (sql) => [
  '-h',
  '127.0.0.1',
  '-U',
  'postgres',
  '-d',
  'test',
  '-v',
  'ON_ERROR_STOP=1',
  '-qAt',
  '-c',
  sql,
];
const psql = (sql) => execFileSync('psql', psqlArgs(sql), { encoding: 'utf8', timeout: 60_000 });
const psqlAsync = (sql) =>
  new Promise((resolve, reject) =>
    execFile('psql', psqlArgs(sql), { timeout: 60_000 }, (err) => (err ? reject(err) : resolve())),
  );

/** The lines of a file, parsed as JSON (a line cut by a kill is skipped), or [] while it does not exist. */
function jsonLines(file) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((l) => {
    try {
      return l ? [JSON.parse(l)] : [];
    } catch {
      return [];
    }
  });
}

/** Node-RED tells flow nodes from config nodes by their position: every node on a tab gets one. */
const placed = (nodes) => nodes.map((n, i) => (n.z ? { x: 200, y: 40 * (i + 1), ...n } : n));

const fn = (id, z, name, code, wires) => ({
  id,
  z,
  type: 'function',
  name,
  func: code,
  outputs: 1,
  noerr: 0,
  initialize: '',
  finalize: '',
  libs: [],
  wires,
});

const fileOut = (id, z, filename, wires = []) => ({
  id,
  z,
  type: 'file',
  name: path.basename(filename),
  filename,
  filenameType: 'str',
  appendNewline: true,
  createDir: true,
  overwriteFile: 'false',
  encoding: 'none',
  wires,
});

/** The config nodes every copy has: the store, the MindsDB server on it, the broker (a client id per copy). */
function configNodes({ run, label, line, database, timeout }) {
  return [
    {
      id: 'store',
      type: 'mindsdb-state-store',
      name: 'proof store',
      url: `postgres://127.0.0.1:${process.env.PG_CLUSTER_PORT || 25432}/${database}`,
      schema: SCHEMA,
      tls: '',
      leaseSeconds: LEASE_SECONDS,
      forgetDays: 7,
      version: 1,
    },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: `MindsDB ${line.version}`,
      url: line.url,
      apiPrefix: '/api',
      authMode: 'none',
      timeout,
      retries: 2,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      stateStore: 'store',
      version: 1,
    },
    {
      id: 'broker',
      type: 'mqtt-broker',
      name: 'MQTT broker',
      broker: BROKER.hostname,
      port: BROKER.port || '1883',
      clientid: `${run}-${label}`,
      autoConnect: true,
      usetls: false,
      protocolVersion: 4,
      keepalive: 60,
      cleansession: true,
      autoUnsubscribe: true,
    },
  ];
}

/** Status lines of the nodes in `scope`: what each ring said, when (diagnostics, and the store's health). */
const statusLog = (z, scope, label, dir) => [
  { id: `${z}-status`, z, type: 'status', name: '', scope, wires: [[`${z}-status-line`]] },
  fn(
    `${z}-status-line`,
    z,
    'status line',
    `msg.payload = JSON.stringify({ copy: ${JSON.stringify(label)}, at: Date.now(), node: msg.status.source.id, text: msg.status.text, fill: msg.status.fill });\nreturn msg;`,
    [[`${z}-status-file`]],
  ),
  fileOut(`${z}-status-file`, z, path.join(dir, `${label}-status.log`)),
];

/**
 * The outbox flow of one copy: the shared subscription → the table node → a line per outcome (an output, or
 * an error at Catch from any node of the tab) in `<dir>/<label>.log`; ping → pong tells the test the copy is
 * subscribed.
 */
function outboxFlow({ run, label, line, database, dir, table, ds }) {
  const z = 'ob';
  return placed([
    { id: z, type: 'tab', label: 'readings through the outbox on the shared store' },
    ...configNodes({ run, label, line, database, timeout: 15_000 }),
    {
      id: 'readings',
      z,
      type: 'mqtt in',
      name: 'readings (shared)',
      topic: `$share/g${run}/${run}/readings`,
      qos: '1',
      datatype: 'json',
      broker: 'broker',
      nl: false,
      rap: true,
      rh: 0,
      inputs: 0,
      wires: [['id']],
    },
    {
      id: 'id',
      z,
      type: 'change',
      name: 'keep the id',
      rules: [{ t: 'set', p: 'reading_id', pt: 'msg', to: 'payload.reading_id', tot: 'msg' }],
      wires: [['table']],
    },
    {
      id: 'table',
      z,
      type: 'mindsdb-table',
      name: 'insert',
      server: 'srv',
      operation: 'insert',
      database: ds,
      databaseType: 'str',
      table,
      tableType: 'str',
      select: '',
      replace: false,
      batch: true,
      batchSize: 100,
      batchWindow: 50,
      keyColumn: 'reading_id',
      outbox: true,
      outboxSizeMB: 100,
      outboxMaxAgeH: 24,
      outputProperty: 'payload',
      version: 1,
      wires: [['ok']],
    },
    fn(
      'ok',
      z,
      'outcome line',
      `msg.payload = JSON.stringify({ copy: ${JSON.stringify(label)}, id: msg.reading_id, ok: true, replayed: !!msg.mindsdb.replayed, already: !!msg.mindsdb.alreadyStored });\nreturn msg;`,
      [['outcomes']],
    ),
    { id: 'catch', z, type: 'catch', name: 'every error', scope: null, uncaught: false, wires: [['err']] },
    fn(
      'err',
      z,
      'error line',
      `msg.payload = JSON.stringify({ copy: ${JSON.stringify(label)}, id: msg.reading_id, ok: false, node: msg.error && msg.error.source && msg.error.source.id, stored: msg.mindsdb && msg.mindsdb.stored, code: msg.mindsdbError && msg.mindsdbError.code, error: msg.error && msg.error.message });\nreturn msg;`,
      [['outcomes']],
    ),
    fileOut('outcomes', z, path.join(dir, `${label}.log`)),
    ...statusLog(z, ['table'], label, dir),
    {
      id: 'ping',
      z,
      type: 'mqtt in',
      name: 'ping',
      topic: `${run}/ping`,
      qos: '1',
      datatype: 'utf8',
      broker: 'broker',
      nl: false,
      rap: true,
      rh: 0,
      inputs: 0,
      wires: [['pong']],
    },
    {
      id: 'pong',
      z,
      type: 'mqtt out',
      name: 'pong',
      topic: `${run}/pong/${label}`,
      qos: '1',
      retain: 'false',
      broker: 'broker',
      wires: [],
    },
  ]);
}

/**
 * The flow of c3 and c4: an incremental sql node on a one-second schedule (its parts' ids appended to
 * `<dir>/<label>-incremental.log`, then a tick back), and an agent with memory behind POST /ask.
 */
function laterFlow({ run, label, line, database, dir, table, ds, agent }) {
  const z = 'later';
  return placed([
    { id: z, type: 'tab', label: 'incremental reads and conversations on the shared store' },
    ...configNodes({ run, label, line, database, timeout: 120_000 }).filter((n) => n.type !== 'mqtt-broker'),
    {
      id: 'every-second',
      z,
      type: 'inject',
      name: 'every second',
      props: [{ p: 'payload' }],
      repeat: '1',
      crontab: '',
      once: true,
      onceDelay: 0.2,
      topic: '',
      payload: '',
      payloadType: 'date',
      wires: [['incr']],
    },
    {
      id: 'incr',
      z,
      type: 'mindsdb-sql',
      name: 'new rows',
      server: 'srv',
      query: `SELECT id, ts, sensor, value FROM ${ds}.${table}`,
      database: '',
      databaseType: 'str',
      rowFormat: 'objects',
      split: true,
      rowsPerMsg: 500,
      partsAhead: 1,
      flowControl: true,
      incremental: true,
      watermarkColumn: 'ts',
      keyColumn: 'id',
      outputProperty: 'payload',
      version: 1,
      wires: [['incr-ids']],
    },
    fn('incr-ids', z, 'ids', 'msg.payload = msg.payload.map((r) => r.id).join("\\n");\nreturn msg;', [['incr-file']]),
    fileOut('incr-file', z, path.join(dir, `${label}-incremental.log`), [['tick']]),
    {
      id: 'tick',
      z,
      type: 'change',
      name: 'msg.tick = true',
      rules: [{ t: 'set', p: 'tick', pt: 'msg', to: 'true', tot: 'bool' }],
      wires: [['incr']],
    },
    {
      id: 'ask',
      z,
      type: 'http in',
      name: 'POST /ask',
      url: '/ask',
      method: 'post',
      upload: false,
      swaggerDoc: '',
      wires: [['ask-msg']],
    },
    {
      id: 'ask-msg',
      z,
      type: 'change',
      name: 'operation, topic, payload',
      rules: [
        { t: 'set', p: 'operation', pt: 'msg', to: 'payload.operation', tot: 'msg' },
        { t: 'set', p: 'topic', pt: 'msg', to: 'payload.topic', tot: 'msg' },
        { t: 'set', p: 'payload', pt: 'msg', to: 'payload.body', tot: 'msg' },
      ],
      wires: [['agent']],
    },
    {
      id: 'agent',
      z,
      type: 'mindsdb-agent',
      name: 'agent with memory',
      server: 'srv',
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: agent,
      itemNameType: 'str',
      streamMode: 'final',
      memory: true,
      conversationKey: 'topic',
      maxTurns: 20,
      idleMinutes: 60,
      historyOut: false,
      outputProperty: 'payload',
      version: 1,
      wires: [['answer']],
    },
    fn('answer', z, 'answer', 'msg.payload = { ok: true, answer: msg.payload };\nreturn msg;', [['reply']]),
    { id: 'catch', z, type: 'catch', name: 'every error', scope: null, uncaught: false, wires: [['err']] },
    fn(
      'err',
      z,
      'error line',
      `msg.payload = JSON.stringify({ copy: ${JSON.stringify(label)}, ok: false, node: msg.error && msg.error.source && msg.error.source.id, code: msg.mindsdbError && msg.mindsdbError.code, error: msg.error && msg.error.message });\nreturn msg;`,
      [['outcomes', 'err-reply']],
    ),
    fileOut('outcomes', z, path.join(dir, `${label}.log`)),
    fn(
      'err-reply',
      z,
      'error answer',
      'if (!msg.res) return null;\nmsg.statusCode = 500;\nmsg.payload = { ok: false, error: JSON.parse(msg.payload).error };\nreturn msg;',
      [['reply']],
    ),
    { id: 'reply', z, type: 'http response', name: '', statusCode: '', headers: {}, wires: [] },
    ...statusLog(z, ['incr', 'agent'], label, dir),
  ]);
}

describe('shared store: Node-RED copies on one PostgreSQL store, against real MindsDB', function () {
  this.timeout(600_000);
  let cluster;
  let llm;

  before(async () => {
    try {
      psql('SELECT 1');
    } catch (err) {
      throw new Error(`this test needs psql and the local PostgreSQL (127.0.0.1:5432, database test): ${err.message}`);
    }
    cluster = await startPgCluster();
    cluster.psql(`CREATE ROLE ${STORE_USER} LOGIN PASSWORD '${STORE_PASSWORD}'`);
    llm = await startLlmDouble();
  });

  after(async () => {
    await llm?.close();
    await cluster?.stop();
  });

  for (const line of LINES) {
    describe(`MindsDB ${line.version}`, () => {
      const run = `s38${crypto.randomBytes(3).toString('hex')}`;
      const database = `store_${line.version.replace(/\./g, '_')}_${run}`;
      const ds = `${run}_pg`;
      const readingsTable = `${run}_readings`;
      const rowsTable = `${run}_rows`;
      const agent = `${run}_agent`;
      const credentials = { store: { user: STORE_USER, password: STORE_PASSWORD } };
      const settings = { logging: { console: { level: 'info' } } };
      const reds = {};
      const log = (text) => console.log(`      [${line.version}] ${text}`);
      let dir;
      let store;
      let client;

      /** A copy: Node-RED on `flows` in a user directory of its own. */
      async function startCopy(label, flows) {
        reds[label] = await startNodeRed(flows, settings, credentials);
        return reds[label];
      }

      /** Throws when one of the copies `labels` has exited: a wait for its work would only time out. */
      function running(labels) {
        for (const label of labels) {
          const { child, output } = reds[label];
          if (child.exitCode !== null || child.signalCode !== null)
            throw new Error(
              `copy ${label} exited (${child.exitCode ?? child.signalCode}):\n${output.join('').split('\n').slice(-15).join('\n')}`,
            );
        }
      }

      /**
       * Each copy said it keeps its state in the shared store (not in its own file), and the store's password is in
       * no log line of any copy, nor in the test's files (every ring text the copies showed, every error text at
       * Catch).
       */
      function onTheSharedStore(labels) {
        for (const label of labels) {
          const output = reds[label].output.join('');
          assert.match(output, /\[mindsdb\] state is kept in the PostgreSQL store "proof store"/, `${label}'s log`);
          assert.ok(!output.includes(STORE_PASSWORD), `the store's password is in no log line of ${label}`);
        }
        for (const file of fs.readdirSync(dir))
          assert.ok(!fs.readFileSync(path.join(dir, file), 'utf8').includes(STORE_PASSWORD), `no password in ${file}`);
      }

      /** The store's rows, read as the postgres superuser (the test's view: the copies never see it). */
      async function storeQuery(sql, params = []) {
        return waitFor(
          async () => {
            try {
              return await store.query(sql, params);
            } catch {
              return undefined; // while the store's PostgreSQL restarts
            }
          },
          { timeoutMs: 60_000, intervalMs: 100, what: `the store to answer ${sql}` },
        );
      }

      let began;

      before(async () => {
        began = Date.now();
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-shared-store-'));
        cluster.psql(`CREATE DATABASE ${database} OWNER ${STORE_USER}`);
        store = new Pool({ host: cluster.dir, port: cluster.port, user: 'postgres', database, max: 2 });
        store.on('error', () => undefined); // an idle connection cut by the store's restart
        psql(
          `DROP TABLE IF EXISTS public.${readingsTable}; CREATE TABLE public.${readingsTable} (reading_id bigint, sensor text, temperature double precision);` +
            `DROP TABLE IF EXISTS public.${rowsTable}; CREATE TABLE public.${rowsTable} (id integer PRIMARY KEY, ts timestamp(6) NOT NULL, sensor text NOT NULL, value double precision NOT NULL)`,
        );
        const seconds = await ensureLine(line);
        if (seconds) log(`MindsDB started in ${seconds} s on ${line.url}`);
        await postgresSource(line, ds);
        client = await mqtt.connectAsync(BROKER.href, { clientId: `${run}-feeder`, reconnectPeriod: 0 });
      });

      afterEach(function () {
        if (this.currentTest?.state !== 'failed') return;
        for (const [label, red] of Object.entries(reds))
          console.log(`--- copy ${label}, last output:\n${red.output.join('').split('\n').slice(-40).join('\n')}`);
        console.log(`--- the store's PostgreSQL, last lines:\n${cluster.log().split('\n').slice(-20).join('\n')}`);
      });

      after(async () => {
        for (const red of Object.values(reds)) await red.stop().catch(() => undefined);
        await client?.endAsync().catch(() => undefined);
        await store?.end().catch(() => undefined);
        await fetch(`${line.url}/api/projects/mindsdb/agents/${agent}`, { method: 'DELETE' }).catch(() => undefined);
        await fetch(`${line.url}/api/databases/${ds}`, { method: 'DELETE' }).catch(() => undefined);
        for (const t of [readingsTable, rowsTable]) {
          try {
            psql(`DROP TABLE IF EXISTS public.${t}`);
          } catch {
            /* the report says it */
          }
        }
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        log(`this line's part of the suite took ${Math.round((Date.now() - began) / 1000)} s`);
      });

      /** The outbox's rows in the store: the reading ids it keeps, and how many are in a request. */
      async function kept() {
        const { rows } = await storeQuery(
          `SELECT (msg::jsonb #>> '{msg,reading_id}')::bigint AS id, sending FROM ${SCHEMA}.outbox`,
        );
        return { ids: rows.map((r) => Number(r.id)), sending: rows.filter((r) => r.sending).length };
      }

      it(`outbox: ${N.toLocaleString('en')} readings on two copies; one SIGKILLed during a MindsDB outage, its user directory deleted, never back; the store restarted once: every reading stored exactly once, none at Catch`, async () => {
        const started = Date.now();
        await Promise.all(
          ['c1', 'c2'].map((label) =>
            startCopy(label, outboxFlow({ run, label, line, database, dir, table: readingsTable, ds })),
          ),
        );
        await subscribed(['c1', 'c2']);
        const outcomes = () => [...jsonLines(path.join(dir, 'c1.log')), ...jsonLines(path.join(dir, 'c2.log'))];

        let published = 0;
        const stored = new Set();
        let keptNow = { ids: [], sending: 0 };
        /** Published readings that no copy has taken yet: in no outcome line, not kept in the store, not in the table. */
        async function untaken() {
          running(reds.c1.child.signalCode === 'SIGKILL' ? ['c2'] : ['c1', 'c2']);
          keptNow = await kept();
          const seen = new Set(outcomes().map((o) => o.id));
          for (const id of keptNow.ids) seen.add(id);
          const missing = [];
          for (let id = 0; id < published; id++) if (!seen.has(id) && !stored.has(id)) missing.push(id);
          if (missing.length > 0 && missing.length <= 5000) {
            const found = psql(
              `SELECT reading_id FROM public.${readingsTable} WHERE reading_id IN (${missing.join(',')})`,
            ).trim();
            for (const id of found.split('\n').filter(Boolean)) stored.add(Number(id));
          }
          return missing.filter((id) => !stored.has(id)).length;
        }
        let nextAt = 0;
        /** Publishes the next `count` readings at RATE a second, at most `ahead` beyond what the copies took. */
        async function feed(count, ahead = 400) {
          for (let left = Math.min(count, N - published); left > 0; ) {
            const ids = Array.from({ length: Math.min(50, left) }, () => published++);
            left -= ids.length;
            nextAt = Math.max(nextAt, Date.now());
            const at = nextAt;
            await waitFor(() => Date.now() >= at, { timeoutMs: 5000, intervalMs: 5, what: "the next readings' time" });
            nextAt += (ids.length / RATE) * 1000;
            await Promise.all(
              ids.map((id) =>
                client.publishAsync(
                  `${run}/readings`,
                  JSON.stringify({ reading_id: id, sensor: `s${id % 50}`, temperature: 20 + (id % 100) / 10 }),
                  { qos: 1 },
                ),
              ),
            );
            if (published % 200 === 0 || left === 0)
              await waitFor(async () => (await untaken()) <= ahead, {
                timeoutMs: 120_000,
                intervalMs: 50,
                what: () => `the copies to keep up (published ${published}, ${keptNow.ids.length} kept)`,
              });
          }
        }
        const everyTaken = (why) =>
          waitFor(async () => (await untaken()) === 0, {
            timeoutMs: 120_000,
            intervalMs: 50,
            what: () => `every published reading taken ${why}`,
          });

        await feed(Math.round(N * 0.25));
        // The outage: MindsDB stopped while readings go on.
        const beforeOutage = published;
        const stopping = mindsdb('stop', line);
        await feed(Math.round(N * 0.1));
        await stopping;
        log(`MindsDB stopped at reading ${published}`);
        await feed(Math.round(N * 0.15));
        // c1 holds its share of the backlog: killed, its user directory deleted, never started again.
        await everyTaken('before c1 is killed');
        const keptAtKill = keptNow.ids.length;
        // Who holds which kept reading at the kill (a copy's random id; c1's is the one whose lease runs out).
        const { rows: heldAtKill } = await storeQuery(
          `SELECT holder, (msg::jsonb #>> '{msg,reading_id}')::bigint AS id FROM ${SCHEMA}.outbox`,
        );
        const killed = await reds.c1.kill('SIGKILL');
        assert.equal(killed.signal, 'SIGKILL');
        fs.rmSync(reds.c1.userDir, { recursive: true, force: true });
        const killedAt = Date.now();
        log(`killed c1 with ${keptAtKill} readings kept in the store; its user directory deleted`);
        await feed(Math.round(N * 0.1));
        const starting = mindsdb('start', line, true);
        await feed(Math.round(N * 0.1));
        await starting;
        log(`MindsDB back at reading ${published}, ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);
        // c2 renewed its lease all along; c1's lease ended at the kill: the later lease is c2's.
        const { rows: copies } = await storeQuery(
          `SELECT id, lease_until > now() AS live FROM ${SCHEMA}.copy ORDER BY lease_until DESC`,
        );
        assert.deepEqual(
          copies.map((c) => c.live),
          [true, false],
          `c2's lease runs, c1's has run out: ${JSON.stringify(copies)}`,
        );
        const heldByC1 = heldAtKill.filter((r) => r.holder === copies[1].id).map((r) => Number(r.id));
        // The store's PostgreSQL restarted (as a crash) while c2 sends the backlog, the feed paused around it.
        await everyTaken('before the store restarts');
        const backlog = keptNow.ids.length;
        let atRestart;
        await waitFor(
          async () => {
            running(['c2']);
            atRestart = await kept();
            return atRestart.sending > 0;
          },
          {
            timeoutMs: 60_000,
            intervalMs: 10,
            what: () => `c2 to send the backlog (${keptNow.ids.length} of ${backlog} kept)`,
          },
        );
        await cluster.restart('immediate');
        log(
          `the store's PostgreSQL restarted with ${atRestart.ids.length} of ${backlog} readings kept, ${atRestart.sending} in a request`,
        );
        // c2 uses the store again (its backlog goes on) before readings come again.
        await waitFor(async () => running(['c2']) || (await kept()).ids.length < atRestart.ids.length, {
          timeoutMs: 120_000,
          intervalMs: 100,
          what: () => `c2 to go on after the store's restart (${keptNow.ids.length} kept)`,
        });
        await feed(N - published);
        assert.equal(published, N);

        const count = () => Number(psql(`SELECT count(*) FROM public.${readingsTable}`).trim());
        await waitFor(async () => running(['c2']) || ((await kept()).ids.length === 0 && count() >= N), {
          timeoutMs: 180_000,
          intervalMs: 500,
          what: () => `the end (${count()} rows, ${keptNow.ids.length} kept)`,
        });
        // A few seconds more: nothing more is stored (a late duplicate would show here).
        await holdsFor(() => count() === N, { forMs: 3000, intervalMs: 200, what: () => `${N} rows (${count()})` });

        const [rows, distinct, min, max] = psql(
          `SELECT count(*), count(DISTINCT reading_id), min(reading_id), max(reading_id) FROM public.${readingsTable}`,
        )
          .trim()
          .split('|')
          .map(Number);
        const all = outcomes();
        const byId = new Map();
        for (const o of all) byId.set(o.id, [...(byId.get(o.id) ?? []), o]);
        const errors = all.filter((o) => !o.ok);
        const twice = [...byId].filter(([, os]) => os.length > 1);
        const inTable = new Set(
          psql(`SELECT reading_id FROM public.${readingsTable}`).trim().split('\n').filter(Boolean).map(Number),
        );
        const noOutcome = Array.from({ length: N }, (_, i) => i).filter((i) => !byId.has(i));
        const summary = {
          seconds: Math.round((Date.now() - started) / 1000),
          rows,
          distinct,
          keptAtKill,
          heldByC1AtKill: heldByC1.length,
          backlogAfterOutage: backlog,
          keptAtStoreRestart: atRestart.ids.length,
          outputs: {
            c1: all.filter((o) => o.ok && o.copy === 'c1').length,
            c2: all.filter((o) => o.ok && o.copy === 'c2').length,
          },
          replayed: all.filter((o) => o.replayed).length,
          // readings published while MindsDB was up, before the outage: sent live, or through a backlog?
          replayedBeforeOutage: {
            c1: all.filter((o) => o.replayed && o.copy === 'c1' && o.id < beforeOutage).length,
            c2: all.filter((o) => o.replayed && o.copy === 'c2' && o.id < beforeOutage).length,
            of: beforeOutage,
          },
          alreadyStored: all.filter((o) => o.already).length,
          errors: errors.length,
          outcomeLostWithC1: noOutcome.length,
        };
        log(JSON.stringify(summary));
        if (rows !== distinct)
          log(
            `duplicates (id|count): ${psql(`SELECT reading_id, count(*) FROM public.${readingsTable} GROUP BY reading_id HAVING count(*) > 1 ORDER BY reading_id LIMIT 20`).trim().split('\n').join(', ')}`,
          );
        assert.equal(distinct, N, `every reading stored (${distinct} distinct of ${N})`);
        assert.equal(rows, N, `none stored twice (${rows} rows for ${distinct} readings)`);
        assert.deepEqual([min, max], [0, N - 1]);
        assert.deepEqual(errors.slice(0, 5), [], 'no reading reached Catch');
        assert.deepEqual(twice.slice(0, 5), [], 'no reading had two outcomes');
        assert.ok(
          noOutcome.every((id) => inTable.has(id)),
          'a reading without an outcome is stored (its output was lost with c1)',
        );
        assert.ok(summary.outputs.c1 > 0 && summary.outputs.c2 > 0, 'both copies took readings');
        assert.ok(heldByC1.length > 0, `c1 held readings when it was killed (${heldByC1.length} of ${keptAtKill})`);
        assert.deepEqual(
          heldByC1.filter((id) => !inTable.has(id) || (byId.get(id) ?? []).some((o) => o.copy !== 'c2')),
          [],
          "c2 took over c1's kept readings: each is stored, and its outcome is c2's",
        );
        onTheSharedStore(['c1', 'c2']);
        await reds.c2.stop();
      });

      /** The ids each copy's incremental node sent, in the order it sent them. */
      const sentBy = (label) => {
        try {
          return fs
            .readFileSync(path.join(dir, `${label}-incremental.log`), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map(Number);
        } catch {
          return [];
        }
      };
      const errorsOf = (labels) => labels.flatMap((l) => jsonLines(path.join(dir, `${l}.log`))).filter((o) => !o.ok);

      it(`incremental: two copies run one query every second over ${INCREMENTAL_ROWS.toLocaleString('en')} rows arriving in ${BURSTS} bursts: each row sent once across the pair`, async function () {
        const started = Date.now();
        // One after the other, so their one-second timers are out of step, as two machines' would be.
        for (const label of ['c3', 'c4'])
          await startCopy(label, laterFlow({ run, label, line, database, dir, table: rowsTable, ds, agent }));
        // The rows: bursts of a tenth, 0.7 to 1.7 s apart (a burst a second would lock step with the timers, and one
        // copy would read every burst), a hundred rows to a timestamp (so runs end inside a group of rows with the
        // same watermark, and the key orders them).
        const perBurst = INCREMENTAL_ROWS / BURSTS;
        const gaps = [700, 1500, 900, 1300, 1100, 1700, 800, 1400, 1000, 1200];
        let nextBurst = Date.now();
        for (let b = 0; b < BURSTS; b++) {
          const at = nextBurst;
          await waitFor(() => Date.now() >= at, { timeoutMs: 10_000, intervalMs: 20, what: 'the next burst' });
          nextBurst = Math.max(Date.now(), at) + gaps[b % gaps.length];
          await psqlAsync(
            `INSERT INTO public.${rowsTable} SELECT g, TIMESTAMP '2024-01-01' + ((g - 1) / ${PER_TIMESTAMP}) * INTERVAL '1 millisecond', 's' || (g % 7), g * 0.5 FROM generate_series(${b * perBurst + 1}, ${(b + 1) * perBurst}) g`,
          );
        }
        const all = () => [...sentBy('c3'), ...sentBy('c4')];
        // Until every row came and then three seconds (three runs of each copy) brought nothing more: a row
        // sent twice would show here.
        let seen = -1;
        let quietSince = Date.now();
        await waitFor(
          () => {
            const now = all().length;
            if (now !== seen) [seen, quietSince] = [now, Date.now()];
            return (now >= INCREMENTAL_ROWS || errorsOf(['c3', 'c4']).length > 0) && Date.now() - quietSince >= 3000;
          },
          {
            timeoutMs: 120_000,
            intervalMs: 100,
            what: () => `every row sent (${sentBy('c3').length} by c3, ${sentBy('c4').length} by c4)`,
          },
        );
        const summary = {
          seconds: Math.round((Date.now() - started) / 1000),
          c3: sentBy('c3').length,
          c4: sentBy('c4').length,
        };
        log(`incremental: ${JSON.stringify(summary)}`);
        assert.deepEqual(errorsOf(['c3', 'c4']).slice(0, 5), [], 'no error at Catch');
        const ids = all();
        const once = new Set(ids);
        assert.equal(ids.length, once.size, `no row sent twice (${ids.length - once.size} repeats)`);
        assert.deepEqual(
          [...once].sort((a, b) => a - b),
          Array.from({ length: INCREMENTAL_ROWS }, (_, i) => i + 1),
          'every row sent',
        );
        running(['c3', 'c4']);
        // Which copy read a burst is a race of the two timers: the split is said, not asserted (a copy whose run
        // waited for the other's lease reads nothing new; with positions of their own, each would send every row).
        this.test.title += ` [${summary.c3} rows sent by c3, ${summary.c4} by c4]`;
        for (const label of ['c3', 'c4']) {
          const own = sentBy(label);
          assert.ok(
            own.every((id, i) => i === 0 || id > own[i - 1]),
            `${label} sent its rows in (watermark, key) order`,
          );
        }
      });

      it('conversations: a conversation goes on from one copy to the other and back; each request carries the turns of both', async () => {
        for (const label of ['c3', 'c4'])
          if (!reds[label])
            await startCopy(label, laterFlow({ run, label, line, database, dir, table: rowsTable, ds, agent }));
        const ask = async (label, operation, topic, body) => {
          const res = await fetch(`${reds[label].url}ask`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ operation, topic, body }),
          });
          const answer = await res.json();
          assert.ok(answer.ok, `${label} ${operation}: ${JSON.stringify(answer)}`);
          return answer.answer;
        };
        /** The chat requests the LLM got that carry `question`, as text (26.x sends more than one per question). */
        const requestsWith = (question) =>
          llm.calls
            .filter((c) => c.path.endsWith('/chat/completions'))
            .map((c) => JSON.stringify(c.body.messages))
            .filter((t) => t.includes(question));
        /** Asserts that one of the requests for `question` carries every one of `texts` (earlier turns, answers). */
        const carried = (question, texts, what) => {
          const requests = requestsWith(question);
          assert.ok(requests.length > 0, `the LLM got "${question}"`);
          assert.ok(
            requests.some((t) => texts.every((x) => t.includes(x))),
            `${what}: no request for "${question}" carries ${JSON.stringify(texts)}:\n${requests.map((t) => t.slice(0, 600)).join('\n')}`,
          );
        };
        const asText = (answer) => JSON.stringify(answer).slice(1, -1);
        await ask('c3', 'create', undefined, {
          model: { provider: 'openai', model_name: 'gpt-4', api_key: 'sk-stand-in', base_url: llm.url },
        });
        const topic = `${run}-chat`;
        const answers = [];
        answers.push(await ask('c3', 'completions', topic, 'turn 1 on c3: remember apple'));
        answers.push(await ask('c4', 'completions', topic, 'turn 2 on c4: remember banana'));
        carried('remember banana', ['remember apple', asText(answers[0])], "c4's request carries c3's turn");
        answers.push(await ask('c3', 'completions', topic, 'turn 3 on c3: remember cherry'));
        carried(
          'remember cherry',
          ['remember apple', 'remember banana', asText(answers[1])],
          "c3's next request carries both turns and c4's answer",
        );
        // Another conversation on either copy carries none of it.
        await ask('c4', 'completions', `${run}-other`, 'another chat: remember damson');
        const leaked = requestsWith('remember damson').filter((t) =>
          ['remember apple', 'remember banana', 'remember cherry'].some((x) => t.includes(x)),
        );
        assert.deepEqual(leaked, [], 'another conversation carries none of the first');
        assert.deepEqual(errorsOf(['c3', 'c4']).slice(0, 5), [], 'no error at Catch');
        onTheSharedStore(['c3', 'c4']);
        log(`conversations: three turns across c3 and c4 (${answers.map((a) => JSON.stringify(a)).join(', ')})`);
      });

      /** Both copies' MQTT subscriptions are in place: each answered a ping. */
      async function subscribed(labels) {
        await client.subscribeAsync(`${run}/pong/#`, { qos: 1 });
        const ponged = new Set();
        const onPong = (topic) => {
          if (topic.startsWith(`${run}/pong/`)) ponged.add(topic.split('/').pop());
        };
        client.on('message', onPong);
        try {
          await waitFor(
            async () => {
              if (labels.every((l) => ponged.has(l))) return true;
              await client.publishAsync(`${run}/ping`, 'ping', { qos: 1 });
              return false;
            },
            { timeoutMs: 30_000, intervalMs: 300, what: () => `every copy subscribed (${[...ponged]})` },
          );
        } finally {
          client.removeListener('message', onPong);
        }
      }
    });
  }
});
