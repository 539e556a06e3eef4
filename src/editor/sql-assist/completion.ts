import { selectedServer } from '../shared/server-choice';
import { text } from '../shared/explorer';
import { sqlSuggestions, type SqlSuggestion, type SuggestionKind } from './suggestions';

/**
 * SQL completion in the dialogs' code editors (./suggestions.ts says what it offers): Monaco,
 * Node-RED's default editor, through one completion provider for the SQL language that answers
 * only for the editors handed to `completeSql`; Ace through the editor's own completers. Node-RED
 * 5's plain editor (a textarea, until Monaco has loaded) gets none.
 *
 * Which editor it is, Node-RED says in `editor.type`: 'monaco' or 'ace' in 3.1, 4.1 and 5.0, and
 * 'basic' for 5.0's plain editor. The editors' own methods do not tell them apart: Node-RED gives
 * the Monaco editor and the plain one Ace's getSession(), which returns the editor itself.
 * Monaco's namespace is `window.monaco`, read when a dialog opens: Node-RED 5 loads it after the
 * plugins (Monaco 0.55 there, 0.52 in 4.1, 0.38 in 3.1; the calls used here are the same in all).
 */

interface MonacoPosition {
  lineNumber: number;
  column: number;
}
interface MonacoModel {
  uri: { toString(): string };
  getValue(): string;
  getValueInRange(range: {
    startLineNumber: number;
    startColumn: number;
    endLineNumber: number;
    endColumn: number;
  }): string;
  getWordUntilPosition(position: MonacoPosition): { startColumn: number; endColumn: number };
}
interface Monaco {
  languages: {
    CompletionItemKind: Record<string, number>;
    registerCompletionItemProvider(
      language: string,
      provider: {
        triggerCharacters?: string[];
        provideCompletionItems(
          model: MonacoModel,
          position: MonacoPosition,
        ): Promise<{ suggestions: unknown[] }> | { suggestions: unknown[] };
      },
    ): unknown;
  };
}

declare global {
  interface Window {
    monaco?: Monaco;
  }
}

/** The Monaco models that complete, and how each finds its server. */
const assisted = new Map<string, () => string>();
let registered = false;

const MONACO_KIND: Record<SuggestionKind, string> = {
  keyword: 'Keyword',
  database: 'Module',
  project: 'Folder',
  table: 'Struct',
  view: 'Interface',
  model: 'Function',
  column: 'Field',
  knowledgeBase: 'Reference',
};

function detailOf(s: SqlSuggestion): string {
  const kind = text(`completion.${s.kind}`);
  return s.detail ? `${kind} · ${s.detail}` : kind;
}

function registerMonaco(monaco: Monaco): void {
  if (registered) return;
  registered = true;
  monaco.languages.registerCompletionItemProvider('sql', {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position) {
      const server = assisted.get(model.uri.toString());
      if (!server) return { suggestions: [] };
      const before = model.getValueInRange({
        startLineNumber: 1,
        startColumn: 1,
        endLineNumber: position.lineNumber,
        endColumn: position.column,
      });
      const word = model.getWordUntilPosition(position);
      const range = {
        startLineNumber: position.lineNumber,
        endLineNumber: position.lineNumber,
        startColumn: word.startColumn,
        endColumn: word.endColumn,
      };
      const found = await sqlSuggestions(server(), model.getValue(), before);
      return {
        suggestions: found.map((s, i) => ({
          label: s.label,
          kind: monaco.languages.CompletionItemKind[MONACO_KIND[s.kind]],
          insertText: s.insert,
          detail: detailOf(s),
          // The server's names before the keywords, in the order found.
          sortText: `${s.kind === 'keyword' ? 'b' : 'a'}${String(i).padStart(4, '0')}`,
          range,
        })),
      };
    },
  });
}

interface MonacoEditor extends CodeEditor {
  getModel(): MonacoModel | null;
  onDidDispose?(listener: () => void): unknown;
  updateOptions?(options: { inlineSuggest: { enabled: boolean } }): void;
}
interface AceSession {
  getValue(): string;
  getDocument(): { positionToIndex(pos: { row: number; column: number }): number };
}
interface AceEditor extends CodeEditor {
  getSession(): AceSession;
}

/** Adds completion to a dialog's code editor; `server` says which server node it asks (default: the dialog's). */
export function completeSql(editor: CodeEditor, server: () => string = selectedServer): void {
  const monacoEditor = editor as MonacoEditor;
  if (editor.type === 'monaco' && window.monaco) {
    const model = monacoEditor.getModel();
    if (!model) return;
    registerMonaco(window.monaco);
    // No inline suggestions: we offer none, and with them on, Monaco 0.52 (Node-RED 4.1) threw "Model is
    // disposed!" into the page when a dialog closed whose editor had shown our list (6 of 8 runs; none without).
    monacoEditor.updateOptions?.({ inlineSuggest: { enabled: false } });
    const key = model.uri.toString();
    assisted.set(key, server);
    monacoEditor.onDidDispose?.(() => assisted.delete(key));
    return;
  }
  // Ace (editorTheme.codeEditor.lib "ace"): Node-RED turns its basic autocompletion on (Ctrl+Space).
  // An editor without completers of its own asks Ace's defaults; ours (MindsDB's keywords too) take their place.
  const ace = editor as AceEditor;
  if (editor.type === 'ace') {
    const completer: AceCompleter = {
      getCompletions(_ed, session, pos, _prefix, callback) {
        const s = session as AceSession;
        const all = s.getValue();
        sqlSuggestions(server(), all, all.slice(0, s.getDocument().positionToIndex(pos))).then(
          (found) =>
            callback(
              null,
              found.map((f) => ({
                caption: f.label,
                value: f.insert,
                meta: detailOf(f),
                score: f.kind === 'keyword' ? 1 : 10,
              })),
            ),
          () => callback(null, []),
        );
      },
    };
    ace.completers = [completer, ...(Array.isArray(ace.completers) ? ace.completers : [])];
  }
}
