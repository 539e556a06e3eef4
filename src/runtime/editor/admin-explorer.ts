import { isPlainObject as isObject, readOnlyStatement, TreeApi, type MindsDBClient } from '../../client';
import type { NodeAPI } from '../node/red';
import { jsonOnly, needs, withServer, writeForDialogValues, type Req, type Res } from './admin-guards';

/** The most rows a preview shows; one more is read to know whether there are more. */
export const PREVIEW_ROWS = 20;

/** One level of the sidebar's tree: the roots, or what one item holds. */
async function treeLevel(client: MindsDBClient, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const tree = new TreeApi(client);
  const name = (key: string): string => {
    const v = body[key];
    if (typeof v !== 'string' || v === '') throw new Error(`the tree request has no ${key}`);
    return v;
  };
  switch (body.kind) {
    case undefined:
      return { items: await tree.roots() };
    case 'datasource':
      return { items: await tree.dataSource(name('database')) };
    case 'project':
      return { items: await tree.project(name('database')) };
    case 'columns':
      return { items: await tree.columns(name('database'), name('table')) };
    default:
      throw new Error(`the tree has no level "${String(body.kind)}"`);
  }
}

/** Runs a statement that reads and keeps at most PREVIEW_ROWS of its rows (the rest is never read). */
async function preview(
  client: MindsDBClient,
  query: string,
  database: string | undefined,
): Promise<Record<string, unknown>> {
  const stream = await client.sqlStream({ query, ...(database ? { context: { db: database } } : {}) });
  try {
    if (stream.type === 'ok') return { columns: [], rows: [], more: false };
    const rows: unknown[][] = [];
    while (rows.length <= PREVIEW_ROWS && !stream.done) {
      const got = await stream.read(PREVIEW_ROWS + 1 - rows.length);
      if (got.length === 0) break;
      rows.push(...got);
    }
    return { columns: stream.columns, rows: rows.slice(0, PREVIEW_ROWS), more: rows.length > PREVIEW_ROWS };
  } finally {
    stream.close();
  }
}

/**
 * The MindsDB sidebar's tree and the sql and view dialogs' preview, under the guards of every
 * editor endpoint (./admin-guards.ts):
 * - POST mindsdb/tree {server, config?, kind?, database?, table?}: names, kinds, engines, model
 *   states, job runs and column types, never a setting; the narrowest permission, the same as the
 *   name pickers' (mindsdb-server.read; dialog values take mindsdb-server.write);
 * - POST mindsdb/preview {server, config?, query, database?}: `flows.write`, as deploying the
 *   query would take; only a statement that reads runs, decided by the package's own copy of
 *   MindsDB's lexer before anything is sent (readOnlyStatement); on the server node's own URL,
 *   credentials, timeout and answer limit (a new or changed node: its dialog's); at most
 *   PREVIEW_ROWS rows go back, or MindsDB's error.
 */
export function registerExplorerRoutes(RED: NodeAPI): void {
  RED.httpAdmin.post(
    '/mindsdb/tree',
    jsonOnly,
    needs(RED, 'mindsdb-server.read'),
    writeForDialogValues(RED),
    async (req: Req, res: Res) => {
      const body = isObject(req.body) ? req.body : {};
      await withServer(RED, body, res, (client) => treeLevel(client, body));
    },
  );

  RED.httpAdmin.post(
    '/mindsdb/preview',
    jsonOnly,
    needs(RED, 'flows.write'),
    writeForDialogValues(RED),
    async (req: Req, res: Res) => {
      const body = isObject(req.body) ? req.body : {};
      const query = typeof body.query === 'string' ? body.query : '';
      const verdict = readOnlyStatement(query);
      if (!verdict.readOnly) {
        res.json({
          ok: false,
          refused: true,
          error: `the preview runs only a statement that reads: ${verdict.reason}`,
        });
        return;
      }
      const database =
        typeof body.database === 'string' && body.database.trim() !== '' ? body.database.trim() : undefined;
      // A new or changed server node previews with its dialog's timeout and answer limit, as it would run.
      await withServer(
        RED,
        body,
        res,
        (client) => preview(client, query, database),
        (target) => {
          const own = target.clientOptions();
          return { timeoutMs: own.timeoutMs, maxResponseBytes: own.maxResponseBytes };
        },
      );
    },
  );
}
