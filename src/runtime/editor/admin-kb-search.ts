import { isPlainObject as isObject, kbConditions, KnowledgeBasesApi, plainJson } from '../../client';
import type { NodeAPI } from '../node/red';
import { jsonOnly, needs, withServer, writeForDialogValues, type Req, type Res } from './admin-guards';

/** The most rows the sidebar's preview of a knowledge base shows. */
export const KB_PREVIEW_ROWS = 20;

/**
 * The MindsDB sidebar's preview of a knowledge base: POST mindsdb/kb-search {server, config?,
 * project, name, text, filter?} searches it as the knowledge-base node does (the filter is the
 * node's: an object of metadata column → condition, checked against the columns MindsDB stored,
 * values bound), at most KB_PREVIEW_ROWS rows. `flows.write`, as the SQL preview: a search embeds
 * its text, a call that may be billed.
 */
export function registerKnowledgeBaseSearchRoute(RED: NodeAPI): void {
  RED.httpAdmin.post(
    '/mindsdb/kb-search',
    jsonOnly,
    needs(RED, 'flows.write'),
    writeForDialogValues(RED),
    async (req: Req, res: Res) => {
      const body = isObject(req.body) ? req.body : {};
      await withServer(RED, body, res, async (client) => {
        const text = (key: string): string => {
          const v = body[key];
          if (typeof v !== 'string' || v.trim() === '') throw new Error(`the knowledge-base search has no ${key}`);
          return v;
        };
        const filter = kbConditions(plainJson(body.filter, 'the filter'), 'the filter');
        const answer = await new KnowledgeBasesApi(client).search(
          text('project'),
          text('name'),
          { text: text('text'), filter, limit: KB_PREVIEW_ROWS },
          {},
        );
        return { columns: answer.columns, rows: answer.rows };
      });
    },
  );
}
