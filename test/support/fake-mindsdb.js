'use strict';
/**
 * A small in-process HTTP server that speaks MindsDB's REST interface the way the real server
 * does (see docs/real-mindsdb.md and ../shared/spec/mindsdb-server-api.md): canonical collection
 * paths with a trailing slash (308 without it), 415 without a JSON content type, the two JSON
 * error shapes, 405 HTML for unknown routes, SQL errors as HTTP 200, login in three modes. Every
 * SQL statement is parsed by MindsDB's own parser (./mindsdb-sql-parser.js): what MindsDB would
 * refuse is refused with its error answer, and answers are chosen from the parsed statement.
 *
 * It records every request (method, raw path, headers, parsed body) so tests can assert what our
 * nodes actually sent, and lets a test inject a fault for the next requests (`fault(fn)`).
 * Test code only.
 */
const http = require('node:http');
const crypto = require('node:crypto');
const sqlParser = require('./mindsdb-sql-parser');

function createFakeMindsDB(options = {}) {
  const opts = {
    // '26.1.0' removes skills; '26.0.1', '26.2.0': native queries; '26.2.0': /integrations/capabilities
    version: options.version || '25.14.1',
    auth: options.auth || null, // { username, password, type: 'session' | 'token' | 'session_or_token' }
    prefix: options.prefix || '/api',
    /** false: a server without the views routes (GET 404 JSON, other methods 405 HTML). */
    views: options.views !== false,
    /**
     * false: a 25.x without the chromadb package, the default vector store (as the e2e servers): a
     * knowledge base without storage makes the data source `<name>_chromadb`, then fails (measured).
     */
    chromadb: options.chromadb !== false,
  };
  const state = {
    requests: [],
    sockets: new Set(),
    openConnections: 0,
    tokens: new Set(),
    sessions: new Set(),
    faults: [],
    /** Set by tests: (entry) => a fault handler for this request, or null; asked when no queued fault is left. */
    faultPlan: null,
    databases: new Map(),
    // home_rentals answers like the real 25.14.1 BYOM models: the input row plus the target column.
    // lightwood_rentals answers like a lightwood model of older servers, with the _explain,
    // _confidence, _min/_max columns (for the explain parsing).
    models: new Map([
      ['mindsdb/home_rentals', { name: 'home_rentals', predict: 'rental_price', status: 'complete', engine: 'byom' }],
      [
        'mindsdb/lightwood_rentals',
        { name: 'lightwood_rentals', predict: 'rental_price', status: 'complete', engine: 'lightwood', explain: true },
      ],
    ]),
    projects: new Set(['mindsdb']),
    chatbots: new Map(),
    skills: new Map(),
    agents: new Map(),
    /** Uploaded files by lower-case name: {name, fields, filename, content (Buffer)}. */
    files: new Map(),
    jobs: new Map(),
    /**
     * Trained models by "project/name": an array of versions {version, active, status, polls,
     * predict, engine, error}. A new version answers "generating", then "training", then
     * "complete" ("error" for engine 'broken') on successive GETs of that version.
     */
    trained: new Map(),
    /** Knowledge bases by "project/name": {record, rows: [{id, content, metadata}]}. */
    kbs: new Map(),
    /**
     * Tables of data sources, as a PostgreSQL source behaves through MindsDB: by "db/name" (names as
     * stored, compared exactly), {name, columns: [{name, type: 'int'|'float'|'text'}], rows: [{…}]}.
     * An INSERT stores all its rows or none (one COPY in one transaction).
     */
    tables: new Map(),
    /** Views by "project/name" (the name as created): {id, name, query, project}. */
    views: new Map(),
    /** Rows a SELECT from a view answers: {column_names, data}; by default five rows of column n. */
    viewRows: null,
    nextId: 1,
    /** Set by tests: a function (req) => answer object for /sql/query, or undefined for the default. */
    sql: null,
    /** Rows per line of a jsonlines SQL answer. */
    jsonlinesBatch: 2,
    /** Completion stream script for agents, an array of event objects. */
    stream: null,
    completionsFail: false,
    /**
     * The data source of a native query (context.native_query): (query, db) => an answer, or
     * undefined for the default, a table echoing the statement as it came (proof it was not parsed).
     */
    native: null,
    /** What GET /integrations/capabilities (26.2+) lists: engine → auth mode, as handlers declare it. */
    passthroughEngines: { github: 'bearer', shopify: 'bearer', salesforce: 'oauth' },
    /** ML engines by name as created: {name, handler, settings}. */
    mlEngines: new Map(),
  };
  const v26 = () => Number(opts.version.split('.')[0]) >= 26;
  /** Whether the server's version is `x.y.z` or later. */
  const atLeast = (version) => {
    const a = opts.version.split('.').map(Number);
    const b = version.split('.').map(Number);
    for (let i = 0; i < 3; i++) if ((a[i] || 0) !== b[i]) return (a[i] || 0) > b[i];
    return true;
  };

  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      const entry = {
        method: req.method,
        path: req.url,
        headers: req.headers,
        rawBody: raw,
        bytes,
        body: undefined,
        at: Date.now(),
      };
      try {
        entry.body = raw ? JSON.parse(raw) : undefined;
      } catch {
        entry.body = raw;
      }
      state.requests.push(entry);
      const fault = state.faults.length ? state.faults.shift() : state.faultPlan ? state.faultPlan(entry) : null;
      if (fault) {
        const handled = fault(req, res, entry);
        // A promise resolving to false falls through late (a slow answer).
        if (handled && typeof handled.then === 'function') {
          handled.then((h) => {
            if (h === false && !res.destroyed) route(req, res, entry);
          });
          return;
        }
        if (handled !== false) return;
      }
      try {
        route(req, res, entry);
      } catch (err) {
        send(res, 500, { title: err.constructor.name, detail: String(err.message), message: String(err.message) });
      }
    });
  };
  // options.tls = {key, cert}: serve HTTPS instead (for certificate checks).
  const server = options.tls ? require('node:https').createServer(options.tls, handler) : http.createServer(handler);
  server.on(options.tls ? 'secureConnection' : 'connection', (socket) => {
    state.sockets.add(socket);
    state.openConnections++;
    socket.on('close', () => {
      state.sockets.delete(socket);
      state.openConnections--;
    });
  });

  function send(res, status, body, headers = {}) {
    if (res.headersSent || res.destroyed) return;
    if (status === 204) {
      res.writeHead(204, headers);
      res.end();
      return;
    }
    const text = typeof body === 'string' && headers['content-type'] ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }
  const problem = (res, status, title, detail) =>
    send(res, status, { title, detail, timestamp: new Date().toISOString() });
  const html405 = (res) =>
    send(res, 405, '<!doctype html><title>405 Method Not Allowed</title><h1>Method Not Allowed</h1>', {
      'content-type': 'text/html; charset=utf-8',
    });

  function isAuthorised(req) {
    if (!opts.auth) return true;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization || '');
    if (bearer && state.tokens.has(bearer[1]) && opts.auth.type !== 'session') return true;
    const cookie = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie || '');
    if (cookie && state.sessions.has(cookie[1]) && opts.auth.type !== 'token') return true;
    return false;
  }

  function route(req, res, entry) {
    const url = new URL(req.url, 'http://x');
    let path = url.pathname;
    const p = opts.prefix;
    if (!path.startsWith(`${p}/`)) {
      problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.');
      return;
    }
    path = path.slice(p.length);
    const seg = path
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
    const method = req.method;
    const needsJson = (method !== 'GET' && method !== 'DELETE') || path.endsWith('/describe');
    const ct = req.headers['content-type'] || '';

    // public routes
    if (path === '/util/ping' && method === 'GET') {
      send(res, 200, { status: 'ok' });
      return;
    }
    if (path === '/status' && method === 'GET') {
      send(res, 200, {
        mindsdb_version: opts.version,
        environment: 'local',
        auth: {
          confirmed: isAuthorised(req),
          http_auth_enabled: !!opts.auth,
          provider: opts.auth ? 'local' : 'disabled',
        },
      });
      return;
    }
    if (path === '/login' && method === 'POST') {
      const b = entry.body || {};
      if (typeof b.username !== 'string' || !b.username || typeof b.password !== 'string' || !b.password) {
        problem(res, 400, 'Error in username or password', 'Username and password should be string');
        return;
      }
      const a = opts.auth || { username: 'mindsdb', password: '' };
      if (b.username !== a.username || b.password !== a.password) {
        send(res, 401, { title: 'Forbidden', detail: 'Invalid username or password' });
        return;
      }
      const type = a.type || 'session_or_token';
      const headers = {};
      const body = {};
      if (type !== 'token') {
        const s = crypto.randomBytes(12).toString('hex');
        state.sessions.add(s);
        headers['set-cookie'] = `session=${s}; HttpOnly; Path=/`;
      }
      if (type !== 'session') {
        const t = `pat_${crypto.randomBytes(12).toString('hex')}`;
        state.tokens.add(t);
        body.token = t;
      }
      send(res, 200, body, headers);
      return;
    }
    if (!isAuthorised(req)) {
      problem(res, 401, 'Unauthorized', 'Authorization is required to complete the request');
      return;
    }
    if (seg[0] === 'files') return files(res, method, seg.slice(1), entry, ct);
    if (needsJson && !ct.startsWith('application/json')) {
      send(res, 415, {
        title: 'Unsupported Media Type',
        detail: "Did not attempt to load JSON data because the request Content-Type was not 'application/json'.",
      });
      return;
    }

    // collections need a trailing slash; nested paths must not have one
    if (path === '/databases' || path === '/projects') {
      res.writeHead(308, { location: `http://${req.headers.host}${p}${path}/` });
      res.end();
      return;
    }

    if (seg[0] === 'sql' && seg[1] === 'query' && seg.length === 2 && method === 'POST') {
      sql(res, entry.body, entry).catch((err) =>
        send(res, 500, { title: err.constructor.name, detail: String(err.message), message: String(err.message) }),
      );
      return;
    }
    if (
      seg[0] === 'integrations' &&
      seg[1] === 'capabilities' &&
      seg.length === 2 &&
      method === 'GET' &&
      atLeast('26.2.0')
    ) {
      const handlers = {};
      for (const [engine, mode] of Object.entries(state.passthroughEngines))
        handlers[engine] = { auth_modes: [mode], operations: ['passthrough'] };
      send(res, 200, {
        handlers,
        bearer_passthrough: Object.keys(handlers)
          .filter((e) => handlers[e].auth_modes[0] === 'bearer')
          .sort(),
      });
      return;
    }
    if (seg[0] === 'tree' && method === 'GET') return tree(res, seg.slice(1));
    if (seg[0] === 'databases') return databases(res, method, seg.slice(1), entry.body);
    if (seg[0] === 'projects') return projects(res, method, seg.slice(1), entry.body);
    if (seg[0] === 'handlers' && seg.length === 2 && seg[1] === '' && method === 'GET') {
      send(res, 200, handlerList());
      return;
    }
    if (method === 'GET')
      problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.');
    else html405(res);
  }

  /**
   * An SQL answer as the real server writes it: the whole body with the keys in MindsDB's order
   * (type, data, column_names, context: the rows before the column names), or, when a 26.1+
   * server is asked for `response_format: "jsonlines"`, a header line and then the rows in lines
   * of `state.jsonlinesBatch` rows (ok and error answers: one line).
   */
  function answer(res, body, a) {
    const v = opts.version.split('.').map(Number);
    const lines = body && body.response_format === 'jsonlines' && (v[0] > 26 || (v[0] === 26 && v[1] >= 1));
    if (!lines) {
      const ordered =
        a.type === 'table' ? { type: 'table', data: a.data, column_names: a.column_names, context: a.context } : a;
      send(res, 200, ordered);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jsonlines' });
    if (a.type !== 'table') {
      res.end(`${JSON.stringify(a)}\n`);
      return;
    }
    res.write(`${JSON.stringify({ type: 'table', column_names: a.column_names })}\n`);
    const n = state.jsonlinesBatch;
    for (let i = 0; i < a.data.length; i += n) res.write(`${JSON.stringify(a.data.slice(i, i + n))}\n`);
    res.end();
  }

  /**
   * /api/sql/query: every statement goes through MindsDB's own parser first (mindsdb_sql_parser,
   * ./mindsdb-sql-parser.js), so SQL that MindsDB would refuse is refused here too, with the
   * answer MindsDB gives (HTTP 200, type "error", error_code 0, the parser's message); then the
   * answer is chosen from the parsed statement. `entry.parsed` keeps the statement for tests.
   */
  async function sql(res, body, entry) {
    if (!body || typeof body !== 'object' || !('query' in body)) {
      send(res, 500, { title: 'KeyError', detail: "'query'", message: "'query'" });
      return;
    }
    if (typeof body.query !== 'string') {
      problem(res, 400, 'Wrong arguments', 'Please provide "query" with the request.');
      return;
    }
    const context = { show_secrets: false, db: body.context?.db || 'mindsdb' };
    // 26.0.1+ sends a native query to the data source unparsed; before, the flag is ignored.
    if (body.context?.native_query && atLeast('26.0.1')) {
      nativeQuery(res, body, entry);
      return;
    }
    const parsed = await sqlParser.parse(body.query);
    if (res.destroyed) return;
    entry.parsed = parsed;
    if (!parsed.ok) {
      answer(res, body, { type: 'error', error_code: 0, error_message: parseError(body.query, parsed), context });
      return;
    }
    const ast = parsed.ast;
    if (state.sql) {
      const a = state.sql(body, ast);
      if (a) {
        answer(res, body, { context, ...a });
        return;
      }
    }
    const params = body.params || {};
    const missing = parameterNames(ast).filter((n) => !(n in params));
    if (missing.length) {
      answer(res, body, {
        type: 'error',
        error_code: 0,
        error_message: `Parameter is not set: ${missing[0]}`,
        context,
      });
      return;
    }
    const special =
      kbSearch(ast, params) ||
      modelStatement(ast, context) ||
      insertRows(ast, params) ||
      keySelect(ast, params) ||
      projectStatement(ast) ||
      viewSelect(ast, context) ||
      mlEngineStatement(ast);
    if (special) {
      answer(res, body, { context, ...special });
      return;
    }
    if (ast.node === 'Select') {
      const targets = ast.targets || [];
      const from = ast.from_table && ast.from_table.node === 'Identifier' ? ast.from_table.parts : null;
      if (!from && targets.length === 1 && targets[0].node === 'Constant') {
        const t = targets[0];
        answer(res, body, {
          type: 'table',
          column_names: [t.alias ? t.alias.parts.at(-1) : String(t.value)],
          data: [[t.value]],
          context,
        });
        return;
      }
      if (!from && targets.length === 1 && targets[0].node === 'Parameter') {
        const t = targets[0];
        answer(res, body, {
          type: 'table',
          column_names: [t.alias ? t.alias.parts.at(-1) : t.value],
          data: [[params[t.value]]],
          context,
        });
        return;
      }
      if (from && from.at(-1) === 'rentals') {
        answer(res, body, {
          type: 'table',
          column_names: ['sqft', 'rental_price'],
          data: [
            [917, 3901],
            [194, 2042],
          ],
          context,
        });
        return;
      }
      const table = from
        ? from.at(-1)
        : targets[0]?.parts
          ? targets[0].parts.at(-1)
          : body.query.trim().split(/\s+/).pop();
      answer(res, body, {
        type: 'error',
        error_code: 0,
        error_message: `Table '${table}' not found in database`,
        context,
      });
      return;
    }
    answer(res, body, { type: 'ok', affected_rows: null, context });
  }

  /**
   * A native query as mindsdb/api/http/namespaces/sql.py runs it: 400 without a db; on 26.1.x every
   * success is a 500 (its after-query hook reads error_code from the handler's TableResponse);
   * 26.0.1 answers one JSON body whatever response_format says, 26.2 streams jsonlines too.
   */
  function nativeQuery(res, body, entry) {
    entry.native = true;
    const db = body.context.db;
    if (!db) {
      send(res, 400, { type: 'error', error_code: 0, error_message: "native_query requires 'db' in context" });
      return;
    }
    const a = state.native?.(body.query, db) || {
      type: 'table',
      column_names: ['statement'],
      data: [[body.query]],
    };
    if (a.type !== 'error' && opts.version.startsWith('26.1.')) {
      const name = a.type === 'table' ? 'TableResponse' : 'OkResponse';
      send(res, 500, {
        title: 'AttributeError',
        detail: `'${name}' object has no attribute 'error_code'`,
        message: `'${name}' object has no attribute 'error_code'`,
      });
      return;
    }
    const context = { show_secrets: false, db, native_query: true };
    if (atLeast('26.2.0')) answer(res, body, { ...a, context });
    else
      send(
        res,
        200,
        a.type === 'table' ? { type: 'table', column_names: a.column_names, data: a.data, context } : { ...a, context },
      );
  }

  /** What MindsDB's executor answers for a statement its parser refuses (mysql_executor.py, parse). */
  function parseError(query, parsed) {
    return parsed.type === 'ParsingException'
      ? `The SQL statement cannot be parsed - ${query}: ${parsed.error}`
      : parsed.error;
  }

  /** The names of every :name placeholder in a parsed statement. */
  function parameterNames(node, out = []) {
    if (Array.isArray(node)) {
      for (const x of node) parameterNames(x, out);
      return out;
    }
    if (!node || typeof node !== 'object') return out;
    if (node.node === 'Parameter' && typeof node.value === 'string' && node.value !== '?') out.push(node.value);
    for (const [k, v] of Object.entries(node)) if (k !== 'node') parameterNames(v, out);
    return out;
  }

  /** Splits a multipart/form-data body into {fields, file: {field, filename, content}}. */
  function parseMultipart(bytes, ct) {
    const m = /boundary=(.+)$/.exec(ct);
    if (!m) return null;
    const text = bytes.toString('latin1');
    const out = { fields: {}, file: null };
    for (const part of text.split(`--${m[1]}`).slice(1, -1)) {
      const [head, ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
      const body = rest.join('\r\n\r\n').replace(/\r\n$/, '');
      const name = /name="([^"]*)"/.exec(head)[1];
      const filename = /filename="([^"]*)"/.exec(head);
      if (filename) out.file = { field: name, filename: filename[1], content: Buffer.from(body, 'latin1') };
      else out.fields[name] = Buffer.from(body, 'latin1').toString('utf8');
    }
    return out;
  }

  /**
   * /api/files/ as 25.14.1 answers it (26.x: only file, source_type, original_file_name fields; delete by any case).
   */
  function files(res, method, seg, entry, ct) {
    if (seg.length === 1 && seg[0] === '') {
      if (method === 'GET') {
        send(
          res,
          200,
          [...state.files.values()].map((f) => ({ name: f.name, row_count: f.rows, columns: f.columns })),
        );
        return;
      }
      html405(res);
      return;
    }
    if (seg.length !== 1) {
      problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.');
      return;
    }
    // Both versions store an upload's name lower-cased; 25.14.1 deletes only by that exact spelling.
    const name = seg[0].toLowerCase();
    if (method === 'DELETE') {
      if (!state.files.has(name) || (!v26() && seg[0] !== name)) {
        problem(
          res,
          400,
          'Error deleting file',
          `There was an error while trying to delete file with name '${seg[0]}'`,
        );
        return;
      }
      state.files.delete(name);
      send(res, 200, '', { 'content-type': 'application/json' });
      return;
    }
    if (method !== 'PUT') {
      html405(res);
      return;
    }
    if (!ct.startsWith('multipart/form-data')) {
      problem(res, 400, 'File field is missed', 'The "field" field is missed in the form');
      return;
    }
    const form = parseMultipart(entry.bytes, ct);
    if (v26()) {
      const extra = Object.keys(form.fields).filter((k) => !['source_type', 'original_file_name'].includes(k));
      if (extra.length) {
        problem(res, 400, 'Unexpected parameters in request', `Unexpected parameters: ${extra.join(', ')}`);
        return;
      }
    }
    entry.form = form;
    if (state.files.has(name)) {
      problem(res, 400, 'File already exists', `File with name '${name}' already exists`);
      return;
    }
    if (!form.file) {
      problem(res, 400, 'File field is missed', 'The "field" field is missed in the form');
      return;
    }
    if (/\.[^.]+$/.test(name)) {
      problem(res, 400, 'Error', 'File name cannot contain extension.');
      return;
    }
    const text = form.file.content.toString('utf8');
    let rows = 0;
    let columns = [];
    if (/\.json$/i.test(form.file.filename)) {
      const j = JSON.parse(text);
      rows = Array.isArray(j) ? j.length : 1;
      columns = Object.keys(Array.isArray(j) ? j[0] || {} : j);
    } else {
      const lines = text.split(/\r?\n/).filter(Boolean);
      rows = lines.length - 1;
      columns = lines[0].split(',');
    }
    state.files.set(name, {
      name,
      fields: form.fields,
      filename: form.file.filename,
      content: form.file.content,
      rows,
      columns,
    });
    send(res, 200, '', { 'content-type': 'application/json' });
  }

  /** Knowledge bases as 25.14.1 answers (api_key masked); insert is PUT {knowledge_base: {rows | urls | query}}. */
  function knowledgeBases(res, method, project, rest, body) {
    const key = (n) => `${project}/${n}`;
    const masked = (r) => ({
      ...r,
      embedding_model: r.embedding_model
        ? { ...r.embedding_model, ...(r.embedding_model.api_key ? { api_key: '******' } : {}) }
        : {},
    });
    if (rest.length === 0) {
      if (method === 'GET') {
        send(
          res,
          200,
          [...state.kbs.values()].filter((k) => k.record.project === project).map((k) => masked(k.record)),
        );
        return;
      }
      if (method !== 'POST') {
        html405(res);
        return;
      }
      const kb = body?.knowledge_base;
      if (!kb) {
        problem(res, 400, 'Missing parameter', 'Must provide "knowledge_base" parameter in POST body');
        return;
      }
      if (!kb.name) {
        problem(res, 400, 'Missing parameter', 'Must provide "name" field in "knowledge_base"');
        return;
      }
      if (kb.storage && (!kb.storage.database || !kb.storage.table)) {
        problem(res, 400, 'Missing parameter', 'Must provide "database" and "table" field in "storage" param');
        return;
      }
      if (state.kbs.has(key(kb.name))) {
        problem(res, 409, 'Knowledge Base already exists', `Knowledge Base with name ${kb.name} already exists`);
        return;
      }
      if (!kb.storage && !opts.chromadb) {
        const store = `${kb.name}_chromadb`;
        if (!state.databases.has(store.toLowerCase()))
          state.databases.set(store.toLowerCase(), {
            id: state.nextId++,
            name: store,
            type: 'data',
            engine: 'chromadb',
            class_type: 'sql',
            connection_data: { persist_directory: store },
          });
        send(res, 500, {
          title: 'Exception',
          detail: "Handler 'chromadb' cannot be used. Reason is:\n    No module named 'chromadb'",
          message: "Handler 'chromadb' cannot be used.",
        });
        return;
      }
      const record = {
        id: state.nextId++,
        name: kb.name,
        project,
        embedding_model: kb.embedding_model || {},
        vector_database: kb.storage ? kb.storage.database : `${kb.name}_chromadb`,
        metadata_columns: kb.metadata_columns || null,
        content_columns: kb.content_columns || null,
        id_column: kb.id_column || null,
      };
      state.kbs.set(key(kb.name), { record, rows: [] });
      send(res, 201, masked(record));
      return;
    }
    const entry = state.kbs.get(key(rest[0]));
    if (rest.length !== 1) {
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
      return;
    }
    const missing = () =>
      problem(res, 404, 'Knowledge Base not found', `Knowledge Base with name ${rest[0]} does not exist`);
    if (method === 'GET') {
      entry ? send(res, 200, masked(entry.record)) : missing();
      return;
    }
    if (method === 'DELETE') {
      if (!entry) {
        missing();
        return;
      }
      state.kbs.delete(key(rest[0]));
      send(res, 204);
      return;
    }
    if (method === 'PUT') {
      const kb = body?.knowledge_base;
      if (!kb) {
        problem(res, 400, 'Missing parameter', 'Must provide "knowledge_base" parameter in PUT body');
        return;
      }
      if (!entry) {
        missing();
        return;
      }
      // A row with an id replaces the row of that id, as MindsDB 25.14.1 and 26.1.0 do (docs/real-mindsdb.md).
      for (const r of kb.rows || []) {
        // The other keys are its metadata (MindsDB keeps neither the content nor the id there).
        const { id: _id, content: _content, ...metadata } = r;
        const row = { id: String(r.id ?? entry.rows.length), content: String(r.content ?? ''), metadata };
        const at = r.id === undefined ? -1 : entry.rows.findIndex((x) => x.id === row.id);
        if (at >= 0) entry.rows[at] = row;
        else entry.rows.push(row);
      }
      for (const u of kb.urls || []) entry.rows.push({ id: u, content: `page at ${u}`, metadata: { url: u } });
      if (kb.query) entry.rows.push({ id: 'q', content: `result of ${kb.query}`, metadata: {} });
      send(res, 200, '', { 'content-type': 'application/json' });
      return;
    }
    html405(res);
  }

  /** SELECT * FROM p.kb WHERE content = :q [AND relevance >= :r] [LIMIT n] (parsed): word overlap as relevance. */
  function kbSearch(ast, params) {
    if (
      ast.node !== 'Select' ||
      !ast.from_table ||
      ast.from_table.node !== 'Identifier' ||
      ast.from_table.parts.length !== 2 ||
      !ast.where
    )
      return null;
    const isParam = (x, name) => x && x.node === 'Parameter' && x.value === name;
    const isColumn = (x, name) => x && x.node === 'Identifier' && x.parts.length === 1 && x.parts[0] === name;
    const test = (x, op, column, param) =>
      x && x.node === 'BinaryOperation' && x.op === op && isColumn(x.args[0], column) && isParam(x.args[1], param);
    const w = ast.where;
    const withThreshold =
      w.node === 'BinaryOperation' &&
      w.op === 'and' &&
      test(w.args[0], '=', 'content', 'q') &&
      test(w.args[1], '>=', 'relevance', 'r');
    if (!withThreshold && !test(w, '=', 'content', 'q')) return null;
    const [project, name] = ast.from_table.parts;
    const entry = state.kbs.get(`${project}/${name}`);
    if (!entry) return { type: 'error', error_code: 0, error_message: `Table '${name}' not found in database` };
    const words = new Set(String(params.q).toLowerCase().split(/\W+/).filter(Boolean));
    const limit = ast.limit && ast.limit.node === 'Constant' ? Number(ast.limit.value) : 10;
    const scored = entry.rows
      .map((r) => {
        const mine = r.content.toLowerCase().split(/\W+/).filter(Boolean);
        const relevance = mine.length ? mine.filter((word) => words.has(word)).length / mine.length : 0;
        return [r.id, `${r.id}:content:1of1`, r.content, r.metadata, 1 - relevance, relevance];
      })
      .filter((row) => !withThreshold || row[5] >= params.r)
      .sort((a, b) => b[5] - a[5])
      .slice(0, limit);
    return {
      type: 'table',
      column_names: ['id', 'chunk_id', 'chunk_content', 'metadata', 'distance', 'relevance'],
      data: scored,
    };
  }

  function modelRecord(v) {
    return {
      name: v.name,
      version: v.version,
      active: v.active,
      status: v.status,
      predict: v.predict,
      engine: v.engine,
      error: v.error || null,
      project: v.project,
      fetch_data_query: v.select || null,
    };
  }
  const MODEL_COLUMNS = ['NAME', 'ENGINE', 'PROJECT', 'ACTIVE', 'VERSION', 'STATUS', 'PREDICT', 'ERROR'];
  const modelRow = (v) => [v.name, v.engine, v.project, v.active, v.version, v.status, v.predict, v.error || null];
  const sqlError = (text) => ({ type: 'error', error_code: 0, error_message: text });

  /** A view of a project, found as MindsDB's REST routes find it: by name in any case. */
  const findView = (project, name) =>
    [...state.views.values()].find((v) => v.project === project && v.name.toLowerCase() === String(name).toLowerCase());

  /**
   * CREATE PROJECT and DROP PROJECT as 25.14.1 and 26.1.0 answer them. To MindsDB's parser DROP
   * PROJECT is DROP DATABASE: given a data source's name it drops the data source. The name is
   * compared exactly (a project stored as PV_Cap is not dropped by pv_cap). A project that still
   * holds views or models is refused with the names of its tables.
   */
  function projectStatement(ast) {
    if (ast.node === 'CreateDatabase' && !ast.engine) {
      const name = ast.name.parts.at(-1);
      // A system database's name (information_schema, log) is not taken: MindsDB makes a project of that name beside it
      // (measured).
      const taken =
        [...state.projects].some((p) => p.toLowerCase() === name.toLowerCase()) ||
        state.databases.has(name.toLowerCase());
      if (taken) return sqlError(`Project already exists: ${name}`);
      state.projects.add(name);
      return { type: 'ok', affected_rows: null };
    }
    if (ast.node === 'DropDatabase') {
      const name = ast.name.parts.at(-1);
      if (state.projects.has(name)) {
        if (name === 'mindsdb') return sqlError("Project 'mindsdb' can not be deleted");
        const tables = [
          ...[...state.views.values()].filter((v) => v.project === name).map((v) => v.name),
          ...[...state.models.keys(), ...state.trained.keys()]
            .filter((k) => k.startsWith(`${name}/`))
            .map((k) => k.slice(name.length + 1)),
        ].sort();
        if (tables.length)
          return sqlError(`Project '${name}' can not be deleted, because it contains tables: ${tables.join(', ')}`);
        state.projects.delete(name);
        return { type: 'ok', affected_rows: null };
      }
      const db = state.databases.get(name.toLowerCase());
      if (db && db.name === name) {
        state.databases.delete(name.toLowerCase());
        return { type: 'ok', affected_rows: null };
      }
      return sqlError(`Database does not exists: ${name}`);
    }
    return null;
  }

  /**
   * SELECT … FROM project.view: the view's rows (state.viewRows, or five rows of n); a missing view is MindsDB's SQL
   * error.
   */
  function viewSelect(ast, context) {
    if (ast.node !== 'Select' || !ast.from_table || ast.from_table.node !== 'Identifier') return null;
    const parts = ast.from_table.parts;
    const [project, name] = parts.length === 2 ? parts : [context.db, parts[0]];
    if (!state.projects.has(project)) return null;
    const view = [...state.views.values()].find((v) => v.project === project && v.name === name);
    if (!view) return null;
    // A view whose query does not parse (an update takes any query) fails when it is read.
    if (/^\s*selec\s/i.test(view.query))
      return { type: 'error', error_code: 0, error_message: `Syntax error, unknown input: >${view.query}` };
    const rows = state.viewRows || { column_names: ['n'], data: [[1], [2], [3], [4], [5]] };
    return { type: 'table', column_names: rows.column_names, data: rows.data };
  }

  /**
   * CREATE MODEL, RETRAIN, FINETUNE, DESCRIBE, SET active, DROP MODEL p.m.v (parsed), as MindsDB's SQL answers them.
   */
  function modelStatement(ast, context) {
    /** [project, model, version?] of a model name: `p`.`m`[.`v`], or `m` in the context's project. */
    const target = (ident) => {
      const parts = ident && ident.node === 'Identifier' ? ident.parts : [];
      return parts.length === 1 ? [context.db, parts[0]] : parts;
    };
    if (ast.node === 'CreatePredictor') {
      const [project, model] = target(ast.name);
      const key = `${project}/${model}`;
      if (state.trained.has(key)) return sqlError(`Model already exists: ${model}`);
      const using = ast.using || {};
      if (!using.engine) return sqlError('ML engine is not set (no default engine)');
      const predict = (ast.targets || []).map((t) => t.parts.at(-1))[0];
      const v = {
        name: model,
        project,
        version: 1,
        active: true,
        status: 'generating',
        polls: 0,
        predict,
        engine: using.engine,
        select: ast.query_str || undefined,
        using,
      };
      state.trained.set(key, [v]);
      return { type: 'table', column_names: MODEL_COLUMNS, data: [modelRow(v)] };
    }
    if (ast.node === 'RetrainPredictor' || ast.node === 'FinetunePredictor') {
      const [project, model] = target(ast.name);
      const versions = state.trained.get(`${project}/${model}`);
      if (!versions) return sqlError(`Model not found: ${model}`);
      const last = versions[versions.length - 1];
      const using = ast.using || {};
      const v = {
        ...last,
        version: last.version + 1,
        active: false,
        status: 'generating',
        polls: 0,
        error: null,
        select: ast.query_str || last.select,
        using,
      };
      if (using.engine) v.engine = using.engine;
      versions.push(v);
      return { type: 'table', column_names: MODEL_COLUMNS, data: [modelRow(v)] };
    }
    if (ast.node === 'Describe') {
      const [project, model, version] = target(ast.value);
      const versions = state.trained.get(`${project}/${model}`);
      if (!versions) return sqlError(`Model not found: ${model}`);
      const v =
        version !== undefined ? versions.find((x) => x.version === Number(version)) : versions.find((x) => x.active);
      if (!v) return sqlError('Version not found');
      return { type: 'table', column_names: ['TABLES', ...MODEL_COLUMNS], data: [[[], ...modelRow(v)]] };
    }
    const setActive = ast.node === 'Set' && ast.category === 'active';
    if (setActive || (ast.node === 'DropPredictor' && ast.name && ast.name.parts.length === 3)) {
      const [project, model, version] = (setActive ? ast.value : ast.name).parts;
      const versions = state.trained.get(`${project}/${model}`);
      const v = versions?.find((x) => x.version === Number(version));
      if (!v) return sqlError(`Model ${model} with version ${version} is not found in ${project}`);
      if (setActive) {
        for (const x of versions) x.active = x === v;
      } else {
        if (v.active) return sqlError(`Can't remove active version: ${project}.${model}.${version}`);
        versions.splice(versions.indexOf(v), 1);
      }
      return { type: 'ok', affected_rows: null };
    }
    return null;
  }

  /**
   * SELECT col FROM db.t WHERE col IN (:p1, …) (parsed) on a data source's table: the rows whose
   * col is one of the values, as MindsDB answers it from PostgreSQL (the outbox's key check).
   */
  function keySelect(ast, params) {
    if (
      ast.node !== 'Select' ||
      !ast.from_table ||
      ast.from_table.node !== 'Identifier' ||
      ast.from_table.parts.length !== 2
    )
      return null;
    const [db, name] = ast.from_table.parts;
    const t = state.databases.has(db.toLowerCase()) ? state.tables.get(`${db.toLowerCase()}/${name}`) : undefined;
    const w = ast.where;
    if (
      !t ||
      !w ||
      !['in', '='].includes(w.op) ||
      (ast.targets || []).length !== 1 ||
      ast.targets[0].node !== 'Identifier'
    )
      return null;
    const col = ast.targets[0].parts.at(-1);
    const textOf = (v) => String(v.node === 'Parameter' ? params[v.value] : v.value);
    // MindsDB renders `IN (:p1)`, one value, as `IN 2`, which PostgreSQL refuses (measured on both lines).
    if (w.op === 'in' && w.args[1].node !== 'Tuple') return sqlError(`syntax error at or near "${textOf(w.args[1])}"`);
    const wanted = new Set(w.op === '=' ? [textOf(w.args[1])] : w.args[1].items.map(textOf));
    return {
      type: 'table',
      column_names: [col],
      data: t.rows.filter((r) => wanted.has(String(r[col]))).map((r) => [r[col]]),
    };
  }

  /** INSERT INTO db.t (cols) VALUES (…) (parsed), as MindsDB 25.14.1/26.1.0 run it on a PostgreSQL table. */
  function insertRows(ast, params) {
    if (ast.node !== 'Insert' || !ast.values) return null;
    const parts = ast.table.parts;
    if (parts.length !== 2) return sqlError(`Database not found: ${parts[0]}`);
    if (!state.databases.has(parts[0].toLowerCase())) return sqlError(`Database not found: ${parts[0]}`);
    const t = state.tables.get(`${parts[0].toLowerCase()}/${parts[1]}`);
    if (!t) return sqlError(`relation "${parts[1]}" does not exist`);
    if (!ast.columns) return sqlError('INSERT without a column list is not supported here');
    // MindsDB keeps the backticks of a quoted column name, and matches the rest case-insensitively.
    const columns = ast.columns.map((c) => {
      const col = t.columns.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
      return col || c.name;
    });
    const unknown = columns.find((c) => typeof c === 'string');
    if (unknown !== undefined) return sqlError(`column "${unknown}" of relation "${t.name}" does not exist`);
    const value = (v) => (v.node === 'Parameter' ? params[v.value] : v.node === 'NullConstant' ? null : v.value);
    const rows = [];
    for (const [line, tuple] of ast.values.entries()) {
      if (tuple.length !== columns.length) return sqlError('INSERT has more expressions than target columns');
      const row = {};
      for (const [i, col] of columns.entries()) {
        let v = value(tuple[i]);
        if (v !== null && v !== undefined && col.type !== 'text') {
          const n = typeof v === 'number' ? v : Number(v);
          if (
            typeof v === 'boolean' ||
            v === '' ||
            !Number.isFinite(n) ||
            (col.type === 'int' && !Number.isInteger(n))
          ) {
            return sqlError(
              `invalid input syntax for type ${col.type === 'int' ? 'integer' : 'double precision'}: "${String(v)}"\nCONTEXT:  COPY ${t.name}, line ${line + 1}, column ${col.name}: "${String(v)}"`,
            );
          }
          v = n;
        }
        if (typeof v === 'boolean') v = v ? 'True' : 'False';
        row[col.name] = v === undefined ? null : v;
      }
      rows.push(row);
    }
    t.rows.push(...rows);
    return { type: 'ok', affected_rows: rows.length };
  }

  /** /databases/{db}/tables[/{t}] as 25.14.1 and 26.1.0 answer (measured in test/e2e/table.e2e.js). */
  function tables(res, method, seg, body) {
    const db = seg[0];
    const rec = state.databases.get(db.toLowerCase());
    const isProject = state.projects.has(db);
    const key = (n) => `${db.toLowerCase()}/${n}`;
    const inDb = () =>
      [...state.tables.entries()].filter(([k]) => k.startsWith(`${db.toLowerCase()}/`)).map(([, t]) => t);
    if (seg.length === 2) {
      if (method === 'GET') {
        if (isProject) {
          send(res, 200, [{ name: 'models', type: 'data' }]);
          return;
        }
        if (!rec) {
          send(res, 500, {
            title: 'AttributeError',
            detail: "'NoneType' object has no attribute 'get_tables'",
            message: "'NoneType' object has no attribute 'get_tables'",
          });
          return;
        }
        send(
          res,
          200,
          inDb().map((t) => ({ name: t.name, type: 'data' })),
        );
        return;
      }
      if (method !== 'POST') {
        html405(res);
        return;
      }
      const t = body?.table;
      if (!t) {
        problem(res, 400, 'Wrong argument', 'Must provide "table" parameter in POST body');
        return;
      }
      if (!t.name) {
        problem(res, 400, 'Wrong argument', 'Missing "name" field for table');
        return;
      }
      if (!t.select) {
        problem(res, 400, 'Wrong argument', 'Missing "select" field for table');
        return;
      }
      if (isProject) {
        problem(
          res,
          400,
          'Error',
          `Database ${db} is a project. If you want to create a model or view, use the projects/${db}/models/${t.name} or projects/${db}/views/${t.name} endpoints instead.`,
        );
        return;
      }
      if (!rec) {
        problem(res, 404, 'Database not exists', `Database with name ${db} does not exist`);
        return;
      }
      if (state.tables.has(key(t.name)) && !t.replace) {
        problem(res, 409, 'Name conflict', `Table with name ${t.name} already exists`);
        return;
      }
      sqlParser.parse(t.select).then(
        (parsed) => {
          if (!parsed.ok || parsed.ast.node !== 'Select') {
            problem(res, 400, 'Error', `Could not parse select statement ${t.select}`);
            return;
          }
          const targets = parsed.ast.targets || [];
          const columns = targets.map((x, i) => ({
            name: x.alias ? x.alias.parts.at(-1) : x.parts ? x.parts.at(-1) : `col${i}`,
            type:
              x.node === 'Constant' && typeof x.value === 'number'
                ? Number.isInteger(x.value)
                  ? 'int'
                  : 'float'
                : 'text',
          }));
          // SELECT * FROM db.t copies a table of the fake; a SELECT from anything else has no rows.
          const from = parsed.ast.from_table?.parts
            ? state.tables.get(parsed.ast.from_table.parts.map((x, i) => (i === 0 ? x.toLowerCase() : x)).join('/'))
            : undefined;
          const made = from
            ? { columns: from.columns, rows: from.rows.map((r) => ({ ...r })) }
            : {
                columns,
                rows: parsed.ast.from_table
                  ? []
                  : [Object.fromEntries(targets.map((x, i) => [columns[i].name, x.value ?? null]))],
              };
          // As 25.14.1 and 26.1.0 do on PostgreSQL (docs/real-mindsdb.md, "What a failed operation leaves"):
          // the table is made (an old one dropped first) under the name folded to lower case, then filled
          // under the name as given; rows PostgreSQL refuses (a NUL in text: CHR(0)) leave it empty.
          const stored = t.name.toLowerCase();
          if (state.tables.has(key(stored)) && !t.replace) {
            problem(res, 400, 'Error', `relation "${stored}" already exists`);
            return;
          }
          state.tables.set(key(stored), { name: stored, columns: made.columns, rows: [] });
          if (stored !== t.name) {
            problem(res, 400, 'Error', `relation "${t.name}" does not exist`);
            return;
          }
          if (/chr\s*\(\s*0\s*\)/i.test(t.select)) {
            problem(
              res,
              400,
              'Error',
              `invalid byte sequence for encoding "UTF8": 0x00 CONTEXT: COPY ${stored}, line 1`,
            );
            return;
          }
          state.tables.get(key(stored)).rows = made.rows;
          send(res, 201, { name: stored, type: 'data' });
        },
        (err) => send(res, 500, { title: 'Error', detail: String(err.message) }),
      );
      return;
    }
    if (seg.length !== 3) {
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
      return;
    }
    const t = state.tables.get(key(seg[2]));
    if (method === 'GET') {
      t
        ? send(res, 200, { name: t.name, type: 'data' })
        : problem(res, 404, 'Table not found', `Table with name ${seg[2]} not found`);
      return;
    }
    if (method === 'DELETE') {
      if (isProject) {
        problem(res, 400, 'Error', `Database ${db} is a project.`);
        return;
      }
      if (!rec) {
        problem(res, 404, 'Database not found', `Database with name ${db} not found`);
        return;
      }
      if (!t) {
        problem(res, 404, 'Table not found', `Table with name ${seg[2]} not found`);
        return;
      }
      state.tables.delete(key(seg[2]));
      send(res, 204);
      return;
    }
    html405(res);
  }

  /**
   * GET /api/handlers/?lazy=1 as both versions answer it: every handler, data and ML, `import.success`
   * null for those not loaded yet. 26.x has no byom (moved out of core).
   */
  function handlerList() {
    const ml = (name, success, error_message = null) => ({
      name,
      title: name[0].toUpperCase() + name.slice(1),
      type: 'ml',
      class_type: 'ml',
      permanent: false,
      connection_args: null,
      import: {
        success,
        error_message,
        folder: `${name}_handler`,
        dependencies: success === false ? [`${name}>=1.0`] : [],
      },
    });
    return [
      {
        name: 'postgres',
        title: 'PostgreSQL',
        type: 'data',
        import: { success: true, error_message: null, folder: 'postgres_handler', dependencies: [] },
      },
      ml('openai', null),
      ml('anthropic', false, "No module named 'anthropic'"),
      ...(v26() ? [] : [ml('byom', true)]),
    ];
  }

  /**
   * CREATE / SHOW / DROP ML_ENGINE as 25.14.1 and 26.1.0 answer them (measured): the handler only as
   * a bare word ("There is no engine '`openai`'" when quoted), a name with capitals stored as given
   * and then answered with "Integration does not exists: <lower-cased>", DROP by the exact name only,
   * SHOW with the secrets of each engine's settings masked.
   */
  function mlEngineStatement(ast) {
    const handlers = () =>
      handlerList()
        .filter((h) => h.type === 'ml')
        .map((h) => h.name);
    if (ast.node === 'CreateMLEngine') {
      const name = ast.name.parts.at(-1);
      if (!handlers().includes(ast.handler)) return sqlError(`There is no engine '${ast.handler}'`);
      if ([...state.mlEngines.keys()].some((n) => n.toLowerCase() === name.toLowerCase()))
        return ast.if_not_exists
          ? { type: 'ok', affected_rows: null }
          : sqlError(`Integration already exists: ${name}`);
      state.mlEngines.set(name, { name, handler: ast.handler, settings: ast.params || {} });
      return name === name.toLowerCase()
        ? { type: 'ok', affected_rows: null }
        : sqlError(`Integration does not exists: ${name.toLowerCase()}`);
    }
    if (ast.node === 'Show' && ast.category === 'ML_ENGINES') {
      const masked = (settings) =>
        Object.fromEntries(
          Object.entries(settings).map(([k, v]) => [k, /key|secret|token|password/i.test(k) ? '******' : v]),
        );
      return {
        type: 'table',
        column_names: ['NAME', 'HANDLER', 'CONNECTION_DATA'],
        data: [...state.mlEngines.values()].map((e) => [e.name, e.handler, JSON.stringify(masked(e.settings))]),
      };
    }
    if (ast.node === 'DropMLEngine') {
      const name = ast.name.parts.at(-1);
      if (!state.mlEngines.has(name))
        return ast.if_exists ? { type: 'ok', affected_rows: null } : sqlError(`Integration does not exists: ${name}`);
      state.mlEngines.delete(name);
      return { type: 'ok', affected_rows: null };
    }
    return null;
  }

  /**
   * GET /tree/ and /tree/{db} as 25.14.1 and 26.1.0 answer (docs/real-mindsdb.md): the databases
   * (information_schema twice, as system and as project), a data source's tables in one schema
   * "public", a project's models, views and knowledge bases (and the "models" table).
   */
  function tree(res, seg) {
    if (seg.length === 1 && seg[0] === '') {
      send(res, 200, [
        { name: 'information_schema', class: 'db', type: 'system', engine: null, deletable: false, visible: true },
        { name: 'information_schema', class: 'db', type: 'project', engine: null, deletable: true, visible: true },
        ...[...state.projects].map((name) => ({
          name,
          class: 'db',
          type: 'project',
          engine: null,
          deletable: name !== 'mindsdb',
          visible: true,
        })),
        ...[...state.databases.values()].map((d) => ({
          name: d.name,
          class: 'db',
          type: 'data',
          engine: d.engine,
          deletable: true,
          visible: true,
        })),
      ]);
      return;
    }
    const name = String(seg[0]).toLowerCase();
    const db = state.databases.get(name);
    if (db) {
      const children = [...state.tables.entries()]
        .filter(([k]) => k.startsWith(`${db.name.toLowerCase()}/`))
        .map(([, t]) => ({ name: t.name, class: 'table', type: 'table', engine: null, deletable: false }));
      send(res, 200, [{ name: 'public', class: 'schema', deletable: false, children }]);
      return;
    }
    const project = [...state.projects].find((p) => p.toLowerCase() === name);
    if (!project) {
      problem(res, 400, 'Error', `There is no element with name '${name}'`);
      return;
    }
    send(res, 200, [
      { name: 'models', schema: null, class: 'table', type: 'table', engine: null, deletable: false },
      ...[...state.models.entries()]
        .filter(([k]) => k.startsWith(`${project}/`))
        .map(([, m]) => ({
          name: m.name,
          schema: null,
          class: 'table',
          type: 'model',
          engine: m.engine || 'lightwood',
          deletable: true,
        })),
      ...[...state.views.values()]
        .filter((v) => v.project === project)
        .map((v) => ({ name: v.name, schema: null, class: 'table', type: 'view', engine: null, deletable: true })),
      ...[...state.kbs.values()]
        .filter((k) => k.record.project === project)
        .map((k) => ({
          name: k.record.name,
          schema: null,
          class: 'table',
          type: 'knowledge_base',
          engine: null,
          deletable: true,
        })),
    ]);
  }

  function databases(res, method, seg, body) {
    if (seg.length >= 2 && seg[1] === 'tables') {
      tables(res, method, seg, body);
      return;
    }
    if (seg.length === 1 && seg[0] === '') {
      if (method === 'GET') {
        send(res, 200, [
          { name: 'information_schema', type: 'system' },
          { name: 'log', type: 'system' },
          ...[...state.projects].map((name) => ({ name, type: 'project', engine: null })),
          ...[...state.databases.values()],
        ]);
        return;
      }
      if (method === 'POST') {
        const d = body?.database;
        if (!d) {
          problem(res, 400, 'Wrong argument', 'Please provide "database" with the request.');
          return;
        }
        if (!d.name) {
          problem(res, 400, 'Wrong argument', 'Please provide "name" with the request.');
          return;
        }
        if (!d.engine) {
          problem(
            res,
            400,
            'Wrong argument',
            'Please provide "engine" with the request. Or use the /api/projects endpoint to create a project.',
          );
          return;
        }
        if (state.databases.has(d.name.toLowerCase()) || d.name.toLowerCase() === 'mindsdb') {
          problem(res, 409, 'Name conflict', `Database with name ${d.name} already exists.`);
          return;
        }
        if (!['postgres', 'mysql', 'files', 'duckdb', 'sqlite'].includes(d.engine)) {
          if (body.check_connection) {
            send(res, 200, { status: 'connection_error', detail: `Handler '${d.engine}' does not exist` });
            return;
          }
          send(res, 500, {
            title: 'AttributeError',
            detail: "'NoneType' object has no attribute 'get'",
            message: "'NoneType' object has no attribute 'get'",
          });
          return;
        }
        if (body.check_connection && d.parameters && String(d.parameters.port) === '1') {
          send(res, 200, {
            status: 'connection_error',
            detail: 'connection to server at "127.0.0.1", port 1 failed: Connection refused',
          });
          return;
        }
        const rec = {
          id: state.nextId++,
          name: d.name,
          type: 'data',
          engine: d.engine,
          class_type: 'sql',
          connection_data: d.parameters || {},
        };
        state.databases.set(d.name.toLowerCase(), rec);
        send(res, 201, { name: rec.name, type: 'data', engine: rec.engine, id: rec.id });
        return;
      }
      html405(res);
      return;
    }
    const name = seg[0];
    const rec = state.databases.get(name.toLowerCase());
    if (seg.length !== 1) {
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
      return;
    }
    if (method === 'GET') {
      rec ? send(res, 200, rec) : problem(res, 404, 'Database not found', `Database with name ${name} does not exist`);
      return;
    }
    if (method === 'DELETE') {
      if (!rec) {
        problem(res, 404, 'Database not found', `Database with name ${name} does not exist`);
        return;
      }
      state.databases.delete(name.toLowerCase());
      send(res, 204);
      return;
    }
    if (method === 'PUT') {
      const d = body?.database || {};
      // 25.14.1 creates a missing database without the check (measured: 201, saved); 26.1.0 checks first.
      if (body?.check_connection && d.parameters && String(d.parameters.port) === '1' && (rec || v26())) {
        problem(res, 400, 'Connection error', 'connection to server at "127.0.0.1", port 1 failed: Connection refused');
        return;
      }
      if (!rec) {
        if (!d.engine) {
          problem(res, 400, 'Wrong argument', 'Please provide "engine"');
          return;
        }
        const created = {
          id: state.nextId++,
          name,
          type: 'data',
          engine: d.engine,
          class_type: 'sql',
          connection_data: d.parameters || {},
        };
        state.databases.set(name.toLowerCase(), created);
        send(res, 201, { name, type: 'data', engine: d.engine, id: created.id });
        return;
      }
      rec.connection_data = { ...rec.connection_data, ...(d.parameters || {}) };
      send(res, 200, rec);
      return;
    }
    html405(res);
  }

  function projects(res, method, seg, body) {
    if (seg.length === 1 && seg[0] === '') {
      if (method === 'GET') {
        send(
          res,
          200,
          [...state.projects].map((name) => ({ name })),
        );
        return;
      }
      html405(res);
      return;
    }
    const project = seg[0];
    const rest = seg.slice(1);
    const missingRoute = () =>
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
    if (rest.length === 0) {
      method === 'GET'
        ? state.projects.has(project)
          ? send(res, 200, { name: project })
          : problem(res, 404, 'Project not exists', `Project with name ${project} does not exist`)
        : html405(res);
      return;
    }
    const kind = rest[0];
    if (
      !['models', 'chatbots', 'skills', 'agents', 'jobs', 'knowledge_bases', 'views'].includes(kind) ||
      (kind === 'skills' && v26()) ||
      (kind === 'views' && !opts.views)
    ) {
      // the specification's singular agent DELETE path is not a route on the real server
      missingRoute();
      return;
    }
    if (!state.projects.has(project)) {
      problem(res, 404, 'Project not found', `Project with name ${project} does not exist`);
      return;
    }
    // Knowledge bases and chatbots look their project up lower-cased: none can be made in a project with capitals
    // (measured).
    if ((kind === 'knowledge_bases' || kind === 'chatbots') && method === 'POST' && project !== project.toLowerCase()) {
      const detail = `'${v26() ? 'NoneType' : 'list'}' object has no attribute 'data'`;
      send(res, 500, { title: 'AttributeError', detail, message: detail });
      return;
    }
    if (kind === 'models') return models(res, method, project, rest.slice(1), body);
    if (kind === 'jobs') return jobs(res, method, project, rest.slice(1), body);
    if (kind === 'knowledge_bases') return knowledgeBases(res, method, project, rest.slice(1), body);
    if (kind === 'views') {
      views(res, method, project, rest.slice(1), body).catch((err) =>
        send(res, 500, { title: err.constructor.name, detail: String(err.message), message: String(err.message) }),
      );
      return;
    }
    return resources(res, method, kind, project, rest.slice(1), body, missingRoute);
  }

  /**
   * Views as 25.14.1 and 26.1.0 answer: every route finds a view by name in any case; POST of an
   * existing one is 409, of a query MindsDB cannot parse 500; PUT ({view: {query}}) creates a
   * missing view (201); DELETE answers 204.
   */
  async function views(res, method, project, rest, body) {
    const notFound = (name) => problem(res, 404, 'View not found', `View with name ${name} does not exist`);
    const parseFails = async (query) => {
      const parsed = await sqlParser.parse(String(query));
      if (parsed.ok) return false;
      send(res, 500, { title: 'ParsingException', detail: parsed.error, message: parsed.error });
      return true;
    };
    const out = (v) => ({ id: v.id, name: v.name, query: v.query });
    // The view store looks the project up lower-cased: a project with capitals can hold no views.
    const capitals = () => {
      if (project === project.toLowerCase()) return false;
      send(res, 500, {
        title: 'EntityNotExistsError',
        detail: `Can not find project: ${project}`,
        message: `Can not find project: ${project}`,
      });
      return true;
    };
    if (rest.length === 0) {
      if (method === 'GET') {
        send(res, 200, [...state.views.values()].filter((v) => v.project === project).map(out));
        return;
      }
      if (method !== 'POST') {
        html405(res);
        return;
      }
      const view = body?.view;
      if (!view) {
        problem(res, 400, 'Missing parameter', 'Must provide "view" parameter in POST body');
        return;
      }
      if (!view.name) {
        problem(res, 400, 'Missing field', 'Missing "name" field for view');
        return;
      }
      if (!view.query) {
        problem(res, 400, 'Missing field', 'Missing "query" field for view');
        return;
      }
      if (findView(project, view.name)) {
        problem(res, 409, 'Name conflict', `View with name ${view.name} already exists.`);
        return;
      }
      if (capitals()) return;
      if (await parseFails(view.query)) return;
      const rec = { id: state.nextId++, name: view.name, query: view.query, project };
      state.views.set(`${project}/${view.name}`, rec);
      send(res, 201, out(rec));
      return;
    }
    if (rest.length !== 1) {
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
      return;
    }
    const rec = findView(project, rest[0]);
    if (method === 'GET') {
      rec ? send(res, 200, out(rec)) : notFound(rest[0]);
      return;
    }
    if (method === 'DELETE') {
      if (!rec) {
        notFound(rest[0]);
        return;
      }
      state.views.delete(`${project}/${rec.name}`);
      send(res, 204);
      return;
    }
    if (method === 'PUT') {
      const view = body?.view;
      if (!view) {
        problem(res, 400, 'Missing parameter', 'Must provide "view" parameter in PUT body');
        return;
      }
      // A missing view is created (its query checked, as by POST); an existing one takes any query (measured).
      if (!rec && view.query !== undefined && (await parseFails(view.query))) return;
      if (capitals()) return;
      if (!rec) {
        const created = { id: state.nextId++, name: rest[0], query: view.query, project };
        state.views.set(`${project}/${rest[0]}`, created);
        send(res, 201, out(created));
        return;
      }
      if (view.query !== undefined) rec.query = view.query;
      send(res, 200, out(rec));
      return;
    }
    html405(res);
  }

  /** Jobs as 25.14.1 and 26.1 answer: 500 for a missing start_at/end_at key, a duplicate, or deleting a missing job. */
  function jobs(res, method, project, rest, body) {
    const key = (n) => `${project}/${n}`;
    if (rest.length === 0) {
      if (method === 'GET') {
        send(
          res,
          200,
          [...state.jobs.values()].filter((j) => j.project === project),
        );
        return;
      }
      if (method !== 'POST') {
        html405(res);
        return;
      }
      const job = body?.job;
      if (!job) {
        problem(res, 400, 'Missing parameter', 'Must provide "job" parameter in POST body');
        return;
      }
      for (const k of ['start_at', 'end_at'])
        if (!(k in job)) {
          send(res, 500, { title: 'KeyError', detail: `'${k}'`, message: `'${k}'` });
          return;
        }
      if (state.jobs.has(key(job.name))) {
        send(res, 500, {
          title: 'EntityExistsError',
          detail: `Job already exists: ${job.name}`,
          message: `Job already exists: ${job.name}`,
        });
        return;
      }
      const rec = {
        id: state.nextId++,
        name: job.name,
        project,
        start_at: job.start_at || '2026-01-01 00:00:00',
        end_at: job.schedule_str ? job.end_at : null,
        next_run_at: job.start_at || '2026-01-01 00:00:00',
        schedule_str: job.schedule_str || null,
        query: job.query,
        if_query: job.if_query || null,
        variables: [],
      };
      state.jobs.set(key(job.name), rec);
      send(res, 200, rec);
      return;
    }
    const rec = state.jobs.get(key(rest[0]));
    if (rest.length === 2 && rest[1] === 'history' && method === 'GET') {
      rec
        ? send(res, 200, [
            {
              name: rec.name,
              project,
              run_start: '2026-01-01 00:00:00',
              run_end: '2026-01-01 00:00:01',
              error: null,
              query: rec.query,
            },
          ])
        : problem(res, 404, 'Job not found', `Job with name ${rest[0]} does not exist`);
      return;
    }
    if (rest.length !== 1) {
      method === 'GET'
        ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
        : html405(res);
      return;
    }
    if (method === 'GET') {
      rec ? send(res, 200, rec) : problem(res, 404, 'Job not found', `Job with name ${rest[0]} does not exist`);
      return;
    }
    if (method === 'DELETE') {
      if (!rec) {
        send(res, 500, {
          title: 'EntityNotExistsError',
          detail: `Job does not exist: ${rest[0]}`,
          message: `Job does not exist: ${rest[0]}`,
        });
        return;
      }
      state.jobs.delete(key(rest[0]));
      send(res, 204);
      return;
    }
    html405(res);
  }

  function models(res, method, project, rest, body) {
    if (rest.length === 0 && method === 'GET') {
      const trainedRecords = [...state.trained.entries()]
        .filter(([k]) => k.startsWith(`${project}/`))
        .flatMap(([, vs]) => vs.map(modelRecord));
      send(res, 200, [
        ...[...state.models.entries()]
          .filter(([k]) => k.startsWith(`${project}/`))
          .map(([, m]) => ({ ...m, version: 1, active: true })),
        ...trainedRecords,
      ]);
      return;
    }
    const versioned = /^(.+)\.(\d+)$/.exec(rest[0] || '');
    const trainedVersions = state.trained.get(`${project}/${versioned ? versioned[1] : rest[0]}`);
    if (trainedVersions && rest.length === 1 && method === 'GET') {
      const v = versioned
        ? trainedVersions.find((x) => x.version === Number(versioned[2]))
        : trainedVersions.find((x) => x.active);
      if (!v) {
        problem(res, 404, 'Model not found', `Model with name ${rest[0]} not found`);
        return;
      }
      v.polls++;
      if (v.status !== 'complete' && v.status !== 'error')
        v.status = v.polls >= 2 ? (v.engine === 'broken' ? 'error' : 'complete') : 'training';
      if (v.status === 'error') v.error = 'the engine failed to train';
      send(res, 200, modelRecord(v));
      return;
    }
    if (rest.length === 2 && rest[1] === 'describe' && method === 'GET') {
      // REST describe: the DESCRIBE rows as objects (needs a JSON body, checked above: 415 without one)
      const v =
        trainedVersions &&
        (versioned
          ? trainedVersions.find((x) => x.version === Number(versioned[2]))
          : trainedVersions.find((x) => x.active));
      if (!v) {
        problem(res, 404, 'Model not found', `Model with name ${rest[0]} not found`);
        return;
      }
      send(res, 200, [Object.fromEntries(['TABLES', ...MODEL_COLUMNS].map((c, i) => [c, [[], ...modelRow(v)][i]]))]);
      return;
    }
    if (trainedVersions && rest.length === 1 && method === 'DELETE') {
      state.trained.delete(`${project}/${rest[0]}`);
      send(res, 204);
      return;
    }
    // as the real server (25.14.1 and 26.1.0): a DELETE of a model it does not have is a 404
    if (rest.length === 1 && method === 'DELETE' && !state.models.has(`${project}/${rest[0]}`)) {
      problem(res, 404, 'Model not found', `Model with name ${rest[0]} not found`);
      return;
    }
    const m = state.models.get(`${project}/${rest[0]}`);
    if (rest.length === 1 && method === 'GET') {
      m
        ? send(res, 200, { ...m, version: 1, active: true })
        : problem(res, 404, 'Model not found', `Model with name ${rest[0]} not found`);
      return;
    }
    if (rest.length === 2 && rest[1] === 'predict' && method === 'POST') {
      if (!m) {
        problem(res, 404, 'Model not found', `Model with name ${rest[0]} not found`);
        return;
      }
      if (Array.isArray(body)) {
        send(res, 500, {
          title: 'TypeError',
          detail: 'list indices must be integers or slices, not str',
          message: 'list indices must be integers or slices, not str',
        });
        return;
      }
      if (!body || !('data' in body)) {
        send(res, 500, { title: 'KeyError', detail: "'data'", message: "'data'" });
        return;
      }
      if (!Array.isArray(body.data)) {
        send(res, 500, {
          title: 'ValueError',
          detail: 'If using all scalar values, you must pass an index',
          message: 'If using all scalar values, you must pass an index',
        });
        return;
      }
      const target = m.predict;
      send(
        res,
        200,
        body.data.map((row, i) => {
          const value = typeof row.sqft === 'number' ? row.sqft * 3 + 100 : 1000;
          if (!m.explain) return { ...row, [target]: value };
          return {
            ...row,
            [target]: value,
            [`${target}_confidence`]: 0.9,
            [`${target}_min`]: value - 10,
            [`${target}_max`]: value + 10,
            [`${target}_anomaly`]: null,
            [`${target}_original`]: null,
            [`${target}_explain`]: JSON.stringify({
              predicted_value: value,
              confidence: 0.9,
              anomaly: null,
              truth: null,
              confidence_lower_bound: value - 10,
              confidence_upper_bound: value + 10,
            }),
            __mindsdb_row_id: i + 1,
            select_data_query: null,
            when_data: null,
          };
        }),
      );
      return;
    }
    method === 'GET'
      ? problem(res, 404, 'Not found', 'The endpoint you are trying to access does not exist on the server.')
      : html405(res);
  }

  function resources(res, method, kind, project, rest, body, missingRoute) {
    const store = state[kind];
    const wrapper = kind.slice(0, -1);
    const keyOf = (n) => `${project}/${n}`;
    // The real server finds chatbots, skills and agents by name only.
    const find = (name) => store.get(keyOf(name));
    const notFound = () =>
      problem(
        res,
        404,
        `${wrapper[0].toUpperCase()}${wrapper.slice(1)} not found`,
        `${wrapper} with name ${rest[0]} does not exist`,
      );
    if (rest.length === 0) {
      if (method === 'GET') {
        send(
          res,
          200,
          [...store.values()].filter((r) => r.project === project),
        );
        return;
      }
      if (method === 'POST') {
        const rec = body?.[wrapper];
        if (!rec) {
          problem(res, 400, 'Missing parameter', `Must provide ${wrapper} data for creating a new ${wrapper}`);
          return;
        }
        if (!rec.name) {
          problem(res, 400, 'Missing field', 'Missing "name" field');
          return;
        }
        if (kind === 'skills' && (!rec.type || !rec.params)) {
          problem(res, 400, 'Missing field', 'Missing "type" or "params" field');
          return;
        }
        if (kind === 'chatbots' && !rec.model_name && !rec.agent_name) {
          problem(res, 400, 'Missing field', 'Must include either "model_name" or "agent_name"');
          return;
        }
        if (store.has(keyOf(rec.name))) {
          problem(res, 409, `${wrapper} already exists`, `${wrapper} with name ${rec.name} already exists`);
          return;
        }
        if (kind === 'agents' && v26()) {
          // 26.x: params checked strictly and an LLM called at once; either failing is a (misleading) 404
          const model = rec.model || (rec.model_name ? { model_name: rec.model_name, provider: rec.provider } : null);
          const badParams = Object.keys(rec.params || {}).filter(
            (k) => !['prompt_template', 'model', 'data', 'timeout', 'mode'].includes(k),
          );
          if (badParams.length || !model || !model.provider || !model.api_key) {
            problem(
              res,
              404,
              'Resource not found',
              `The model "${JSON.stringify(model)}" does not exist. Please ensure that the name is correct and try again.`,
            );
            return;
          }
        }
        if (kind === 'chatbots' && v26() && rec.agent_name) {
          const agent = state.agents.get(keyOf(rec.agent_name));
          if (agent && !agent.model_name) {
            send(res, 500, {
              title: 'AttributeError',
              detail: "'NoneType' object has no attribute 'split'",
              message: "'NoneType' object has no attribute 'split'",
            });
            return;
          }
        }
        const created = { id: state.nextId++, project, ...rec };
        if (kind === 'skills') created.agent_ids = [];
        if (kind === 'agents' && Array.isArray(rec.skills)) {
          for (const s of rec.skills) {
            const sk = store === state.skills ? null : state.skills.get(keyOf(typeof s === 'string' ? s : s.name));
            if (sk) sk.agent_ids.push(created.id);
          }
        }
        store.set(keyOf(rec.name), created);
        send(res, 201, created);
        return;
      }
      html405(res);
      return;
    }
    if (kind === 'agents' && rest.length >= 2 && rest[1] === 'completions') {
      if (method !== 'POST') {
        html405(res);
        return;
      }
      const agent = find(rest[0]);
      if (!body || !Array.isArray(body.messages)) {
        problem(res, 400, 'Missing parameter', 'Must provide "messages" parameter in POST body');
        return;
      }
      if (!agent) {
        notFound();
        return;
      }
      const question = body.messages[body.messages.length - 1].question;
      if (rest.length === 2) {
        if (state.completionsFail || v26()) {
          send(res, 500, { title: 'KeyError', detail: "'trace_id'", message: "'trace_id'" });
          return;
        }
        send(res, 200, { message: { content: `answer to: ${question}`, role: 'assistant', trace_id: '' } });
        return;
      }
      if (rest.length === 3 && rest[2] === 'stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const events =
          state.stream ||
          (v26()
            ? [
                { type: 'context', content: 'Creating execution plan...' },
                { type: 'data', text: `answer to: ${question}`, trace_id: '' },
                { type: 'end', trace_id: '' },
                { type: 'end' },
              ]
            : [
                { type: 'start', prompt: question },
                { actions: [], messages: [] },
                { output: `answer to: ${question}`, messages: [{ content: `answer to: ${question}` }] },
                { type: 'end' },
              ]);
        for (const e of events) res.write(`data: ${JSON.stringify(e).replace(/":/g, '": ').replace(/,"/g, ', "')}\n\n`);
        res.end();
        return;
      }
      missingRoute();
      return;
    }
    if (rest.length !== 1) {
      missingRoute();
      return;
    }
    const existing = find(rest[0]);
    if (method === 'GET') {
      existing ? send(res, 200, existing) : notFound();
      return;
    }
    if (method === 'DELETE') {
      if (!existing) {
        notFound();
        return;
      }
      store.delete(keyOf(existing.name));
      send(res, 204);
      return;
    }
    if (method === 'PUT') {
      const rec = body?.[wrapper] || {};
      if (!existing) {
        if (kind === 'agents') {
          problem(res, 400, 'Creation is not allowed', 'Creation of an agent using the PUT method is not allowed.');
          return;
        }
        if (kind === 'chatbots' && !rec.name) {
          problem(res, 400, 'Missing field', 'Must include "name" field when creating a chatbot');
          return;
        }
        const created = { id: state.nextId++, project, ...rec, name: kind === 'skills' ? rest[0] : rec.name };
        if (kind === 'skills') created.agent_ids = [];
        store.set(keyOf(created.name), created);
        send(res, 201, created);
        return;
      }
      if (kind === 'agents' && !v26() && Array.isArray(rec.skills)) {
        // 25.14.1 takes skills_to_add / skills_to_remove; a skills list in an update fails.
        send(res, 500, { title: 'TypeError', detail: "unhashable type: 'dict'", message: "unhashable type: 'dict'" });
        return;
      }
      if (kind === 'agents' && v26()) {
        const bad = Object.keys(rec.params || {}).find(
          (k) => !['prompt_template', 'model', 'data', 'timeout', 'mode'].includes(k),
        );
        if (bad) {
          problem(res, 400, 'Wrong arguments', `Problem with agent parameters: Parameter '${bad}' is not allowed`);
          return;
        }
      }
      Object.assign(existing, rec);
      send(res, 200, existing);
      return;
    }
    html405(res);
  }

  const api = {
    state,
    options: opts,
    url: '',
    port: 0,
    get requests() {
      return state.requests;
    },
    /** Requests whose path starts with the prefix + `path` (e.g. '/sql/query'). */
    requestsTo(path) {
      return state.requests.filter((r) => r.path === opts.prefix + path || r.path.startsWith(`${opts.prefix + path}?`));
    },
    /** Queues a fault handler for the next request: (req, res, entry) => void (return false to fall through). */
    fault(fn, times = 1) {
      for (let i = 0; i < times; i++) state.faults.push(fn);
    },
    clearFaults() {
      state.faults.length = 0;
      state.faultPlan = null;
    },
    /** Forgets every token and session, as a real server restart does. */
    restart() {
      state.tokens.clear();
      state.sessions.clear();
    },
    /** Listens on loopback; resolves once MindsDB's parser (shared by every fake in this process) answers too. */
    async listen(port = 0) {
      const ready = sqlParser.parse('SELECT 1');
      // A port already taken is an error here, not an uncaught 'error' event later.
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      api.port = server.address().port;
      api.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${api.port}`;
      const warm = await ready;
      if (!warm.ok) throw new Error(`MindsDB's SQL parser refused SELECT 1: ${warm.error}`);
      return api;
    },
    close() {
      for (const s of state.sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

module.exports = { createFakeMindsDB };
