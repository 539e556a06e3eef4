import { text } from '../shared/explorer';
import { postJson, serverRequest } from '../shared/server-choice';
import type { SidebarTree } from './tree';

/**
 * The sidebar's preview of a knowledge base: a click on one opens a search box under the tree, with
 * a filter on its metadata columns written as the knowledge-base node's (JSON: `{"product": "boiler",
 * "year": {">=": 2024}}`); POST mindsdb/kb-search (src/runtime/editor/admin-kb-search.ts) searches it
 * as the node does and shows at most 20 rows, or MindsDB's error, or why the filter was refused.
 */

interface SearchAnswer {
  ok?: boolean;
  error?: string;
  columns?: string[];
  rows?: Array<Record<string, unknown>>;
}

/** The answer's columns worth a glance: the chunk, its relevance and the metadata columns. */
const HIDDEN = new Set(['distance', 'chunk_id', 'metadata']);

const cell = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

// The preview takes at most 45% of the tab and scrolls as a whole: in a short section (Node-RED 5's left
// sidebar shares its height with the palette) its rows were squeezed to nothing and its status drawn over the hint.
export const KB_PREVIEW_STYLE = `
.mindsdb-kb-preview { padding: 6px 8px; display: none; flex-direction: column; gap: 4px; max-height: 45%;
  overflow-y: auto; border-top: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
.mindsdb-kb-preview > * { flex-shrink: 0; }
.mindsdb-kb-preview-head { display: flex; align-items: center; gap: 6px; font-weight: bold; }
.mindsdb-kb-preview-head span { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.mindsdb-kb-preview input { width: 100%; margin: 0; box-sizing: border-box; }
.mindsdb-kb-preview-status { font-size: 11px; color: var(--red-ui-secondary-text-color, #888888); }
.mindsdb-kb-preview-status.failed { color: var(--red-ui-text-color-error, #ad1625); }
.mindsdb-kb-preview-rows { overflow: auto; }
.mindsdb-kb-preview-rows table { border-collapse: collapse; font-size: 11px; width: 100%; }
.mindsdb-kb-preview-rows th, .mindsdb-kb-preview-rows td { padding: 1px 4px; text-align: left; vertical-align: top;
  border: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
.mindsdb-kb-preview-rows th { background: var(--red-ui-tertiary-background, #f7f7f7); }
`;

/** Adds the preview to the sidebar `content`, opened by a click on a knowledge base of `tree`. */
export function kbPreview(content: JQuery, tree: SidebarTree, box: JQuery, server: () => string): void {
  const panel = $('<div class="mindsdb-kb-preview" id="mindsdb-kb-preview">');
  const head = $('<div class="mindsdb-kb-preview-head">').appendTo(panel);
  $('<i class="fa fa-book">').appendTo(head);
  const title = $('<span>').appendTo(head);
  const close = $(
    '<button type="button" class="red-ui-button red-ui-button-small"><i class="fa fa-times"></i></button>',
  )
    .attr('title', text('sidebar.kbClose'))
    .appendTo(head);
  const query = $('<input type="text" id="mindsdb-kb-preview-text">').attr('placeholder', text('sidebar.kbText'));
  const filter = $('<input type="text" id="mindsdb-kb-preview-filter">').attr('placeholder', text('sidebar.kbFilter'));
  const run = $('<button type="button" class="red-ui-button red-ui-button-small" id="mindsdb-kb-preview-run">')
    .text(text('sidebar.kbRun'))
    .attr('title', text('sidebar.kbRunTitle'));
  const status = $('<div class="mindsdb-kb-preview-status" id="mindsdb-kb-preview-status">');
  const rows = $('<div class="mindsdb-kb-preview-rows" id="mindsdb-kb-preview-rows">');
  panel.append(query, filter, $('<div>').append(run), status, rows);
  content.find('.mindsdb-sidebar-hint').before(panel);

  let target: { project: string; name: string } | undefined;
  const say = (failed: boolean, message: string): void => {
    status.toggleClass('failed', failed).text(message);
  };
  box.on('click', '.mindsdb-tree-row[data-kind="knowledge_base"]', (e) => {
    const entry = tree.entryOfRow(e.currentTarget as HTMLElement);
    if (!entry?.home) return;
    target = { project: entry.home, name: entry.item.name };
    title.text(`${entry.home}.${entry.item.name}`);
    rows.empty();
    say(false, '');
    panel.css('display', 'flex');
    query.trigger('focus');
  });
  close.on('click', () => panel.hide());
  const search = (): void => {
    if (!target) return;
    let parsed: unknown;
    try {
      parsed = String(filter.val() ?? '').trim() === '' ? undefined : JSON.parse(String(filter.val()));
    } catch (err) {
      say(true, text('sidebar.kbBadFilter', { error: err instanceof Error ? err.message : String(err) }));
      return;
    }
    rows.empty();
    say(false, text('sidebar.loading'));
    run.prop('disabled', true);
    const body = { ...serverRequest(server()), ...target, text: String(query.val() ?? ''), filter: parsed };
    postJson<SearchAnswer>('mindsdb/kb-search', body, 120000)
      .then(
        (res) => {
          if (!res?.ok) return say(true, text('preview.failed', { error: res?.error ?? 'no answer' }));
          const found = res.rows ?? [];
          say(false, found.length ? text('preview.rows', { count: found.length }) : text('preview.noRows'));
          const columns = (res.columns ?? []).filter((c) => !HIDDEN.has(c));
          if (!found.length) return;
          const table = $('<table>');
          const tr = $('<tr>').appendTo($('<thead>').appendTo(table));
          for (const c of columns) $('<th>').text(c).appendTo(tr);
          const tbody = $('<tbody>').appendTo(table);
          for (const r of found) {
            const row = $('<tr>').appendTo(tbody);
            for (const c of columns) $('<td>').text(cell(r[c])).appendTo(row);
          }
          rows.append(table);
        },
        (err: unknown) =>
          say(true, text('preview.failed', { error: err instanceof Error ? err.message : String(err) })),
      )
      .then(() => run.prop('disabled', false));
  };
  run.on('click', search);
  query.add(filter).on('keydown', (e) => {
    if (e.key === 'Enter') search();
  });
}
