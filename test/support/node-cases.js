'use strict';
let uploads = 0;

/** One valid configuration and message per action node, for the table-driven suites. */
const NODE_CASES = [
  { type: 'mindsdb-sql', def: { query: '', database: '', databaseType: 'str', rowFormat: 'objects', split: false, rowsPerMsg: 100 }, msg: () => ({ query: 'SELECT 1' }) },
  { type: 'mindsdb-sql', label: 'mindsdb-sql (split, streamed)', def: { query: '', database: '', databaseType: 'str', rowFormat: 'arrays', split: true, rowsPerMsg: 1 }, msg: () => ({ query: 'SELECT * FROM rentals' }) },
  { type: 'mindsdb-predict', def: { project: 'mindsdb', projectType: 'str', model: 'home_rentals', modelType: 'str', params: '', paramsType: 'json', batch: false, batchSize: 100, batchWindow: 50, keepExplainString: false }, msg: () => ({ payload: { sqft: 1 } }) },
  { type: 'mindsdb-predict', label: 'mindsdb-predict (batched)', def: { project: 'mindsdb', projectType: 'str', model: 'home_rentals', modelType: 'str', params: '', paramsType: 'json', batch: true, batchSize: 4, batchWindow: 10, keepExplainString: false }, msg: () => ({ payload: { sqft: 1 } }) },
  { type: 'mindsdb-database', def: { operation: 'msg', dbName: '', dbNameType: 'str', engine: '', host: '', port: '', user: '', database: '', extraParams: '', checkConnection: false }, msg: () => ({ operation: 'list' }) },
  { type: 'mindsdb-chatbot', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str' }, msg: () => ({ operation: 'list' }) },
  { type: 'mindsdb-skill', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', agent: '' }, msg: () => ({ operation: 'list' }) },
  { type: 'mindsdb-agent', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', streamMode: 'final' }, msg: () => ({ operation: 'list' }) },
  { type: 'mindsdb-agent', label: 'mindsdb-agent (completions)', setup: withAgent, def: { operation: 'completions', project: 'mindsdb', projectType: 'str', itemName: 'a1', itemNameType: 'str', streamMode: 'final' }, msg: () => ({ payload: 'How warm is it?' }) },
  { type: 'mindsdb-agent', label: 'mindsdb-agent (completions, streamed in chunks)', setup: withAgent, def: { operation: 'completions', project: 'mindsdb', projectType: 'str', itemName: 'a1', itemNameType: 'str', streamMode: 'chunks' }, msg: () => ({ payload: 'How warm is it?' }) },
  // a fresh name per message: every upload can succeed, faults or not
  { type: 'mindsdb-file', def: { operation: 'msg', fileName: '', fileNameType: 'str', format: 'csv', replace: false, maxSizeMB: 100 }, msg: () => ({ operation: 'upload', name: `f${++uploads}`, payload: [{ a: 1, b: 'x' }] }) },
  { type: 'mindsdb-job', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', query: '', schedule: '', startAt: '', endAt: '', ifQuery: '' }, msg: () => ({ operation: 'create', name: `j${++uploads}`, payload: { query: 'SELECT 1', schedule: 'every 1 day' } }) },
  { type: 'mindsdb-model', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', model: '', modelType: 'str', modelVersion: '', statement: '', database: '', select: '', predict: '', engine: '', using: '', wait: false, waitTimeout: 600 }, msg: () => ({ operation: 'get', model: 'home_rentals' }) },
  { type: 'mindsdb-model', label: 'mindsdb-model (train and wait)', def: { operation: 'train', project: 'mindsdb', projectType: 'str', model: '', modelType: 'str', modelVersion: '', statement: '', database: 'files', select: 'SELECT * FROM r', predict: 'y', engine: 'linear', using: '', wait: true, waitTimeout: 5 }, msg: () => ({ model: `m${++uploads}` }) },
  { type: 'mindsdb-knowledge-base', def: { operation: 'msg', project: 'mindsdb', projectType: 'str', itemName: '', itemNameType: 'str', provider: 'openai', embeddingModel: 'e', baseUrl: '', storageDatabase: '', storageTable: '', contentColumns: '', metadataColumns: '', idColumn: '', insertQuery: '', limit: 10, threshold: '' }, msg: () => ({ operation: 'create', name: `kb${++uploads}` }) },
];

/**
 * Writes whose repeat rules differ (docs/fault-matrix.md): a knowledge-base insert is never repeated,
 * a delete may be. `msg(fake)` may put in the fake what the message needs (a record to delete).
 * Used by the fault matrix beside NODE_CASES.
 */
const WRITE_CASES = [
  { type: 'mindsdb-knowledge-base', label: 'mindsdb-knowledge-base (insert)', setup: withKnowledgeBase, def: { operation: 'insert', project: 'mindsdb', projectType: 'str', itemName: 'kb1', itemNameType: 'str', provider: 'openai', embeddingModel: 'e', baseUrl: '', storageDatabase: '', storageTable: '', contentColumns: '', metadataColumns: '', idColumn: '', insertQuery: '', limit: 10, threshold: '' }, msg: () => ({ payload: [{ content: `row ${++uploads}` }] }) },
  { type: 'mindsdb-database', label: 'mindsdb-database (delete)', def: { operation: 'delete', dbName: '', dbNameType: 'str', engine: '', host: '', port: '', user: '', database: '', extraParams: '', checkConnection: false }, msg: (fake) => { const name = `d${++uploads}`; fake.state.databases.set(name, { id: uploads, name, type: 'data', engine: 'postgres', connection_data: {} }); return { name }; } },
];

function withKnowledgeBase(fake) {
  fake.state.kbs.set('mindsdb/kb1', { record: { id: 1, name: 'kb1', project: 'mindsdb' }, rows: [] });
}

/** The agent the completions cases ask (the fake, like the real server, answers 404 for unknown agents). */
function withAgent(fake) {
  fake.state.agents.set('mindsdb/a1', { id: 1, name: 'a1', project: 'mindsdb', model_name: 'gpt-4o', provider: 'openai' });
}

/**
 * Counts the outcomes of messages sent into n1, by a marker property: outputs at `out`, errors
 * at `caught`. `settled(n)` resolves when n outcomes arrived, then waits a little longer so a
 * doubled outcome would be seen too.
 */
function outcomeCounter(helper) {
  const seen = new Map();
  let total = 0;
  let waiter;
  const record = (kind) => (msg) => {
    const key = msg.marker;
    const prev = seen.get(key) || [];
    // a split or chunk sequence counts once: only its last message (or a single message) is an outcome
    if (msg.parts && msg.parts.count === undefined) return;
    prev.push(kind);
    seen.set(key, prev);
    total++;
    if (waiter && total >= waiter.n) waiter.resolve();
  };
  helper.getNode('out').on('input', record('out'));
  helper.getNode('caught').on('input', record('error'));
  return {
    seen,
    get total() { return total; },
    async settled(n, timeoutMs = 10000) {
      if (total < n) {
        await new Promise((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`only ${total}/${n} outcomes within ${timeoutMs} ms`)), timeoutMs);
          waiter = { n, resolve: () => { clearTimeout(t); resolve(); } };
        });
      }
      await new Promise((r) => setTimeout(r, 150));
    },
  };
}

/**
 * Collects unhandled rejections and uncaught exceptions while a suite runs (mocha hooks);
 * the returned array must stay empty.
 */
function watchProcessProblems() {
  const problems = [];
  const onProblem = (err) => problems.push(err);
  before(() => { process.on('unhandledRejection', onProblem); process.on('uncaughtException', onProblem); });
  after(() => { process.removeListener('unhandledRejection', onProblem); process.removeListener('uncaughtException', onProblem); });
  return problems;
}

module.exports = { NODE_CASES, WRITE_CASES, outcomeCounter, watchProcessProblems };
