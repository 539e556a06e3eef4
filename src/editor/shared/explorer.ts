import type { TreeItem } from '../../common/tree-item';
import { postJson, serverRequest } from './server-choice';

/**
 * What the sidebar and the SQL completion ask the runtime about a server (POST mindsdb/tree,
 * src/runtime/editor/admin-explorer.ts): one level at a time, kept until `forget` (the sidebar's
 * refresh), so that opening a data source again, or completing in another dialog, asks nothing.
 */

/** One item of the tree, as the runtime sends it (declared once, for the client and the editor). */
export type { TreeItem };

/** Which level: the roots, or what a data source, a project or a table holds. */
export interface TreeLevel {
  kind?: 'datasource' | 'project' | 'columns';
  database?: string;
  table?: string;
}

interface TreeAnswer {
  ok?: boolean;
  items?: TreeItem[];
  error?: string;
}

/** The text of the runtime's error, or the request's own failure. */
export class ExplorerError extends Error {}

const cache = new Map<string, Promise<TreeItem[]>>();
const keyOf = (server: string, level: TreeLevel): string =>
  JSON.stringify([server, level.kind ?? '', level.database ?? '', level.table ?? '']);

/** One level of `server`'s tree; a failure is not kept (the next ask tries again). */
export function treeLevel(server: string, level: TreeLevel = {}): Promise<TreeItem[]> {
  const key = keyOf(server, level);
  const known = cache.get(key);
  if (known) return known;
  const pending = postJson<TreeAnswer>('mindsdb/tree', { ...serverRequest(server), ...level }, 60000).then((res) => {
    if (res?.ok && Array.isArray(res.items)) return res.items;
    throw new ExplorerError(res && typeof res.error === 'string' ? res.error : 'no answer');
  });
  cache.set(key, pending);
  pending.catch(() => {
    if (cache.get(key) === pending) cache.delete(key);
  });
  return pending;
}

/** Forgets what is known of `server` (or of every server). */
export function forget(server?: string): void {
  for (const key of [...cache.keys()])
    if (server === undefined || (JSON.parse(key) as string[])[0] === server) cache.delete(key);
}

/** The package's own catalogue (nodes/locales/<lang>/mindsdb-sidebar.json), loaded with the editor's plugins. */
export function text(key: string, values?: Record<string, unknown>): string {
  return RED._(`@mindsdb-flows/node-red-mindsdb/mindsdb-sidebar:${key}`, values);
}
