import { text } from '../shared/explorer';
import { postJson, selectedServer, serverRequest } from '../shared/server-choice';

/**
 * The Preview button of the sql and view dialogs: runs the editor's query once through POST
 * mindsdb/preview (src/runtime/editor/admin-explorer.ts: only a statement that reads, on the
 * server node's own connection) and shows at most 20 rows in a table under the editor, or
 * MindsDB's error, or why it was not run.
 */

interface PreviewAnswer {
  ok?: boolean;
  refused?: boolean;
  error?: string;
  columns?: string[];
  rows?: unknown[][];
  more?: boolean;
}

const cell = (v: unknown): string =>
  v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);

function table(columns: string[], rows: unknown[][]): JQuery {
  const t = $('<table class="mindsdb-preview-table">');
  const head = $('<tr>').appendTo($('<thead>').appendTo(t));
  for (const c of columns) $('<th>').text(c).appendTo(head);
  const body = $('<tbody>').appendTo(t);
  for (const r of rows) {
    const tr = $('<tr>').appendTo(body);
    for (let i = 0; i < columns.length; i++) $('<td>').text(cell(r[i])).appendTo(tr);
  }
  return t;
}

// Theme variables only (the dark theme of Node-RED 5, a theme plugin's colours); each fallback is
// that variable's value in Node-RED 4.1's light theme (test/unit/editor-colours.test.js).
const STYLE = `
.mindsdb-preview-row { margin-top: 6px; }
.mindsdb-preview-status { margin-left: 8px; }
.mindsdb-preview-failed { color: var(--red-ui-text-color-error, #ad1625); }
.mindsdb-preview { max-height: 220px; overflow: auto; display: none;
  border: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
.mindsdb-preview-table { border-collapse: collapse; font-size: 12px; width: 100%; }
.mindsdb-preview-table th, .mindsdb-preview-table td { padding: 2px 6px; text-align: left; white-space: nowrap;
  border: 1px solid var(--red-ui-secondary-border-color, #dddddd); }
.mindsdb-preview-table th { background: var(--red-ui-tertiary-background, #f7f7f7); position: sticky; top: 0; }
`;

/**
 * Puts the Preview row and its result under `after` (the editor's row), for the query in
 * `editor()`, run in the database `database()` names (the sql dialog's Database, the view's
 * project; "" for MindsDB's default).
 */
export function previewPanel(after: JQuery, editor: () => CodeEditor | undefined, database: () => string): void {
  if (!$('#mindsdb-preview-style').length) $('<style id="mindsdb-preview-style">').text(STYLE).appendTo('head');
  const row = $('<div class="form-row mindsdb-preview-row">');
  const button = $(
    '<button type="button" class="red-ui-button" id="mindsdb-preview-button"><i class="fa fa-eye"></i> </button>',
  ).attr('title', text('preview.title'));
  $('<span>').text(text('preview.button')).appendTo(button);
  const status = $('<span class="mindsdb-preview-status" id="mindsdb-preview-status">');
  row.append(button, status);
  const result = $('<div class="mindsdb-preview" id="mindsdb-preview-result">');
  after.after(row, result);
  const show = (failed: boolean, message: string): void => {
    status.toggleClass('mindsdb-preview-failed', failed).text(message);
  };
  button.on('click', (evt) => {
    evt.preventDefault();
    const server = selectedServer();
    const query = editor()?.getValue() ?? '';
    result.hide().empty();
    if (!server) {
      show(true, text('preview.noServer'));
      return;
    }
    if (!query.trim()) {
      show(true, text('preview.empty'));
      return;
    }
    button.prop('disabled', true);
    show(false, text('preview.running'));
    postJson<PreviewAnswer>('mindsdb/preview', { ...serverRequest(server), query, database: database() }, 120000)
      .then(
        (res) => {
          if (!res?.ok) {
            const error = res && typeof res.error === 'string' ? res.error : 'no answer';
            show(true, text(res?.refused ? 'preview.refused' : 'preview.failed', { error }));
            return;
          }
          const columns = res.columns ?? [];
          const rows = res.rows ?? [];
          if (columns.length === 0) {
            show(false, text('preview.ok'));
            return;
          }
          show(
            false,
            rows.length === 0
              ? text('preview.noRows')
              : text(res.more ? 'preview.more' : 'preview.rows', { count: rows.length }),
          );
          result.append(table(columns, rows)).show();
        },
        (err: unknown) =>
          show(true, text('preview.failed', { error: err instanceof Error ? err.message : String(err) })),
      )
      .then(
        () => button.prop('disabled', false),
        () => button.prop('disabled', false),
      );
  });
}
