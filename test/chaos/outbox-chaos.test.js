'use strict';
/**
 * Issue 31's proof of the outbox, against the real thing: a MindsDB of each supported line of our
 * own (scripts/mindsdb-local.sh, on MINDSDB_CHAOS_PORT / MINDSDB_CHAOS_26_PORT, storage kept across
 * its restarts as an upgrade keeps it; shared with test/chaos/shared-store.test.js through
 * test/chaos/mindsdb-lines.js), the local PostgreSQL (database `test`, through a MindsDB
 * data source) and Mosquitto (MQTT_URL). Two Node-RED processes (the node-red binary, this package
 * linked in) take the same MQTT stream of readings into a PostgreSQL table each, through the table
 * node with micro-batching: A with the outbox on and a key column, B with the outbox off.
 *
 * 20,000 readings (CHAOS_READINGS), 400 a second (CHAOS_RATE), are published while MindsDB is stopped and started three
 * times, and A is killed with SIGKILL twice and started again on its user directory: once while it sends the backlog
 * after an outage, once while it sends a burst live. Then:
 * - A's table holds every reading exactly once (20,000 rows, 20,000 distinct ids, no duplicate);
 *   no reading reached Catch; no reading had two outcomes; a reading without an outcome is one
 *   whose output was on its way out of the table node when Node-RED was killed, and is stored;
 * - B's table holds no duplicate, and every reading missing from it is exactly one error at Catch
 *   (B is never killed: a killed Node-RED reports nothing for what it held, which is what A's
 *   outbox is for).
 *
 * A is killed only when every published reading has reached its table node (kept on disk or
 * ended): the readings on their way from the MQTT node to the table node are Node-RED's (its MQTT
 * client acknowledges a reading when it receives it), and no node can keep what it never got. So
 * the feed pauses before each kill, and A's broker session is persistent (what is published while
 * it restarts waits at the broker). docs/outbox.md says what is and is not guaranteed.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const mqtt = require('mqtt');
const { startNodeRed } = require('../browser/harness');
const { waitFor } = require('../support/wait');

const { LINES, mindsdb, ensureLine, postgresSource } = require('./mindsdb-lines');

const BROKER = new URL(process.env.MQTT_URL || 'mqtt://127.0.0.1:1883');
const N = Number(process.env.CHAOS_READINGS || 20_000);
/**
 * Readings a second (CHAOS_RATE), as a fleet of sensors sends them; the test lasts about N / RATE s plus four starts of
 * MindsDB.
 */
const RATE = Number(process.env.CHAOS_RATE || 400);

const psql = (sql) =>
  execFileSync(
    'psql',
    ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql],
    { encoding: 'utf8', timeout: 60_000 },
  );

/** The flow of one runtime: MQTT readings → the table node → a line per outcome in `outcomes`. */
function chaosFlow({ run, label, mindsdbUrl, table, outbox, outcomes }) {
  // Node-RED tells flow nodes from config nodes by their position: every node on the tab gets one.
  const fn = (id, code, wires) => ({
    id,
    z: 't',
    type: 'function',
    name: `outcome line (${id})`,
    func: code,
    outputs: 1,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    wires,
  });
  const nodes = [
    { id: 't', type: 'tab', label: `chaos ${label}` },
    {
      id: 'srv',
      type: 'mindsdb-server',
      name: 'chaos MindsDB',
      url: mindsdbUrl,
      apiPrefix: '/api',
      authMode: 'none',
      timeout: 15000,
      retries: 2,
      retryPost: false,
      maxInFlight: 8,
      maxQueue: 1000,
      maxResponseMB: 64,
      tls: '',
      version: 1,
    },
    // A persistent session: what is published while this runtime restarts waits at the broker.
    {
      id: 'broker',
      type: 'mqtt-broker',
      name: 'chaos broker',
      broker: BROKER.hostname,
      port: BROKER.port || '1883',
      clientid: `${run}-${label}`,
      autoConnect: true,
      usetls: false,
      protocolVersion: 4,
      keepalive: 60,
      cleansession: false,
      autoUnsubscribe: false,
    },
    {
      id: 'in',
      z: 't',
      type: 'mqtt in',
      name: 'readings',
      topic: `${run}/readings`,
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
      z: 't',
      type: 'change',
      name: 'keep the id',
      rules: [{ t: 'set', p: 'reading_id', pt: 'msg', to: 'payload.reading_id', tot: 'msg' }],
      wires: [['table']],
    },
    {
      id: 'table',
      z: 't',
      type: 'mindsdb-table',
      name: 'insert',
      server: 'srv',
      operation: 'insert',
      database: 'chaos_pg',
      databaseType: 'str',
      table,
      tableType: 'str',
      select: '',
      replace: false,
      batch: true,
      batchSize: 100,
      batchWindow: 50,
      keyColumn: outbox ? 'reading_id' : '',
      outbox,
      outboxSizeMB: 100,
      outboxMaxAgeH: 24,
      outputProperty: 'payload',
      version: 1,
      wires: [['ok']],
    },
    fn(
      'ok',
      'msg.payload = JSON.stringify({ id: msg.reading_id, ok: true, stored: msg.mindsdb.stored, replayed: !!msg.mindsdb.replayed, already: !!msg.mindsdb.alreadyStored });\nreturn msg;',
      [['file']],
    ),
    { id: 'catch', z: 't', type: 'catch', name: '', scope: ['table'], uncaught: false, wires: [['err']] },
    fn(
      'err',
      'msg.payload = JSON.stringify({ id: msg.reading_id, ok: false, stored: msg.mindsdb && msg.mindsdb.stored, code: msg.mindsdbError && msg.mindsdbError.code, error: msg.error && msg.error.message });\nreturn msg;',
      [['file']],
    ),
    {
      id: 'file',
      z: 't',
      type: 'file',
      name: 'outcomes',
      filename: outcomes,
      filenameType: 'str',
      appendNewline: true,
      createDir: true,
      overwriteFile: 'false',
      encoding: 'none',
      wires: [],
    },
    // ping → pong: the test knows the runtime is subscribed before it publishes readings
    {
      id: 'ping',
      z: 't',
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
      z: 't',
      type: 'mqtt out',
      name: 'pong',
      topic: `${run}/pong/${label}`,
      qos: '1',
      retain: 'false',
      broker: 'broker',
      wires: [],
    },
  ];
  return nodes.map((n, i) => (n.z ? { x: 200, y: 40 * (i + 1), ...n } : n));
}

/** The outcome lines of a runtime, parsed (a line cut by a kill is skipped). */
function outcomesOf(file) {
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

/**
 * What A's outbox holds now (the store file in its user directory, read while A runs): counts, and the readings' ids.
 */
function outboxOf(userDir) {
  const file = path.join(userDir, 'node-red-mindsdb.sqlite');
  if (!fs.existsSync(file)) return { kept: 0, sending: 0, ids: [] };
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT sending, json_extract(msg, '$.msg.reading_id') AS id FROM outbox").all();
    return {
      kept: rows.length,
      sending: rows.filter((r) => r.sending === 1).length,
      ids: rows.map((r) => Number(r.id)),
    };
  } catch {
    return { kept: 0, sending: 0, ids: [] };
  } finally {
    db.close();
  }
}

for (const line of LINES) {
  describe(`chaos: ${N.toLocaleString('en')} readings through the table node while MindsDB ${line.version} is stopped and started three times and Node-RED is killed twice`, function () {
    this.timeout(900_000);
    const run = `o31c${crypto.randomBytes(3).toString('hex')}`;
    const mindsdbUrl = `http://127.0.0.1:${line.port}`;
    const tables = { a: `${run}_on`, b: `${run}_off` };
    let dir;
    let client;
    const reds = {};
    let published = 0;
    const kills = [];
    const log = (text) => console.log(`      [${line.version}] ${text}`);

    before(async function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mindsdb-chaos-'));
      try {
        psql('SELECT 1');
      } catch (err) {
        throw new Error(
          `this test needs psql and the local PostgreSQL (127.0.0.1:5432, database test): ${err.message}`,
        );
      }
      for (const t of Object.values(tables))
        psql(
          `DROP TABLE IF EXISTS public.${t}; CREATE TABLE public.${t} (reading_id bigint, sensor text, temperature double precision)`,
        );
      const seconds = await ensureLine(line);
      if (seconds) log(`MindsDB started in ${seconds} s on ${mindsdbUrl}`);
      await postgresSource(line, 'chaos_pg');
      client = await mqtt.connectAsync(BROKER.href, { clientId: `${run}-feeder`, reconnectPeriod: 0 });
      for (const label of ['a', 'b']) {
        const flow = chaosFlow({
          run,
          label,
          mindsdbUrl,
          table: tables[label],
          outbox: label === 'a',
          outcomes: path.join(dir, `${label}.log`),
        });
        reds[label] = await startNodeRed(flow, { logging: { console: { level: 'info' } } });
      }
      await client.subscribeAsync(`${run}/pong/#`, { qos: 1 });
      const ponged = new Set();
      client.on('message', (topic) => {
        if (topic.startsWith(`${run}/pong/`)) ponged.add(topic.split('/').pop());
      });
      await waitFor(
        async () => {
          if (ponged.size === 2) return true;
          await client.publishAsync(`${run}/ping`, 'ping', { qos: 1 });
          return false;
        },
        { timeoutMs: 30_000, intervalMs: 300, what: () => `both runtimes subscribed (${[...ponged]})` },
      );
    });

    afterEach(function () {
      // a failed run says what each runtime logged last
      if (this.currentTest?.state !== 'failed') return;
      for (const [label, red] of Object.entries(reds))
        console.log(
          `--- runtime ${label}, last output:\n${(red?.output ?? []).join('').split('\n').slice(-40).join('\n')}`,
        );
    });

    after(async () => {
      for (const red of Object.values(reds)) await red?.stop().catch(() => undefined);
      await client?.endAsync().catch(() => undefined);
      // A's persistent session at the broker: forgotten, as a clean session of the same client
      const cleaner = await mqtt
        .connectAsync(BROKER.href, { clientId: `${run}-a`, clean: true, reconnectPeriod: 0 })
        .catch(() => undefined);
      await cleaner?.endAsync().catch(() => undefined);
      for (const t of Object.values(tables)) {
        try {
          psql(`DROP TABLE IF EXISTS public.${t}`);
        } catch {
          /* the report says it */
        }
      }
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    const outcomes = (label) => outcomesOf(path.join(dir, `${label}.log`));
    /** Readings found stored in A's table (once found, stored for good). */
    const inTableA = new Set();
    /**
     * Readings published that A has not taken yet. A reading A took is kept in its outbox, or stored
     * in its table (its row goes from the outbox only after MindsDB stored it), or both for a moment;
     * its outcome line may be lost with a killed Node-RED, its row never. So: the published ids in
     * neither A's outcome lines nor its outbox, looked up in its table.
     */
    function untakenByA() {
      const seen = new Set(outcomes('a').map((o) => o.id));
      for (const id of outboxOf(reds.a.userDir).ids) seen.add(id);
      const missing = [];
      for (let id = 0; id < published; id++) if (!seen.has(id) && !inTableA.has(id)) missing.push(id);
      if (missing.length > 0 && missing.length <= 5000) {
        const found = psql(
          `SELECT reading_id FROM public.${tables.a} WHERE reading_id IN (${missing.join(',')})`,
        ).trim();
        for (const id of found.split('\n').filter(Boolean)) inTableA.add(Number(id));
      }
      return missing.filter((id) => !inTableA.has(id)).length;
    }

    /**
     * Publishes the next `count` readings at the sensors' pace (RATE a second; `ahead` = N: a burst,
     * as fast as the broker takes them), at most `ahead` beyond what both runtimes have taken.
     */
    let nextAt = 0;
    async function feed(count, ahead = 500) {
      for (let left = count; left > 0; ) {
        const ids = Array.from({ length: Math.min(50, left, N - published) }, () => published++);
        if (ids.length === 0) return;
        left -= ids.length;
        if (ahead < N) {
          nextAt = Math.max(nextAt, Date.now());
          const at = nextAt;
          await waitFor(() => Date.now() >= at, { timeoutMs: 5000, intervalMs: 5, what: "the next readings' time" });
          nextAt += (ids.length / RATE) * 1000;
        }
        await Promise.all(
          ids.map((id) =>
            client.publishAsync(
              `${run}/readings`,
              JSON.stringify({ reading_id: id, sensor: `s${id % 50}`, temperature: 20 + (id % 100) / 10 }),
              { qos: 1 },
            ),
          ),
        );
        await waitFor(() => Math.max(untakenByA(), published - outcomes('b').length) <= ahead, {
          timeoutMs: 120_000,
          intervalMs: 50,
          what: () =>
            `the runtimes to keep up (published ${published}, A has not taken ${untakenByA()}, B ended ${outcomes('b').length})`,
        });
      }
    }

    /**
     * Kills A with SIGKILL once it has taken every published reading and `when` holds; starts it again on the same user
     * directory.
     */
    async function killA(why, when, readyWithinMs = 120_000) {
      await waitFor(() => untakenByA() === 0, {
        timeoutMs: 120_000,
        intervalMs: 20,
        what: () => `A to take every reading before it is killed ${why} (${untakenByA()} not yet)`,
      });
      await waitFor(() => when(outboxOf(reds.a.userDir)), {
        timeoutMs: readyWithinMs,
        intervalMs: 2,
        what: () => `A ready to be killed ${why} (${JSON.stringify({ ...outboxOf(reds.a.userDir), ids: undefined })})`,
      });
      const o = outboxOf(reds.a.userDir);
      const at = { kept: o.kept, sending: o.sending };
      const killed = await reds.a.kill('SIGKILL');
      assert.equal(killed.signal, 'SIGKILL');
      kills.push({ why, ...at, outcomesBefore: outcomes('a').length });
      log(`killed A ${why}: ${at.kept} kept, ${at.sending} in a request`);
      reds.a = await reds.a.restart();
    }

    async function outage(n, count) {
      await mindsdb('stop', line);
      log(`MindsDB stopped (${n}/3) at reading ${published}`);
      await feed(Math.floor(count / 2));
      const t0 = Date.now();
      const starting = mindsdb('start', line, true);
      await feed(count - Math.floor(count / 2)); // the readings go on while it starts
      await starting;
      log(
        `MindsDB started again (${n}/3) in ${Math.round((Date.now() - t0) / 1000)} s, at reading ${published}; A keeps ${outboxOf(reds.a.userDir).kept}`,
      );
    }

    it('with the outbox, PostgreSQL ends with every reading exactly once and the outcomes add up; without it, every missing reading is one error at Catch', async () => {
      const part = (share) => Math.round(N * share);
      const started = Date.now();
      await feed(part(0.1));
      await outage(1, part(0.2));
      // killed while it sends the backlog kept during the outage
      await killA('while it sends the backlog after an outage', (o) => o.sending > 0);
      // a burst, killed while it goes out live: once the backlog is sent (its lookups of what the
      // kill left in doubt wait the server's timeout first), what comes is sent at once
      await waitFor(() => outboxOf(reds.a.userDir).kept === 0, {
        timeoutMs: 120_000,
        intervalMs: 200,
        what: () => `A's backlog sent (${outboxOf(reds.a.userDir).kept} kept)`,
      });
      // A burst can be sent whole before A is seen with rows in a request (a fast MindsDB, a busy test process):
      // then another, smaller one (the readings come out of the later phases: N stays the total).
      for (let burst = 1; ; burst++) {
        await feed(part(burst === 1 ? 0.15 : 0.05), N);
        try {
          await killA('while it sends a burst live', (o) => o.sending > 0, burst < 3 ? 15_000 : 120_000);
          break;
        } catch (err) {
          if (burst >= 3 || !/ready to be killed/.test(err.message)) throw err;
          log(`burst ${burst} was sent before A could be killed in it: another burst`);
        }
      }
      await outage(2, part(0.2));
      await feed(part(0.15));
      await outage(3, part(0.2));
      await feed(N - published);
      assert.equal(published, N);

      const countA = () => Number(psql(`SELECT count(*) FROM public.${tables.a}`).trim());
      await waitFor(() => outcomes('b').length >= N && outboxOf(reds.a.userDir).kept === 0 && countA() >= N, {
        timeoutMs: 300_000,
        intervalMs: 500,
        what: () =>
          `the end (A: ${countA()} rows, ${outboxOf(reds.a.userDir).kept} kept; B: ${outcomes('b').length} outcomes)`,
      });
      const seconds = Math.round((Date.now() - started) / 1000);

      // A, the outbox on: every reading exactly once in PostgreSQL
      const [rowsA, distinctA, minA, maxA] = psql(
        `SELECT count(*), count(DISTINCT reading_id), min(reading_id), max(reading_id) FROM public.${tables.a}`,
      )
        .trim()
        .split('|')
        .map(Number);
      const a = outcomes('a');
      const aIds = new Map();
      for (const o of a) aIds.set(o.id, (aIds.get(o.id) ?? 0) + 1);
      const twice = [...aIds].filter(([, n]) => n > 1).map(([id]) => id);
      const aErrors = a.filter((o) => !o.ok);
      const noOutcome = Array.from({ length: N }, (_, i) => i).filter((i) => !aIds.has(i));
      const stored = new Set(psql(`SELECT reading_id FROM public.${tables.a}`).trim().split('\n').map(Number));
      const summary = {
        seconds,
        kills,
        a: {
          rows: rowsA,
          distinct: distinctA,
          outputs: a.length - aErrors.length,
          errors: aErrors.length,
          replayed: a.filter((o) => o.replayed).length,
          alreadyStored: a.filter((o) => o.already).length,
          outcomeLostInKill: noOutcome.length,
        },
      };
      if (rowsA !== distinctA) {
        // what a duplicate was: its ids, and what A said of them
        const dup = psql(
          `SELECT reading_id, count(*) FROM public.${tables.a} GROUP BY reading_id HAVING count(*) > 1 ORDER BY reading_id LIMIT 20`,
        ).trim();
        log(
          `duplicates (id|count): ${dup.split('\n').join(', ')}; their outcomes: ${JSON.stringify(
            a.filter((o) =>
              dup
                .split('\n')
                .map((l) => Number(l.split('|')[0]))
                .includes(o.id),
            ),
          )}`,
        );
      }
      assert.equal(distinctA, N, `every reading stored (${distinctA} distinct of ${N})`);
      assert.equal(rowsA, N, `no duplicate (${rowsA} rows for ${distinctA} readings)`);
      assert.deepEqual([minA, maxA], [0, N - 1]);
      assert.deepEqual(twice, [], 'no reading had two outcomes');
      assert.deepEqual(aErrors.slice(0, 5), [], 'no reading reached Catch');
      assert.ok(
        noOutcome.every((id) => stored.has(id)),
        'a reading without an outcome is stored (its output was lost with the killed process)',
      );
      assert.ok(
        noOutcome.length <= 2 * 2000,
        `outcomes lost in the two kills: at most what was on its way out (${noOutcome.length})`,
      );
      assert.equal(
        a.length + noOutcome.length,
        N,
        'the outcomes add up: outputs + errors + outputs lost in the kills = readings',
      );

      // B, the outbox off: no duplicate, and every missing reading is exactly one error at Catch
      const [rowsB, distinctB] = psql(`SELECT count(*), count(DISTINCT reading_id) FROM public.${tables.b}`)
        .trim()
        .split('|')
        .map(Number);
      const b = outcomes('b');
      const storedB = new Set(
        psql(`SELECT reading_id FROM public.${tables.b}`).trim().split('\n').filter(Boolean).map(Number),
      );
      const bById = new Map();
      for (const o of b) bById.set(o.id, [...(bById.get(o.id) ?? []), o]);
      const missingB = Array.from({ length: N }, (_, i) => i).filter((i) => !storedB.has(i));
      summary.b = {
        rows: rowsB,
        distinct: distinctB,
        outputs: b.filter((o) => o.ok).length,
        errors: b.filter((o) => !o.ok).length,
        missing: missingB.length,
        errorCodes: countBy(b.filter((o) => !o.ok).map((o) => o.code)),
      };
      log(JSON.stringify(summary));
      assert.equal(rowsB, distinctB, 'no duplicate without the outbox either (a lost answer is never sent again)');
      assert.equal(b.length, N, 'every reading had an outcome');
      assert.deepEqual(
        [...bById].filter(([, os]) => os.length > 1).map(([id]) => id),
        [],
        'none had two',
      );
      assert.deepEqual(
        missingB.filter((id) => !(bById.get(id) ?? []).some((o) => !o.ok)),
        [],
        'every missing reading is an error at Catch',
      );
      assert.ok(
        b.filter((o) => o.ok).every((o) => storedB.has(o.id)),
        'every output is a stored row',
      );
      assert.ok(
        b.filter((o) => !o.ok && storedB.has(o.id)).every((o) => o.stored === 'unknown'),
        'an error for a stored reading says stored: "unknown"',
      );
      assert.ok(missingB.length > 0, 'the outages cost B readings (else this run proved nothing)');
      assert.equal(kills.length, 2);
    });
  });
}

function countBy(values) {
  const out = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
