import { text, type TreeItem } from '../shared/explorer';

/** Font Awesome 4.7 icon of each kind of item. */
const ICONS: Record<TreeItem['kind'], string> = {
  datasource: 'database',
  project: 'folder-o',
  schema: 'sitemap',
  table: 'table',
  view: 'eye',
  model: 'cube',
  knowledge_base: 'book',
  job: 'clock-o',
  agent: 'user-secret',
  column: 'columns',
};

/** Kinds that can be dragged onto the canvas (./drop.ts makes their nodes). */
export const DRAGGABLE = new Set<TreeItem['kind']>(['table', 'view', 'model', 'knowledge_base', 'job', 'agent']);

/** What a row says after the name: an engine, a model's state, a job's last run, a column's type. */
export function metaOf(item: TreeItem): string {
  switch (item.kind) {
    case 'datasource':
      return item.engine ?? '';
    case 'model':
      return [item.status, item.version !== undefined ? `v${item.version}` : undefined, item.engine]
        .filter(Boolean)
        .join(' · ');
    case 'job':
      return item.lastRun ? text('sidebar.lastRun', { when: item.lastRun }) : text('sidebar.neverRun');
    case 'column':
      return item.type ?? '';
    default:
      return '';
  }
}

/** One row of the tree: caret (for what opens), icon, name, meta; `depth` indents it. */
export function rowElement(item: TreeItem, depth: number, opens: boolean, expanded: boolean): JQuery {
  const row = $('<div class="mindsdb-tree-row">')
    .attr({ 'data-kind': item.kind, 'data-name': item.name, title: item.name })
    .css('padding-left', `${6 + depth * 14}px`);
  $('<i class="mindsdb-tree-caret fa">')
    .addClass(opens ? (expanded ? 'fa-caret-down' : 'fa-caret-right') : 'fa-fw')
    .appendTo(row);
  $('<i class="fa fa-fw">').addClass(`fa-${ICONS[item.kind]}`).appendTo(row);
  $('<span class="mindsdb-tree-name">').text(item.name).appendTo(row);
  const meta = metaOf(item);
  if (meta) $('<span class="mindsdb-tree-meta">').text(meta).appendTo(row);
  if (item.error) {
    row.addClass('mindsdb-tree-failed');
    $('<i class="fa fa-exclamation-triangle mindsdb-tree-error">').attr('title', item.error).appendTo(row);
  }
  if (DRAGGABLE.has(item.kind)) row.attr('draggable', 'true').addClass('mindsdb-tree-draggable');
  return row;
}

/** A row that says something instead of items: loading, an error, nothing there, more to show. */
export function noteRow(note: 'loading' | 'error' | 'empty' | 'more', depth: number, message: string): JQuery {
  const row = $('<div class="mindsdb-tree-note">')
    .attr('data-note', note)
    .css('padding-left', `${20 + depth * 14}px`);
  if (note === 'loading') $('<i class="fa fa-spinner fa-spin">').appendTo(row);
  if (note === 'error') $('<i class="fa fa-exclamation-triangle">').appendTo(row);
  if (note === 'more') $('<i class="fa fa-angle-double-down">').appendTo(row);
  $('<span>').text(` ${message}`).appendTo(row);
  return row;
}

/**
 * Every colour is one of Node-RED's theme variables, so the tab follows Node-RED 5's dark theme and a
 * theme plugin's colours. The fallback after each is that variable's value in Node-RED 4.1's light
 * theme (test/unit/editor-colours.test.js holds them to it). The layout holds in both sidebars of
 * Node-RED 5, the right one (300 px wide) and the left one (210 px, 180 at its narrowest).
 */
export const STYLE = `
.mindsdb-sidebar { position: absolute; top: 0; bottom: 0; left: 0; right: 0; display: flex; flex-direction: column; }
.mindsdb-sidebar-head { padding: 8px; display: flex; flex-direction: column; gap: 6px;
  border-bottom: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
.mindsdb-sidebar-head .mindsdb-sidebar-line { display: flex; gap: 4px; align-items: center; }
.mindsdb-sidebar-head select { flex: 1; margin: 0; min-width: 0; }
.mindsdb-sidebar-head > input { width: 100%; box-sizing: border-box; margin: 0; }
.mindsdb-tree { flex: 1; overflow-y: auto; padding: 4px 0; font-size: 13px; }
.mindsdb-tree-row { white-space: nowrap; cursor: pointer; padding: 2px 6px; overflow: hidden; text-overflow: ellipsis; }
.mindsdb-tree-row:hover { background: var(--red-ui-list-item-background-hover, #e6e6e6); }
.mindsdb-tree-row i.fa { margin-right: 4px; color: var(--red-ui-secondary-text-color, #888888); }
.mindsdb-tree-caret { width: 10px; }
.mindsdb-tree-draggable { cursor: grab; }
.mindsdb-tree-meta { margin-left: 8px; color: var(--red-ui-list-item-secondary-color, #888888); font-size: 11px; }
.mindsdb-tree-failed .mindsdb-tree-name { color: var(--red-ui-text-color-error, #ad1625); }
.mindsdb-tree-note { font-style: italic; padding: 2px 6px; cursor: default;
  color: var(--red-ui-secondary-text-color, #888888); }
.mindsdb-tree-note[data-note="more"] { cursor: pointer; font-style: normal; text-decoration: underline; }
.mindsdb-tree-note[data-note="error"] { color: var(--red-ui-text-color-error, #ad1625); white-space: normal; }
.mindsdb-sidebar-hint { padding: 6px 8px; font-size: 11px; color: var(--red-ui-secondary-text-color, #888888);
  border-top: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
`;
