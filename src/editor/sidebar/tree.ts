import { foldCase } from '../../common/sql-names';
import { ExplorerError, text, treeLevel, type TreeItem, type TreeLevel } from '../shared/explorer';
import { noteRow, rowElement } from './rows';

/** How many children a level draws at first, and at each "more" (a data source may have thousands). */
export const PAGE = 200;

/** An item in the sidebar's tree, with what is known of its children. */
export interface Entry {
  item: TreeItem;
  depth: number;
  /** The project or data source it is in (for a table, view, model …). */
  home?: string;
  /** How its children are fetched; none: it has them already (a schema) or none at all. */
  level?: TreeLevel;
  children?: Entry[];
  failed?: string;
  loading?: boolean;
  expanded: boolean;
  /** How many children are drawn. */
  shown: number;
}

/** How long the last drawing of a fetched level took, for the browser suite's report. */
export interface DrawFigure {
  items: number;
  ms: number;
}

function childLevel(item: TreeItem, home: string | undefined): TreeLevel | undefined {
  switch (item.kind) {
    case 'datasource':
      return { kind: 'datasource', database: item.name };
    case 'project':
      return { kind: 'project', database: item.name };
    case 'table':
    case 'view':
    case 'model':
      return home ? { kind: 'columns', database: home, table: item.name } : undefined;
    default:
      return undefined;
  }
}

export function entryOf(item: TreeItem, depth: number, home?: string): Entry {
  const entry: Entry = { item, depth, home, level: childLevel(item, home), expanded: false, shown: PAGE };
  if (item.children) entry.children = item.children.map((c) => entryOf(c, depth + 1, home));
  return entry;
}

/** The children of `parent`'s items, as entries one level deeper. */
function childrenOf(parent: Entry, items: TreeItem[]): Entry[] {
  const home = parent.item.kind === 'datasource' || parent.item.kind === 'project' ? parent.item.name : parent.home;
  return items.map((i) => entryOf(i, parent.depth + 1, home));
}

/**
 * The tree of one server, drawn into `box`: lazily (a level is fetched when it is first opened),
 * PAGE children at a time, filtered by the search text (which looks only at what is loaded).
 */
export class SidebarTree {
  roots: Entry[] = [];
  private query = '';
  private readonly rowsOf = new WeakMap<HTMLElement, Entry>();
  lastDraw: DrawFigure | undefined;

  constructor(
    private readonly box: JQuery,
    private readonly server: () => string,
  ) {
    box.on('click', '.mindsdb-tree-row', (e) => {
      const entry = this.rowsOf.get(e.currentTarget as HTMLElement);
      if (entry) void this.toggle(entry);
    });
    box.on('click', '.mindsdb-tree-note[data-note="more"]', (e) => {
      const entry = this.rowsOf.get(e.currentTarget as HTMLElement);
      if (!entry) return;
      entry.shown += PAGE;
      const started = performance.now();
      this.draw();
      this.figure(Math.min(entry.shown, entry.children?.length ?? 0), started);
    });
  }

  entryOfRow(row: HTMLElement): Entry | undefined {
    return this.rowsOf.get(row);
  }

  /** Fetches the roots again (the refresh button; a new server). */
  async load(): Promise<void> {
    const server = this.server();
    this.roots = [];
    if (!server) {
      this.box.empty().append(noteRow('empty', 0, text('sidebar.noServer')));
      return;
    }
    this.box.empty().append(noteRow('loading', 0, text('sidebar.loading')));
    try {
      const items = await treeLevel(server);
      if (server !== this.server()) return;
      this.roots = items.map((i) => entryOf(i, 0));
      this.draw();
    } catch (err) {
      this.box.empty().append(noteRow('error', 0, err instanceof Error ? err.message : String(err)));
    }
  }

  /** Opens or closes an entry, fetching its children the first time. */
  async toggle(entry: Entry): Promise<void> {
    if (!entry.level && !entry.children) return;
    entry.expanded = !entry.expanded;
    if (entry.expanded && !entry.children && entry.level && !entry.loading) {
      entry.loading = true;
      entry.failed = undefined;
      this.draw();
      const server = this.server();
      try {
        const items = await treeLevel(server, entry.level);
        const answered = performance.now();
        entry.children = childrenOf(entry, items);
        entry.loading = false;
        // A data source with one schema (PostgreSQL's public) opens it too: one click to its tables.
        const only = entry.children.length === 1 ? entry.children[0] : undefined;
        if (only && only.item.kind === 'schema') only.expanded = true;
        this.draw();
        this.figure(
          items.reduce((n, i) => n + 1 + (i.children?.length ?? 0), 0),
          answered,
        );
        return;
      } catch (err) {
        entry.failed = err instanceof ExplorerError || err instanceof Error ? err.message : String(err);
        entry.loading = false;
      }
    }
    this.draw();
  }

  /** Notes how long drawing took since `since` (the answer's arrival, or a click), for the browser suite's report. */
  private figure(items: number, since: number): void {
    this.lastDraw = { items, ms: Math.round((performance.now() - since) * 10) / 10 };
    this.box.attr('data-last-draw', JSON.stringify(this.lastDraw));
  }

  /** Shows only what matches `query` (case-insensitive) among the loaded items, with the way to it. */
  search(query: string): void {
    this.query = foldCase(query.trim());
    this.draw();
  }

  private matches(entry: Entry): boolean {
    if (!this.query) return true;
    return foldCase(entry.item.name).includes(this.query) || (entry.children ?? []).some((c) => this.matches(c));
  }

  /** Draws the whole tree from its entries (at most PAGE children per level). */
  draw(): void {
    const fragment = document.createDocumentFragment();
    const add = (entries: Entry[], parent?: Entry): void => {
      const visible = entries.filter((e) => this.matches(e));
      const limit = parent ? parent.shown : Number.POSITIVE_INFINITY;
      for (const entry of visible.slice(0, limit)) {
        const opens = Boolean(entry.level || entry.children?.length);
        // A search opens what leads to a match (among loaded items).
        const open = entry.expanded || (this.query !== '' && Boolean(entry.children?.some((c) => this.matches(c))));
        const row = rowElement(entry.item, entry.depth, opens, open)[0];
        this.rowsOf.set(row, entry);
        fragment.appendChild(row);
        if (!open) continue;
        if (entry.loading) fragment.appendChild(noteRow('loading', entry.depth + 1, text('sidebar.loading'))[0]);
        else if (entry.failed) fragment.appendChild(noteRow('error', entry.depth + 1, entry.failed)[0]);
        else if (entry.children && entry.children.length === 0)
          fragment.appendChild(noteRow('empty', entry.depth + 1, text('sidebar.empty'))[0]);
        else if (entry.children) add(entry.children, entry);
      }
      if (parent && visible.length > limit) {
        const more = noteRow(
          'more',
          parent.depth + 1,
          text('sidebar.more', { count: Math.min(PAGE, visible.length - limit), left: visible.length - limit }),
        )[0];
        this.rowsOf.set(more, parent);
        fragment.appendChild(more);
      }
    };
    add(this.roots);
    if (this.roots.length === 0)
      fragment.appendChild(noteRow('empty', 0, text(this.query ? 'sidebar.noMatch' : 'sidebar.empty'))[0]);
    this.box.empty()[0].appendChild(fragment);
  }
}
