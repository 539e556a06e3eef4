// The benchmark's MindsDB stand-in, run as its own process so that its CPU time is not charged
// to the runtime under test. It speaks just enough of the REST interface:
//   POST /api/sql/query            a fixed 10-row table; "... big ..." → 200,000 rows;
//                                  "... slow ..." → the small table after SLOW_MS
//   POST /api/projects/p/models/m/predict   one prediction row per input row, after PREDICT_MS:
//                                  a real MindsDB 25.14.1 took about 230 ms per predict call on
//                                  these machines (bench --real, 8 calls in flight); the stand-in
//                                  charges a tenth of that, so batching is not flattered
//   POST /api/sql/query "... million ..."  1,000,000 rows of 5 columns, written as the socket takes
//                                  them: as jsonlines (1,000 rows a line) when asked for
//                                  `response_format: "jsonlines"` and BENCH_VERSION is 26.1 or
//                                  later, else one JSON body in MindsDB's key order (rows first)
//   POST /api/sql/query "INSERT …"  {"type": "ok", "affected_rows": <rows>} after INSERT_MS: a real
//                                  MindsDB 25.14.1 took about 50 ms for one single-row INSERT into
//                                  PostgreSQL alone, and stored 31 a second with 8 in flight (about
//                                  250 ms each, test/e2e/table.e2e.js); the stand-in charges 20 ms,
//                                  as for predict, so batching is not flattered
//   GET  /api/status               a version (BENCH_VERSION, default 25.14.1), for the client's checks
// Prints the port it listens on as the first line of stdout.
import http from 'node:http';

const SLOW_MS = Number(process.env.BENCH_SLOW_MS || 50);
const PREDICT_MS = Number(process.env.BENCH_PREDICT_MS || 20);
const INSERT_MS = Number(process.env.BENCH_INSERT_MS || 20);
const table = (n) =>
  JSON.stringify({
    type: 'table',
    column_names: ['sensor_id', 'temperature', 'humidity', 'status'],
    data: Array.from({ length: n }, (_, i) => [i, 20 + (i % 10) / 10, 40 + (i % 7), 'ok']),
  });
const SMALL = table(10);
const VERSION = process.env.BENCH_VERSION || '25.14.1';
const JSONLINES = (() => {
  const [major, minor] = VERSION.split('.').map(Number);
  return major > 26 || (major === 26 && minor >= 1);
})();
const MILLION = 1_000_000;
const BATCH = 1000;
const batch = (from) =>
  JSON.stringify(
    Array.from({ length: Math.min(BATCH, MILLION - from) }, (_, k) => {
      const i = from + k;
      return [i, `sensor-${i % 500}`, 20 + (i % 100) / 10, 40 + (i % 7), i % 3 === 0 ? 'ok' : 'warn'];
    }),
  );
const COLUMNS = ['id', 'sensor', 'temperature', 'humidity', 'status'];

/** The million-row answer, generated batch by batch and written only as fast as the client reads. */
function million(res, jsonLines) {
  res.writeHead(200, { 'content-type': jsonLines ? 'application/jsonlines' : 'application/json' });
  let from = 0;
  const head = jsonLines ? `${JSON.stringify({ type: 'table', column_names: COLUMNS })}\n` : '{"type":"table","data":[';
  let ok = res.write(head);
  const pump = () => {
    ok = true;
    while (ok && from < MILLION) {
      const text = batch(from);
      ok = res.write(jsonLines ? `${text}\n` : `${from ? ',' : ''}${text.slice(1, -1)}`);
      from += BATCH;
    }
    if (from < MILLION) {
      res.once('drain', pump);
      return;
    }
    res.end(jsonLines ? '' : `],"column_names":${JSON.stringify(COLUMNS)},"context":{"db":"mindsdb"}}`);
  };
  if (ok) pump();
  else res.once('drain', pump);
}
const BIG = table(200_000);

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = req.url || '';
    if (req.method === 'POST' && url.endsWith('/sql/query')) {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const query = String(body.query || '');
      if (query.startsWith('INSERT')) {
        const rows = query.split('), (').length;
        return void setTimeout(
          () => send(res, 200, JSON.stringify({ type: 'ok', affected_rows: rows, context: { db: 'mindsdb' } })),
          INSERT_MS,
        );
      }
      if (query.includes('million')) return million(res, JSONLINES && body.response_format === 'jsonlines');
      if (query.includes('big')) return send(res, 200, BIG);
      if (query.includes('slow')) return void setTimeout(() => send(res, 200, SMALL), SLOW_MS);
      return send(res, 200, SMALL);
    }
    if (req.method === 'POST' && url.endsWith('/predict')) {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const rows = Array.isArray(body.data) ? body.data : [body.data];
      const answer = JSON.stringify(
        rows.map((r) => ({ ...r, energy: 42.5, energy_confidence: 0.9, energy_explain: '{"predicted_value": 42.5}' })),
      );
      return void setTimeout(() => send(res, 200, answer), PREDICT_MS);
    }
    if (url.endsWith('/status'))
      return send(res, 200, JSON.stringify({ mindsdb_version: VERSION, auth: { http_auth_enabled: false } }));
    send(res, 404, JSON.stringify({ title: 'Not found' }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
