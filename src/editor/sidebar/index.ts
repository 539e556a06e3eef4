/*
 * The MindsDB sidebar: a Node-RED editor plugin (package.json `node-red.plugins`,
 * nodes/mindsdb-sidebar.html loads this script, bundled by the build into
 * resources/mindsdb-sidebar.js). Choose one of the flow's server nodes, see what it holds as a
 * tree (./tree.ts), search what is loaded, refresh, and drag an item onto the canvas to make a
 * configured node (./drop.ts).
 */
import { forget, text } from '../shared/explorer';
import { acceptDrops, DRAG_TYPE, type Dragged } from './drop';
import { KB_PREVIEW_STYLE, kbPreview } from './kb-preview';
import { STYLE } from './rows';
import { SidebarTree } from './tree';

const TAB_ID = 'mindsdb';

/** The flows' server nodes, the one most nodes use first (the sidebar opens on it), then by label. */
function serverNodes(): Array<{ id: string; label: string }> {
  const uses = new Map<string, number>();
  RED.nodes.eachNode((n) => {
    if (typeof n.server === 'string') uses.set(n.server, (uses.get(n.server) ?? 0) + 1);
  });
  const out: Array<{ id: string; label: string; uses: number }> = [];
  RED.nodes.eachConfig((n) => {
    if (n.type === 'mindsdb-server')
      out.push({ id: n.id, label: String(n.name || n.url || n.id), uses: uses.get(n.id) ?? 0 });
  });
  return out.sort((a, b) => b.uses - a.uses || a.label.localeCompare(b.label));
}

function build(): { content: JQuery; tree: SidebarTree; refreshServers: () => void } {
  const content = $('<div class="mindsdb-sidebar">');
  const head = $('<div class="mindsdb-sidebar-head">').appendTo(content);
  const line = $('<div class="mindsdb-sidebar-line">').appendTo(head);
  const select = $('<select id="mindsdb-sidebar-server">').attr('aria-label', text('sidebar.server')).appendTo(line);
  const refresh = $(
    '<button type="button" class="red-ui-button red-ui-button-small" id="mindsdb-sidebar-refresh"><i class="fa ' +
      'fa-refresh"></i></button>',
  )
    .attr('title', text('sidebar.refresh'))
    .appendTo(line);
  const search = $('<input type="text" id="mindsdb-sidebar-search">')
    .attr('placeholder', text('sidebar.search'))
    .appendTo(head);
  const box = $('<div class="mindsdb-tree" id="mindsdb-sidebar-tree">').appendTo(content);
  $('<div class="mindsdb-sidebar-hint">').text(text('sidebar.hint')).appendTo(content);

  const chosen = (): string => String(select.val() || '');
  const tree = new SidebarTree(box, chosen);
  const refreshServers = (): void => {
    const before = chosen();
    const servers = serverNodes();
    select.empty();
    if (servers.length === 0) $('<option value="">').text(text('sidebar.noServer')).appendTo(select);
    for (const s of servers) $('<option>').val(s.id).text(s.label).appendTo(select);
    const keep = servers.some((s) => s.id === before) ? before : (servers[0]?.id ?? '');
    select.val(keep);
    if (keep !== before || tree.roots.length === 0) void tree.load();
  };
  select.on('change', () => {
    void tree.load();
  });
  refresh.on('click', () => {
    forget(chosen());
    void tree.load().then(() => tree.search(String(search.val() ?? '')));
  });
  let pending: number | undefined;
  search.on('input', () => {
    window.clearTimeout(pending);
    pending = window.setTimeout(() => tree.search(String(search.val() ?? '')), 150);
  });
  box.on('dragstart', '.mindsdb-tree-draggable', (e) => {
    const entry = tree.entryOfRow(e.currentTarget as HTMLElement);
    const transfer = (e.originalEvent as DragEvent).dataTransfer;
    if (!entry || !transfer) return;
    const dragged: Dragged = { server: chosen(), item: entry.item, home: entry.home ?? '' };
    transfer.setData(DRAG_TYPE, JSON.stringify(dragged));
    transfer.effectAllowed = 'copyMove';
  });
  kbPreview(content, tree, box, chosen);
  return { content, tree, refreshServers };
}

/** Adds the sidebar tab (once). */
function addTab(): void {
  if ($('#mindsdb-sidebar-tree').length) return;
  $('<style id="mindsdb-sidebar-style">')
    .text(STYLE + KB_PREVIEW_STYLE)
    .appendTo('head');
  const { content, tree, refreshServers } = build();
  RED.sidebar.addTab({
    id: TAB_ID,
    label: text('sidebar.label'),
    name: text('sidebar.name'),
    iconClass: 'fa fa-database',
    content,
    enableOnEdit: true,
    onchange: refreshServers,
  });
  acceptDrops();
  // Server nodes come with the flows, after the plugins: offer them once they are there.
  RED.events.on('workspace:change', () => {
    if (tree.roots.length === 0) refreshServers();
  });
  (window as unknown as { MindsDBSidebar: unknown }).MindsDBSidebar = { tree, refreshServers };
}

RED.plugins.registerPlugin('mindsdb-sidebar', { onadd: addTab });
