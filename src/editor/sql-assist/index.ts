import { completeSql } from './completion';
import { previewPanel } from './preview';

export interface SqlAssistOptions {
  /** Adds a Preview button under the editor's row, run in the database this names ("" for MindsDB's default). */
  preview?: { database: () => string };
}

/** SQL completion for a dialog's code editor, and the Preview button where the dialog has one. */
export function sqlAssist(
  editorId: string,
  editor: () => CodeEditor | undefined,
  options: SqlAssistOptions = {},
): void {
  const current = editor();
  if (current) completeSql(current);
  if (options.preview) {
    const row = $(`#${editorId}`).closest('.form-row');
    if (row.length) previewPanel(row, editor, options.preview.database);
  }
}
