'use strict';
const { waitFor, flushDeliveries } = require('./wait');
const { flowWith, runtimeHooks } = require('./nr');
let uploads = 0;

/** A change node that turns every part it gets into a msg.tick back to n1. */
const TICK_BACK = {
  id: 'ticker',
  z: 'f1',
  type: 'change',
  name: 'msg.tick = true',
  rules: [{ t: 'set', p: 'tick', pt: 'msg', to: 'true', tot: 'bool' }],
  action: '',
  property: '',
  from: '',
  to: '',
  reg: false,
  wires: [['n1']],
};

/** The view node's saved fields (operation from msg). */
const VIEW_DEF = {
  operation: 'msg',
  project: 'mindsdb',
  projectType: 'str',
  itemName: '',
  itemNameType: 'str',
  query: '',
  rowFormat: 'objects',
  split: false,
  rowsPerMsg: 100,
  flowControl: false,
  partsAhead: 1,
};

/**
 * One valid configuration and message per action node, for the table-driven suites. `ticks`:
 * the node takes msg.tick back (see observeOutcomes); `extra`: nodes its flow needs besides
 * test/support/nr.js's flowWith (use flowFor).
 */
const NODE_CASES = [
  {
    type: 'mindsdb-sql',
    def: { query: '', database: '', databaseType: 'str', rowFormat: 'objects', split: false, rowsPerMsg: 100 },
    msg: () => ({ query: 'SELECT 1' }),
  },
  {
    type: 'mindsdb-sql',
    label: 'mindsdb-sql (split, streamed)',
    def: { query: '', database: '', databaseType: 'str', rowFormat: 'arrays', split: true, rowsPerMsg: 1 },
    msg: () => ({ query: 'SELECT * FROM rentals' }),
  },
  // flow control as the README wires it: each part goes on, and a change node sends it back as msg.tick
  {
    type: 'mindsdb-sql',
    label: 'mindsdb-sql (split, flow control, tick wired back)',
    ticks: true,
    def: {
      query: '',
      database: '',
      databaseType: 'str',
      rowFormat: 'arrays',
      split: true,
      rowsPerMsg: 1,
      flowControl: true,
      partsAhead: 1,
      wires: [['out', 'ticker']],
    },
    extra: [TICK_BACK],
    msg: () => ({ query: 'SELECT * FROM rentals' }),
  },
  {
    type: 'mindsdb-predict',
    def: {
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: false,
      batchSize: 100,
      batchWindow: 50,
      keepExplainString: false,
    },
    msg: () => ({ payload: { sqft: 1 } }),
  },
  {
    type: 'mindsdb-predict',
    label: 'mindsdb-predict (batched)',
    def: {
      project: 'mindsdb',
      projectType: 'str',
      model: 'home_rentals',
      modelType: 'str',
      params: '',
      paramsType: 'json',
      batch: true,
      batchSize: 4,
      batchWindow: 10,
      keepExplainString: false,
    },
    msg: () => ({ payload: { sqft: 1 } }),
  },
  {
    type: 'mindsdb-database',
    def: {
      operation: 'msg',
      dbName: '',
      dbNameType: 'str',
      engine: '',
      host: '',
      port: '',
      user: '',
      database: '',
      extraParams: '',
      checkConnection: false,
    },
    msg: () => ({ operation: 'list' }),
  },
  {
    type: 'mindsdb-chatbot',
    def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str' },
    msg: () => ({ operation: 'list' }),
  },
  {
    type: 'mindsdb-skill',
    def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', agent: '' },
    msg: () => ({ operation: 'list' }),
  },
  {
    type: 'mindsdb-agent',
    def: {
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      streamMode: 'final',
    },
    msg: () => ({ operation: 'list' }),
  },
  {
    type: 'mindsdb-agent',
    label: 'mindsdb-agent (completions)',
    setup: withAgent,
    def: {
      operation: 'completions',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'a1',
      itemNameType: 'str',
      streamMode: 'final',
    },
    msg: () => ({ payload: 'How warm is it?' }),
  },
  {
    type: 'mindsdb-agent',
    label: 'mindsdb-agent (completions, streamed in chunks)',
    setup: withAgent,
    def: {
      operation: 'completions',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'a1',
      itemNameType: 'str',
      streamMode: 'chunks',
    },
    msg: () => ({ payload: 'How warm is it?' }),
  },
  // a fresh name per message: every upload can succeed, faults or not
  {
    type: 'mindsdb-file',
    def: { operation: 'msg', fileName: '', fileNameType: 'str', format: 'csv', replace: false, maxSizeMB: 100 },
    msg: () => ({ operation: 'upload', name: `f${++uploads}`, payload: [{ a: 1, b: 'x' }] }),
  },
  {
    type: 'mindsdb-job',
    def: {
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      query: '',
      schedule: '',
      startAt: '',
      endAt: '',
      ifQuery: '',
    },
    msg: () => ({
      operation: 'create',
      name: `j${++uploads}`,
      payload: { query: 'SELECT 1', schedule: 'every 1 day' },
    }),
  },
  {
    type: 'mindsdb-model',
    def: {
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      model: '',
      modelType: 'str',
      modelVersion: '',
      statement: '',
      database: '',
      select: '',
      predict: '',
      engine: '',
      using: '',
      wait: false,
      waitTimeout: 600,
    },
    msg: () => ({ operation: 'get', model: 'home_rentals' }),
  },
  {
    type: 'mindsdb-model',
    label: 'mindsdb-model (train and wait)',
    def: {
      operation: 'train',
      project: 'mindsdb',
      projectType: 'str',
      model: '',
      modelType: 'str',
      modelVersion: '',
      statement: '',
      database: 'files',
      select: 'SELECT * FROM r',
      predict: 'y',
      engine: 'linear',
      using: '',
      wait: true,
      waitTimeout: 5,
    },
    msg: () => ({ model: `m${++uploads}` }),
  },
  // The create's own POST meets the fault: the node lists the data sources first (a failed create's default store is
  // removed, issue 32).
  {
    type: 'mindsdb-knowledge-base',
    faultOn: (entry) => entry.method === 'POST',
    def: {
      operation: 'msg',
      project: 'mindsdb',
      projectType: 'str',
      itemName: '',
      itemNameType: 'str',
      provider: 'openai',
      embeddingModel: 'e',
      baseUrl: '',
      storageDatabase: '',
      storageTable: '',
      contentColumns: '',
      metadataColumns: '',
      idColumn: '',
      insertQuery: '',
      limit: 10,
      threshold: '',
    },
    msg: () => ({ operation: 'create', name: `kb${++uploads}` }),
  },
  // rows into a PostgreSQL-like table of the stand-in: a fresh id per message, so every insert can succeed
  {
    type: 'mindsdb-table',
    label: 'mindsdb-table (insert)',
    setup: withTable,
    stored: storedRows,
    def: {
      operation: 'insert',
      database: 'pg',
      databaseType: 'str',
      table: 'readings',
      tableType: 'str',
      select: '',
      replace: false,
      batch: false,
      batchSize: 100,
      batchWindow: 50,
    },
    msg: () => ({ payload: { id: ++uploads, note: 'x' } }),
  },
  {
    type: 'mindsdb-table',
    label: 'mindsdb-table (insert, batched)',
    setup: withTable,
    stored: storedRows,
    def: {
      operation: 'insert',
      database: 'pg',
      databaseType: 'str',
      table: 'readings',
      tableType: 'str',
      select: '',
      replace: false,
      batch: true,
      batchSize: 4,
      batchWindow: 10,
    },
    msg: () => ({ payload: { id: ++uploads, note: 'x' } }),
  },
  {
    type: 'mindsdb-project',
    def: { operation: 'msg', itemName: '', itemNameType: 'str' },
    msg: () => ({ operation: 'list' }),
  },
  { type: 'mindsdb-view', def: { ...VIEW_DEF }, msg: () => ({ operation: 'list' }) },
  {
    type: 'mindsdb-view',
    label: 'mindsdb-view (query)',
    setup: withView,
    def: { ...VIEW_DEF, operation: 'query', itemName: 'v1' },
    msg: () => ({}),
  },
  {
    type: 'mindsdb-view',
    label: 'mindsdb-view (query, split, flow control, tick wired back)',
    ticks: true,
    setup: withView,
    def: {
      ...VIEW_DEF,
      operation: 'query',
      itemName: 'v1',
      rowFormat: 'arrays',
      split: true,
      rowsPerMsg: 2,
      flowControl: true,
      partsAhead: 1,
      wires: [['out', 'ticker']],
    },
    extra: [TICK_BACK],
    msg: () => ({}),
  },
  {
    type: 'mindsdb-ml-engine',
    def: { operation: 'msg', engineName: '', engineNameType: 'str', handler: '', apiKeyParam: '', settings: '' },
    msg: () => ({
      operation: 'create',
      name: `e${++uploads}`,
      payload: { handler: 'openai', settings: { api_base: 'http://127.0.0.1:9/v1' } },
    }),
  },
  {
    type: 'mindsdb-ml-engine',
    label: 'mindsdb-ml-engine (handlers)',
    def: { operation: 'handlers', engineName: '', engineNameType: 'str', handler: '', apiKeyParam: '', settings: '' },
    msg: () => ({}),
  },
];

/** A data source `pg` with a table `readings` in the stand-in (test/support/fake-mindsdb.js). */
function withTable(fake) {
  fake.state.databases.set('pg', {
    id: 7,
    name: 'pg',
    type: 'data',
    engine: 'postgres',
    class_type: 'sql',
    connection_data: {},
  });
  fake.state.tables.set('pg/readings', {
    name: 'readings',
    columns: [
      { name: 'id', type: 'int' },
      { name: 'note', type: 'text' },
    ],
    rows: [],
  });
}
/** How many times the row of an insert message is in the stand-in's table. */
function storedRows(fake, msg) {
  return fake.state.tables.get('pg/readings').rows.filter((r) => r.id === msg.payload.id).length;
}

/**
 * Writes whose repeat rules differ (docs/fault-matrix.md): a knowledge-base insert is never repeated,
 * a delete may be. `msg(fake)` may put in the fake what the message needs (a record to delete).
 * Used by the fault matrix beside NODE_CASES.
 */
const WRITE_CASES = [
  {
    type: 'mindsdb-knowledge-base',
    label: 'mindsdb-knowledge-base (insert)',
    setup: withKnowledgeBase,
    def: {
      operation: 'insert',
      project: 'mindsdb',
      projectType: 'str',
      itemName: 'kb1',
      itemNameType: 'str',
      provider: 'openai',
      embeddingModel: 'e',
      baseUrl: '',
      storageDatabase: '',
      storageTable: '',
      contentColumns: '',
      metadataColumns: '',
      idColumn: '',
      insertQuery: '',
      limit: 10,
      threshold: '',
    },
    msg: () => ({ payload: [{ content: `row ${++uploads}` }] }),
  },
  {
    type: 'mindsdb-table',
    label: 'mindsdb-table (delete)',
    setup: withTable,
    def: {
      operation: 'delete',
      database: 'pg',
      databaseType: 'str',
      table: '',
      tableType: 'str',
      select: '',
      replace: false,
      batch: false,
      batchSize: 100,
      batchWindow: 50,
    },
    msg: (fake) => {
      const table = `t${++uploads}`;
      fake.state.tables.set(`pg/${table}`, { name: table, columns: [], rows: [] });
      return { table };
    },
  },
  {
    type: 'mindsdb-database',
    label: 'mindsdb-database (delete)',
    def: {
      operation: 'delete',
      dbName: '',
      dbNameType: 'str',
      engine: '',
      host: '',
      port: '',
      user: '',
      database: '',
      extraParams: '',
      checkConnection: false,
    },
    msg: (fake) => {
      const name = `d${++uploads}`;
      fake.state.databases.set(name, { id: uploads, name, type: 'data', engine: 'postgres', connection_data: {} });
      return { name };
    },
  },
  // CREATE PROJECT meets the fault: the node reads /databases/ first (a system database's name is refused, issue 32).
  {
    type: 'mindsdb-project',
    label: 'mindsdb-project (create)',
    faultOn: (entry) => entry.method === 'POST',
    def: { operation: 'create', itemName: '', itemNameType: 'str' },
    msg: () => ({ name: `p${++uploads}` }),
  },
  {
    type: 'mindsdb-view',
    label: 'mindsdb-view (delete)',
    def: { ...VIEW_DEF, operation: 'delete' },
    msg: (fake) => {
      const name = `v${++uploads}`;
      fake.state.views.set(`mindsdb/${name}`, { id: uploads, name, query: 'SELECT 1', project: 'mindsdb' });
      return { name };
    },
  },
  // DROP ML_ENGINE is SQL (a POST): never repeated.
  {
    type: 'mindsdb-ml-engine',
    label: 'mindsdb-ml-engine (delete)',
    def: { operation: 'delete', engineName: '', engineNameType: 'str', handler: '', apiKeyParam: '', settings: '' },
    msg: (fake) => {
      const name = `e${++uploads}`;
      fake.state.mlEngines.set(name, { name, handler: 'openai', settings: {} });
      return { name };
    },
  },
];

/** The view the query cases read (the fake answers five rows). */
function withView(fake) {
  fake.state.views.set('mindsdb/v1', { id: 1, name: 'v1', query: 'SELECT 1', project: 'mindsdb' });
}

function withKnowledgeBase(fake) {
  fake.state.kbs.set('mindsdb/kb1', { record: { id: 1, name: 'kb1', project: 'mindsdb' }, rows: [] });
}

/** The test flow for one of NODE_CASES (test/support/nr.js's flowWith, plus the case's own nodes). */
function flowFor(nodeCase, serverOverrides = {}) {
  return flowWith({ type: nodeCase.type, ...nodeCase.def }, serverOverrides, nodeCase.extra || []);
}

/** The agent the completions cases ask (the fake, like the real server, answers 404 for unknown agents). */
function withAgent(fake) {
  fake.state.agents.set('mindsdb/a1', {
    id: 1,
    name: 'a1',
    project: 'mindsdb',
    model_name: 'gpt-4o',
    provider: 'openai',
  });
}

/**
 * Watches what a user sees of each message sent into n1, the way a user wires it: its outputs at
 * `out`, its done() at a Complete node scoped to n1 (`completed`), its done(err) at a Catch node
 * (`caught`). Messages are told apart by `msg.marker`. A message ends well in exactly one way:
 *  - done() once, no error, and one output: a single message, or one whole sequence (parts 0 to
 *    count-1, each once, the last with parts.count and msg.complete);
 *  - done(err) once, no done(), and no output, except the parts of a sequence that broke half-way
 *    when the error names it (msg.mindsdb.partsId/partsSent for sql, msg.mindsdb.sequence for the
 *    agent's chunks) and no part claims to be the last;
 *  - for a node that takes msg.tick (`ticks: true`): a message with a truthy msg.tick is an
 *    acknowledgement, and ends with done() once and no output. The ticks the flow wires back
 *    carry the marker of the query whose part they acknowledge; each part's tick ends once.
 * Anything else (output without done, done twice, done and an error, an error after an output,
 * done without output) is reported by `problems()` and failed by `assertEachOnce()`.
 *
 * Node-RED delivers outputs with setImmediate and runs a Complete or Catch node synchronously
 * inside done(), whose own output is again delivered with setImmediate: so an output sent before
 * done() always arrives at `out` before its done() arrives at `completed`.
 *
 * `doneVia: 'hook'` sees done() through the runtime's onComplete hook instead of the Complete
 * node: a "modified nodes" deploy that restarts n1 restarts the Complete node scoped to it too,
 * and the done() of a message n1 was still handling then reaches no Complete node (Node-RED's
 * doing). Call `dispose()` when done with such an observer.
 */
let hooked = 0;
function observeOutcomes(helper, { ticks = false, inspect, doneVia = 'complete' } = {}) {
  const records = new Map();
  const record = (marker) => {
    let r = records.get(marker);
    if (!r) {
      r = { outputs: [], done: 0, errors: [], tickDone: 0, tickErrors: [] };
      records.set(marker, r);
    }
    return r;
  };
  // Only what the verdict needs is kept (a fuzz sends 10,000 messages, some of them large);
  // `inspect(kind, msg)` sees each whole message as it arrives.
  const output = (msg) => ({
    parts: msg.parts && { id: msg.parts.id, index: msg.parts.index, count: msg.parts.count },
    complete: msg.complete,
  });
  const failure = (msg) => {
    const m = msg.mindsdb && typeof msg.mindsdb === 'object' ? msg.mindsdb : {};
    return {
      error: { message: msg.error?.message },
      mindsdb: { partsId: m.partsId, partsSent: m.partsSent, sequence: m.sequence },
      mindsdbError: msg.mindsdbError,
    };
  };
  /** Markers whose input was itself a tick (set by the test that sends them). */
  const tickInputs = new Set();
  let events = 0;
  // Messages that have ended at least once (their first done() or error), for a sender that
  // keeps a window of messages open. A tick wired back ends a part, not its query.
  let endedCount = 0;
  const countEnd = (marker, r, isTick) => {
    if (tickInputs.has(marker)) {
      if (r.tickDone + r.tickErrors.length === 1) endedCount++;
      return;
    }
    if (!isTick && r.done + r.errors.length === 1) endedCount++;
  };
  helper.getNode('out').on('input', (msg) => {
    if (inspect) inspect('output', msg);
    record(msg.marker).outputs.push(output(msg));
    events++;
  });
  const completed = (msg) => {
    if (inspect) inspect('done', msg);
    const r = record(msg.marker);
    const isTick = Boolean(ticks && msg.tick);
    if (isTick) r.tickDone++;
    else r.done++;
    countEnd(msg.marker, r, isTick);
    events++;
  };
  let hookName;
  if (doneVia === 'hook') {
    hookName = `onComplete.observeOutcomes${++hooked}`;
    runtimeHooks().add(hookName, (event) => {
      if (event.node.id === 'n1' && !event.error) completed(event.msg);
    });
  } else {
    helper.getNode('completed').on('input', completed);
  }
  helper.getNode('caught').on('input', (msg) => {
    if (inspect) inspect('error', msg);
    const r = record(msg.marker);
    const isTick = Boolean(ticks && msg.tick);
    if (isTick) r.tickErrors.push(failure(msg));
    else r.errors.push(failure(msg));
    countEnd(msg.marker, r, isTick);
    events++;
  });

  const endedMarker = (m) => {
    const r = records.get(m);
    if (!r) return false;
    return tickInputs.has(m) ? r.tickDone + r.tickErrors.length > 0 : r.done + r.errors.length > 0;
  };

  function describe(marker) {
    const r = records.get(marker);
    if (!r) return `message ${marker}: nothing (no output, no done(), no error)`;
    const parts = r.outputs.filter((m) => m.parts);
    return `message ${marker}: ${r.outputs.length - parts.length} output(s), ${parts.length} part(s)${parts.length ? ` [${parts.map((m) => `${m.parts.index}${m.parts.count !== undefined ? `/${m.parts.count}` : ''}`).join(',')}]` : ''}, done() ×${r.done}, error ×${r.errors.length}${r.errors.length ? ` (${r.errors.map((e) => e.error?.message).join(' | ')})` : ''}${ticks ? `, tick done() ×${r.tickDone}, tick error ×${r.tickErrors.length}` : ''}`;
  }

  /** Why this message did not end exactly once, or null. */
  function problem(marker) {
    const r = records.get(marker);
    if (!r) return describe(marker);
    const parts = r.outputs.filter((m) => m.parts);
    const singles = r.outputs.filter((m) => !m.parts);
    if (tickInputs.has(marker)) {
      if (
        r.tickDone === 1 &&
        r.tickErrors.length === 0 &&
        r.outputs.length === 0 &&
        r.done === 0 &&
        r.errors.length === 0
      )
        return null;
      // a tick refused (flow control off, or nothing to acknowledge) is an error with no output
      if (
        r.tickDone === 0 &&
        r.tickErrors.length === 1 &&
        r.outputs.length === 0 &&
        r.done === 0 &&
        r.errors.length === 0
      )
        return null;
      return `${describe(marker)}: a msg.tick must end once, with done() or one error, and no output`;
    }
    if (r.done + r.errors.length !== 1) return `${describe(marker)}: not exactly one done()/error`;
    if (ticks && r.tickErrors.length) return `${describe(marker)}: a tick wired back failed`;
    if (r.done === 1) {
      if (singles.length === 1 && parts.length === 0) return null;
      if (singles.length === 0 && parts.length > 0) {
        const bad = sequenceProblem(parts, true);
        if (bad) return `${describe(marker)}: ${bad}`;
        if (ticks && r.tickDone !== parts.length)
          return `${describe(marker)}: ${parts.length} parts but ${r.tickDone} ticks ended`;
        return null;
      }
      return `${describe(marker)}: done() needs exactly one output (or one whole sequence)`;
    }
    // done(err)
    if (singles.length) return `${describe(marker)}: an output and an error`;
    if (!parts.length) return null;
    const bad = sequenceProblem(parts, false);
    if (bad) return `${describe(marker)}: ${bad}`;
    const m = r.errors[0].mindsdb || {};
    const named =
      m.partsId !== undefined
        ? { id: m.partsId, n: m.partsSent }
        : m.sequence
          ? { id: m.sequence.id, n: m.sequence.chunks }
          : null;
    if (!named) return `${describe(marker)}: parts were sent, and the error does not name the broken sequence`;
    if (named.id !== parts[0].parts.id || named.n !== parts.length)
      return `${describe(marker)}: the error names ${named.n} parts of ${named.id}, ${parts.length} of ${parts[0].parts.id} arrived`;
    return null;
  }

  /** One sequence, each index once from 0; `whole`: the last carries count and complete, else none does. */
  function sequenceProblem(parts, whole) {
    const ids = new Set(parts.map((m) => m.parts.id));
    if (ids.size !== 1) return `parts of ${ids.size} sequences`;
    const indexes = parts.map((m) => m.parts.index).sort((a, b) => a - b);
    if (!indexes.every((x, i) => x === i)) return `part indexes ${indexes.join(',')}`;
    const counted = parts.filter((m) => m.parts.count !== undefined);
    if (!whole) return counted.length ? 'an error after the last part' : null;
    if (counted.length !== 1 || counted[0].parts.count !== parts.length || counted[0].parts.index !== parts.length - 1)
      return 'the sequence does not end with one part carrying parts.count';
    if (counted[0].complete !== true) return 'the last part lacks msg.complete';
    return null;
  }

  const api = {
    records,
    /** Removes the onComplete hook of a `doneVia: 'hook'` observer. */
    dispose() {
      if (hookName) runtimeHooks().remove(hookName);
      hookName = undefined;
    },
    /** Marks markers whose input carries a truthy msg.tick (an acknowledgement, not a request). */
    tickInput(marker) {
      tickInputs.add(marker);
    },
    /** Messages that have ended so far (each counted at its first done() or error). */
    get ended() {
      return endedCount;
    },
    /** Outcome events seen so far (outputs, done()s and errors). */
    get events() {
      return events;
    },
    /** marker → its outcomes in order of kind: 'out' (done() with its output), 'error', 'done without output'. */
    get seen() {
      const m = new Map();
      for (const [marker, r] of records) {
        const kinds = [...r.errors.map(() => 'error')];
        for (let i = 0; i < r.done; i++) kinds.unshift(r.outputs.length ? 'out' : 'done without output');
        if (kinds.length) m.set(marker, kinds);
      }
      return m;
    },
    /**
     * Resolves once every marker given (an array, or a count n for markers 0..n-1) has ended
     * (done() or an error); rejects at the deadline naming each message still open and what it did.
     */
    async settled(markers, timeoutMs = 10000) {
      const list = typeof markers === 'number' ? Array.from({ length: markers }, (_, i) => i) : markers;
      await waitFor(() => list.every(endedMarker), {
        timeoutMs,
        what: () => {
          const open = list.filter((m) => !endedMarker(m));
          return `every message to end; ${open.length} still open: ${open.slice(0, 5).map(describe).join('; ')}${open.length > 5 ? '; …' : ''}`;
        },
      });
      await flushDeliveries();
    },
    /**
     * Makes late outcomes visible before judging: closes n1, which (src/runtime/input.ts) waits
     * for every message it still handles, then lets Node-RED deliver what was sent meanwhile.
     */
    async quiesce() {
      await helper.getNode('n1').close(false);
      await flushDeliveries();
    },
    problem,
    problems(markers) {
      return markers.map(problem).filter(Boolean);
    },
    /**
     * Fails with every message of `markers` that did not end exactly once (the first 10
     * described), and with outcomes for messages not in `allSent` (default: `markers`).
     */
    assertEachOnce(markers, allSent = markers) {
      const list = typeof markers === 'number' ? Array.from({ length: markers }, (_, i) => i) : markers;
      const bad = list.map(problem).filter(Boolean);
      const sent = new Set(typeof allSent === 'number' ? list : allSent);
      const strays = [...records.keys()].filter((m) => !sent.has(m));
      if (bad.length || strays.length) {
        throw new Error(
          `${bad.length} of ${list.length} messages did not end exactly once${strays.length ? `, and outcomes for messages never sent: ${strays.slice(0, 5).join(', ')}` : ''}:\n  ${bad.slice(0, 10).join('\n  ')}`,
        );
      }
    },
  };
  return api;
}

/**
 * The secrets (strings) found anywhere in `value`: in its strings, its keys, an Error's message,
 * at any depth, cycles allowed. A walk rather than JSON.stringify, which costs seconds on a fuzz's
 * 10,000 messages with their 100 kB strings.
 */
function secretsIn(value, secrets) {
  const found = new Set();
  const seen = new Set();
  const visit = (v, depth) => {
    if (typeof v === 'string') {
      for (const s of secrets) if (v.includes(s)) found.add(s);
      return;
    }
    if (v === null || typeof v !== 'object' || depth > 50 || seen.has(v)) return;
    seen.add(v);
    if (v instanceof Error) visit(v.message, depth + 1);
    if (Buffer.isBuffer(v)) {
      visit(v.toString('latin1'), depth + 1);
      return;
    }
    for (const k of Reflect.ownKeys(v)) {
      if (typeof k === 'string') visit(k, depth + 1);
      let child;
      try {
        child = v[k];
      } catch {
        continue;
      }
      visit(child, depth + 1);
    }
  };
  visit(value, 0);
  return [...found];
}

/**
 * Collects unhandled rejections and uncaught exceptions while a suite runs (mocha hooks), afresh
 * for each test; the returned array must stay empty.
 */
function watchProcessProblems() {
  const problems = [];
  const onProblem = (err) => problems.push(err);
  before(() => {
    process.on('unhandledRejection', onProblem);
    process.on('uncaughtException', onProblem);
  });
  beforeEach(() => {
    problems.length = 0;
  });
  after(() => {
    process.removeListener('unhandledRejection', onProblem);
    process.removeListener('uncaughtException', onProblem);
  });
  return problems;
}

module.exports = { NODE_CASES, WRITE_CASES, flowFor, observeOutcomes, secretsIn, watchProcessProblems };
