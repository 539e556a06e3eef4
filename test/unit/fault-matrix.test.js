'use strict';
/**
 * The fault matrix (docs/fault-matrix.md): every node case × every fault, each cell's expected
 * outcome read from the table in that page. One message per cell, the fault aimed at the node's
 * own request; then a normal message on the same node must succeed, on a server node with one
 * connection slot, so a slot left held by a fault fails the next cell. Cases come from
 * test/support/node-cases.js: a new node joins by adding its case and its row.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createFakeMindsDB } = require('../support/fake-mindsdb');
const { NODE_CASES, WRITE_CASES, watchProcessProblems } = require('../support/node-cases');
const { faultOn, notStatus, FAULT_HANDLERS } = require('../support/exchange-faults');
const { helper, allNodes, flowWith } = require('../support/nr');

// A cell that should end in a timeout gets msg.timeout 400 ms (a stall holds its socket for 5 s);
// every other message has the server's 3 s, room for three attempts on a loaded CI machine.
const SERVER = { retries: 2, timeout: 3000, maxInFlight: 1, maxResponseMB: 0.0625 };
const TIMEOUT_CELL_MS = 400;
const CASES = [...NODE_CASES, ...WRITE_CASES];
const labelOf = (c) => c.label || c.type;

/** The table: case label → fault → {outcome, requests} (undefined for "—"). */
function readMatrix() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'fault-matrix.md'), 'utf8');
  const block = /<!-- fault-matrix:[^>]*-->([\s\S]*?)<!-- \/fault-matrix -->/.exec(doc);
  assert.ok(block, 'docs/fault-matrix.md has no table between <!-- fault-matrix --> markers');
  const lines = block[1]
    .trim()
    .split('\n')
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const faults = lines[0].slice(1);
  const rows = new Map();
  for (const cells of lines.slice(2)) {
    const label = cells[0].replace(/`/g, '');
    const expected = new Map();
    cells.slice(1).forEach((cell, i) => {
      if (cell === '—') return;
      const m = /^([a-z-]+(?: \d{3})?) \((\d+)\)$/.exec(cell);
      assert.ok(m, `cell "${cell}" (${label} × ${faults[i]}) is not "<outcome> (<requests>)" or "—"`);
      expected.set(faults[i], { outcome: m[1], requests: Number(m[2]) });
    });
    rows.set(label, expected);
  }
  return { faults, rows };
}

const matrix = readMatrix();

describe('fault matrix (docs/fault-matrix.md)', function () {
  this.timeout(60_000);
  const problems = watchProcessProblems();

  it('names every fault the suite can make, and has a row for every node case (and no other)', () => {
    assert.deepEqual([...matrix.faults].sort(), Object.keys(FAULT_HANDLERS).sort());
    assert.deepEqual([...matrix.rows.keys()].sort(), CASES.map(labelOf).sort());
  });

  for (const c of CASES) {
    const expected = matrix.rows.get(labelOf(c));
    if (!expected) continue; // the test above names it
    it(`${labelOf(c)}: ${[...expected].map(([f, e]) => `${f} → ${e.outcome}`).join(', ')}`, async () => {
      const fake = await createFakeMindsDB().listen();
      await new Promise((r) => helper.startServer(r));
      try {
        if (c.setup) c.setup(fake);
        await helper.load(
          allNodes(),
          flowWith({ type: c.type, ...c.def }, { url: fake.url, ...SERVER }, c.extra || []),
        );
        const outcomes = watchOutcomes();
        const n1 = helper.getNode('n1');
        for (const [fault, want] of expected) {
          const marker = `${fault} #${Math.random()}`;
          const msg = { ...c.msg(fake), marker, ...(want.outcome === 'timeout' ? { timeout: TIMEOUT_CELL_MS } : {}) };
          let hit;
          faultOn(fake, c.faultOn || notStatus, (req, res, entry) => {
            hit = entry;
            return FAULT_HANDLERS[fault](req, res, entry);
          });
          const before = fake.requests.length;
          n1.receive(msg);
          const got = await outcomes.of(marker);
          fake.clearFaults();
          const cell = `${labelOf(c)} × ${fault}`;
          assert.ok(hit, `${cell}: the fault never met the node's request`);
          assert.equal(got.outcome, want.outcome, `${cell}: ${got.outcome} (${got.text})`);
          const sent = fake.requests.slice(before).filter((r) => r.method === hit.method && r.path === hit.path).length;
          assert.equal(sent, want.requests, `${cell}: the request reached the server ${sent} times`);
          if (fault === 'lost answer to a write' && c.def.operation === 'insert') {
            const stored = c.stored
              ? c.stored(fake, msg)
              : fake.state.kbs.get('mindsdb/kb1').rows.filter((r) => r.content === msg.payload[0].content).length;
            assert.equal(stored, 1, `${cell}: the rows were stored once`);
          }
          // the next message finds the one slot free and the node working
          const after = `${marker} then`;
          n1.receive({ ...c.msg(fake), marker: after });
          const next = await outcomes.of(after);
          assert.equal(next.outcome, 'ok', `${cell}: the message after the fault failed: ${next.text}`);
        }
        outcomes.assertEachOnce();
      } finally {
        await helper.unload();
        await new Promise((r) => helper.stopServer(r));
        await fake.close();
      }
      assert.deepEqual(problems, []);
    });
  }
});

/**
 * Each message's outcome by its marker: its output (for a sequence, the part that ends it), or its
 * error at the Catch node. `of(marker)` waits for it (5 s at most).
 */
function watchOutcomes() {
  const seen = new Map();
  const waiting = new Map();
  const record = (marker, outcome) => {
    const list = seen.get(marker) || [];
    list.push(outcome);
    seen.set(marker, list);
    const w = waiting.get(marker);
    if (w) {
      waiting.delete(marker);
      w(outcome);
    }
  };
  helper.getNode('out').on('input', (m) => {
    if (m.parts && m.parts.count === undefined) return; // a part that does not end its sequence
    record(m.marker, { outcome: 'ok', text: 'output' });
  });
  helper
    .getNode('caught')
    .on('input', (m) =>
      record(m.marker, { outcome: m.mindsdbError ? m.mindsdbError.kind : 'error', text: m.error?.message }),
    );
  return {
    of(marker, ms = 5000) {
      const done = seen.get(marker);
      if (done) return Promise.resolve(done[0]);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          waiting.delete(marker);
          reject(new Error(`no outcome for "${marker}" within ${ms} ms`));
        }, ms); // deadline: no outcome for this message
        waiting.set(marker, (o) => {
          clearTimeout(t);
          resolve(o);
        });
      });
    },
    assertEachOnce() {
      for (const [marker, list] of seen) assert.equal(list.length, 1, `"${marker}" had ${list.length} outcomes`);
    },
  };
}
