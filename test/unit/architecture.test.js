'use strict';
/**
 * The floors of src/ (docs/architecture.md): every import in src/ is checked against the rooms table
 * of that page, which is read here, so the page and the code cannot drift apart. An import into
 * another room of the client must go through its index.ts (the room's door).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const src = path.join(root, 'src');

/** The rooms table: room → the rooms it may import. */
function readRooms() {
  const doc = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const table = /<!-- rooms:[^>]*-->([\s\S]*?)<!-- \/rooms -->/.exec(doc);
  assert.ok(table, 'docs/architecture.md has no rooms table between <!-- rooms --> markers');
  const rooms = new Map();
  for (const line of table[1].split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length !== 3 || !cells[0].startsWith('`')) continue;
    const name = cells[0].replace(/`/g, '');
    const allowed = cells[2] === '' ? [] : cells[2].split(',').map((c) => c.trim().replace(/`/g, ''));
    rooms.set(name, allowed);
  }
  return rooms;
}

/** The room of a file under src/: the deepest folder the table names, `nodes` for src/mindsdb-*.ts. */
function roomOf(file, rooms) {
  const rel = path.relative(src, file).split(path.sep).join('/');
  if (!rel.includes('/')) return /^mindsdb-.*\.ts$/.test(rel) ? 'nodes' : undefined;
  if (rel === 'client/index.ts') return 'client';
  const dir = path.posix.dirname(rel);
  return rooms.has(dir) ? dir : undefined;
}

function tsFiles(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Static imports and re-exports of a file (`import … from 'x'`, `export … from 'x'`, `import 'x'`). */
function importsOf(text) {
  const specs = [];
  const re = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(text)); ) specs.push(m[1]);
  const dynamic = /\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m; (m = dynamic.exec(text)); ) specs.push(m[1] ?? m[2]);
  return specs;
}

function resolveLocal(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** Every broken rule in `files` ({path, text}), as readable lines. */
function violations(files, rooms) {
  const found = [];
  for (const { file, text } of files) {
    const room = roomOf(file, rooms);
    const where = path.relative(root, file);
    if (room === undefined) {
      found.push(`${where} is in no room of docs/architecture.md`);
      continue;
    }
    for (const spec of importsOf(text)) {
      if (room === 'common') {
        found.push(`${where} imports ${spec}: common imports nothing (the editor bundles it for the browser)`);
        continue;
      }
      if ((room.startsWith('client') || room.startsWith('store')) && /^(node-red|@node-red\/)/.test(spec)) {
        found.push(
          `${where} imports ${spec}: the ${room.startsWith('store') ? 'store' : 'client'} knows nothing of Node-RED`,
        );
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = resolveLocal(file, spec);
      if (!target) {
        found.push(`${where} imports ${spec}, which is not a file under src/`);
        continue;
      }
      const targetRoom = roomOf(target, rooms);
      if (targetRoom === room) continue;
      if (!rooms.get(room).includes(targetRoom)) {
        found.push(
          `${where} (${room}) imports ${spec} (${targetRoom}): ${room} may import ${rooms.get(room).join(', ') || 'nothing'}`,
        );
      } else if (hasDoor(targetRoom) && path.basename(target) !== 'index.ts') {
        found.push(`${where} imports ${spec}: another room is entered through its index.ts`);
      }
    }
  }
  return found;
}

/** A room with a door: every room of the client, and each runtime room that has an index.ts. */
function hasDoor(room) {
  return room.startsWith('client') || (room.startsWith('runtime/') && fs.existsSync(path.join(src, room, 'index.ts')));
}

/** The import circles among files (each as its files, first repeated last), by depth-first search. */
function circles(edges) {
  const found = [];
  const state = new Map(); // file -> 'open' while on the path, 'done' after
  const stack = [];
  const visit = (file) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  return found;
}

/** A string that starts with one of MindsDB's REST routes (below the API prefix). */
const REST_PATH =
  /['"`]\/(projects|databases|files|sql|status|login|logout|handlers|integrations|tree|config|models|agents|skills|chatbots|jobs|knowledge_bases|ml_engines|views)\b/;

describe('architecture: imports run one way between the rooms of docs/architecture.md', () => {
  const rooms = readRooms();

  it('the rooms table names each room of src/client/, the runtime, the editor and common, and what it may import', () => {
    for (const r of [
      'client/shared',
      'client/exchange',
      'client/answers',
      'client/connection',
      'client/resources',
      'client',
      'store',
      'store/api',
      'store/embedded',
      'store/postgres',
      'runtime/node',
      'runtime/status',
      'runtime/message',
      'runtime/outbox',
      'runtime/sql-answers',
      'runtime/incremental',
      'runtime/agent',
      'runtime/writers',
      'runtime/editor',
      'nodes',
      'common',
      'editor',
      'editor/shared',
      'editor/sql-assist',
      'editor/sidebar',
    ]) {
      assert.ok(rooms.has(r), `room ${r} is missing from docs/architecture.md`);
    }
    for (const dir of fs
      .readdirSync(path.join(src, 'client'), { withFileTypes: true })
      .filter((e) => e.isDirectory())) {
      assert.ok(rooms.has(`client/${dir.name}`), `src/client/${dir.name}/ is not a room of docs/architecture.md`);
      assert.ok(
        fs.existsSync(path.join(src, 'client', dir.name, 'index.ts')),
        `src/client/${dir.name}/ has no index.ts (its door)`,
      );
    }
    for (const dir of fs.readdirSync(path.join(src, 'runtime'), { withFileTypes: true })) {
      assert.ok(dir.isDirectory(), `src/runtime/${dir.name} is a file: runtime/ holds only its rooms (folders)`);
      assert.ok(rooms.has(`runtime/${dir.name}`), `src/runtime/${dir.name}/ is not a room of docs/architecture.md`);
    }
    for (const allowed of rooms.values())
      for (const r of allowed) assert.ok(rooms.has(r), `unknown room ${r} in a may-import column`);
  });

  it('no source file of src/ is over 300 lines (a file that grows past it holds more than one job)', () => {
    const long = tsFiles(src)
      .map((file) => [path.relative(root, file), fs.readFileSync(file, 'utf8').split('\n').length - 1])
      .filter(([, n]) => n > 300);
    assert.deepEqual(long, []);
  });

  it('no line of src/ is over 120 characters (the formatter wraps code; text and comments are wrapped by hand)', () => {
    const long = [];
    for (const file of tsFiles(src)) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.length > 120) long.push(`${path.relative(root, file)}:${i + 1} (${line.length})`);
        });
    }
    assert.deepEqual(long, []);
  });

  it('no file of src/ imports itself through a circle of others', () => {
    const files = tsFiles(src);
    const edges = new Map(
      files.map((file) => [
        file,
        importsOf(fs.readFileSync(file, 'utf8'))
          .filter((s) => s.startsWith('.'))
          .map((s) => resolveLocal(file, s))
          .filter(Boolean),
      ]),
    );
    assert.deepEqual(
      circles(edges).map((c) => c.map((f) => path.relative(src, f)).join(' -> ')),
      [],
    );
  });

  it('every import in src/ follows the table', () => {
    const files = tsFiles(src).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
    assert.deepEqual(violations(files, rooms), []);
  });

  it('writes REST paths only in the client: the runtime, the node files and the editor call the resources', () => {
    const found = [];
    for (const file of tsFiles(src)) {
      const room = roomOf(file, rooms);
      if (room === undefined || room.startsWith('client')) continue;
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/^\s*(\*|\/\/)/.test(line)) return; // a comment may name a route
        if (REST_PATH.test(line)) found.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, [], 'call the resource in src/client/resources that has the route');
    assert.ok(
      REST_PATH.test("await c.request('GET', `/projects/${p}/models`)") &&
        REST_PATH.test("request('GET', '/databases/')"),
      'the check sees a route',
    );
  });

  it('catches an import up a floor, one that skips a door, and Node-RED in the client', () => {
    const at = (rel, text) => ({ file: path.join(src, rel), text });
    const found = violations(
      [
        at('client/exchange/transport.ts', "import { MindsDBClient } from '../connection';\n"),
        at('client/resources/files.ts', "import { discard } from '../exchange';\n"),
        at('client/resources/models.ts', "import { MindsDBError } from '../shared/errors';\n"),
        at('client/answers/rows.ts', "import type { Node } from 'node-red';\n"),
        at('runtime/node/server.ts', "import { HttpTransport } from '../../client/exchange';\n"),
        at('common/sql-names.ts', "import { format } from 'node:util';\n"),
        at('editor/shared/explorer.ts', "import { TreeApi } from '../../client/resources';\n"),
      ],
      rooms,
    );
    assert.equal(found.length, 7, found.join('\n'));
    assert.match(found[0], /client\/exchange may import client\/shared/);
    assert.match(found[1], /client\/resources may import/);
    assert.match(found[2], /through its index\.ts/);
    assert.match(found[3], /knows nothing of Node-RED/);
    assert.match(found[4], /runtime\/node may import client/);
    assert.match(found[5], /common imports nothing/);
    assert.match(found[6], /editor\/shared may import common/);
  });
});
