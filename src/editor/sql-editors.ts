import { editorRows, type SqlRow } from './declarations';
import { literalValue } from './shared/typed-input';
import { sqlAssist } from './sql-assist';

/**
 * The code editors of a dialog's SQL rows (`data-editor`, see buildForm): a div
 * #node-input-<field>-editor shows node[field], completes the server's names, and has what its row
 * asks for: a Preview in the database another field names, an expand button to Node-RED's larger
 * editor, the dialog's free height. On save each text goes back into its hidden #node-input-<field>.
 */
export function openSqlEditors(type: string, node: EditorNode): void {
  const rows = editorRows[type] ?? [];
  if (!rows.length) return;
  const editors: Record<string, CodeEditor> = {};
  for (const row of rows) {
    const value = node[row.field];
    const id = `node-input-${row.field}-editor`;
    const editor = RED.editor.createEditor({ id, mode: 'ace/mode/sql', value: typeof value === 'string' ? value : '' });
    editors[row.field] = editor;
    const preview = row.preview;
    sqlAssist(
      id,
      () => editors[row.field],
      preview ? { preview: { database: () => literalValue(`node-input-${preview}`) } } : {},
    );
    if (row.expand) expandButton(row, editor);
  }
  node.mindsdbSqlEditors = editors;
}

/** The row's expand button: the text in Node-RED's larger SQL editor, written back on Done. */
function expandButton(row: SqlRow, editor: CodeEditor): void {
  $(`#node-input-${row.field}-expand`).on('click', (evt) => {
    evt.preventDefault();
    RED.editor.editText({
      mode: 'sql',
      value: editor.getValue(),
      width: 'Infinity',
      focus: true,
      complete: (text) => {
        editor.setValue(text, -1);
        setTimeout(() => editor.focus(), 250);
      },
    });
  });
}

function closeSqlEditors(node: EditorNode, save: boolean): void {
  const editors = node.mindsdbSqlEditors ?? {};
  for (const [field, editor] of Object.entries(editors)) {
    if (save) $(`#node-input-${field}`).val(editor.getValue());
    editor.destroy();
  }
  delete node.mindsdbSqlEditors;
}

/** oneditsave and oneditcancel of a dialog with SQL editor rows: the text goes back to the node, or not. */
export function saveEditors(this: EditorNode): void {
  closeSqlEditors(this, true);
}
export function cancelEditors(this: EditorNode): void {
  closeSqlEditors(this, false);
}

/**
 * oneditresize: the editor of a `data-fill` row takes the dialog's height less what its other
 * rows show (at least 120 px), as Node-RED's core function node does.
 */
export function resizeEditors(this: EditorNode): void {
  const row = (editorRows[this.type] ?? []).find((r) => r.fill);
  const editor = row ? this.mindsdbSqlEditors?.[row.field] : undefined;
  if (!row || !editor) return;
  const box = $(`#node-input-${row.field}-editor`);
  const editorRow = box.closest('.node-text-editor-row');
  let height = $('#dialog-form').height() ?? 0;
  $('#dialog-form>div').each(function () {
    const shown = $(this);
    if (this !== editorRow[0] && shown.is(':visible')) height -= shown.outerHeight(true) ?? 0;
  });
  for (const side of ['marginTop', 'marginBottom']) height -= Number.parseInt(editorRow.css(side), 10) || 0;
  box.css('height', `${Math.max(120, height)}px`);
  editor.resize?.();
}
