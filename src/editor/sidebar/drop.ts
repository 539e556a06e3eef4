import type { TreeItem } from '../shared/explorer';

/** What a dragged row carries to the canvas. */
export interface Dragged {
  server: string;
  item: TreeItem;
  /** The project or data source the item is in. */
  home: string;
}

export const DRAG_TYPE = 'application/x-mindsdb-item';

/**
 * The node a dropped item makes, configured on the sidebar's server: a table → a sql node with
 * its `SELECT … LIMIT 100` (with Alt held, Option on a Mac: a table node that inserts into it; Shift too, where the
 * browser starts a drag with it); a model → a predict node; a view → a view node (query); a knowledge base → a
 * knowledge base node (search); a job → a job node (history); an agent → an agent node (completions).
 */
export function nodeFor(d: Dragged, modifier: boolean): { type: string; props: Record<string, unknown> } | undefined {
  const { item, home } = d;
  const named = (operation: string) => ({
    operation,
    project: home,
    projectType: 'str',
    itemName: item.name,
    itemNameType: 'str',
  });
  switch (item.kind) {
    case 'table':
      // The table node names a table in its data source's default schema.
      if (modifier)
        return {
          type: 'mindsdb-table',
          props: { operation: 'insert', database: home, databaseType: 'str', table: item.name, tableType: 'str' },
        };
      return { type: 'mindsdb-sql', props: { query: item.select ?? '', database: '', databaseType: 'str' } };
    case 'model':
      return {
        type: 'mindsdb-predict',
        props: { project: home, projectType: 'str', model: item.name, modelType: 'str' },
      };
    case 'view':
      return { type: 'mindsdb-view', props: named('query') };
    case 'knowledge_base':
      return { type: 'mindsdb-knowledge-base', props: named('search') };
    case 'job':
      return { type: 'mindsdb-job', props: named('history') };
    case 'agent':
      return { type: 'mindsdb-agent', props: named('completions') };
    default:
      return undefined;
  }
}

/** Adds the node for `d` to the open flow at canvas position (x, y), as a palette drop would; undoable. */
export function addNode(d: Dragged, x: number, y: number, modifier: boolean): EditorNode | undefined {
  const made = nodeFor(d, modifier);
  if (!made || !RED.nodes.getType(made.type) || !RED.view.createNode) return undefined;
  const { node, historyEvent } = RED.view.createNode(made.type, x, y);
  Object.assign(node, made.props, { server: d.server });
  const added = RED.nodes.add(node);
  // createNode checked the node before it had its server and names: check it again.
  if (RED.editor.validateNode) RED.editor.validateNode(added);
  RED.history.push(historyEvent);
  RED.nodes.dirty(true);
  RED.view.select({ nodes: [added] });
  RED.view.redraw(true);
  return added;
}

/** Lets the canvas take a row dragged from the sidebar (once per editor). */
export function acceptDrops(): void {
  const chart = $('#red-ui-workspace-chart');
  if (!chart.length || chart.attr('data-mindsdb-drop')) return;
  chart.attr('data-mindsdb-drop', 'true');
  chart.on('dragover', (e) => {
    const transfer = (e.originalEvent as DragEvent).dataTransfer;
    if (!transfer || !Array.from(transfer.types).includes(DRAG_TYPE)) return;
    e.preventDefault();
    // The browser turns a drag with Shift held into a move: the drop is taken either way.
    const event = e.originalEvent as DragEvent;
    transfer.dropEffect = event.shiftKey ? 'move' : 'copy';
  });
  chart.on('drop', (e) => {
    const event = e.originalEvent as DragEvent;
    const raw = event.dataTransfer?.getData(DRAG_TYPE);
    if (!raw) return;
    e.preventDefault();
    const offset = chart.offset() ?? { left: 0, top: 0 };
    const scale = RED.view.scale ? RED.view.scale() : 1;
    const x = (event.pageX - offset.left + (chart.scrollLeft() ?? 0)) / scale;
    const y = (event.pageY - offset.top + (chart.scrollTop() ?? 0)) / scale;
    addNode(JSON.parse(raw) as Dragged, x, y, event.shiftKey || event.altKey);
  });
}
