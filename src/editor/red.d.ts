/**
 * The slice of Node-RED's editor API (3.1, 4.1 and 5.0) that the editor script uses, typed as it
 * behaves there. Written here rather than taken from @types/node-red__editor-client, which
 * describes Node-RED 1.x and lacks the parts we lean on (plugins, the TypedInput's autoComplete,
 * the sidebar's tabs as 3.x has them); jQuery itself comes from @types/jquery.
 */

/** A catalogue lookup: Node-RED's `RED._` or a node definition's `_`. */
type CatalogueFn = (key: string, options?: Record<string, unknown>) => string;

/** A node (or a config node) as the editor holds it: its saved properties and the editor's own. */
interface EditorNode {
  id: string;
  type: string;
  z?: string;
  name?: string;
  changed?: boolean;
  credentials?: Record<string, string | boolean | undefined>;
  status?: unknown;
  dirtyStatus?: boolean;
  /** The code editors of an open dialog's SQL rows (./sql-editors.ts). */
  mindsdbSqlEditors?: Record<string, CodeEditor>;
  [property: string]: unknown;
}

/** What registerType took, as getType gives it back. */
interface NodeDefinition {
  category?: string;
  defaults: Record<string, { value: unknown; type?: string; required?: boolean }>;
  credentials?: Record<string, { type: string }>;
  set?: { id: string; module: string };
  _?: CatalogueFn;
}

/** A code editor from RED.editor.createEditor (Ace in 3.1 and 4.1; Monaco or a textarea in 5.0). */
interface CodeEditor {
  getValue(): string;
  setValue(value: string, cursor?: number): void;
  destroy(): void;
  focus(): void;
  resize?(): void;
  /** Ace only: the completers a completion popup asks. */
  completers?: AceCompleter[];
  [property: string]: unknown;
}

interface AceCompletion {
  caption?: string;
  value: string;
  meta?: string;
  score?: number;
}

interface AceCompleter {
  identifierRegexps?: RegExp[];
  getCompletions(
    editor: unknown,
    session: unknown,
    pos: { row: number; column: number },
    prefix: string,
    callback: (err: unknown, completions: AceCompletion[]) => void,
  ): void;
}

/** One entry of a TypedInput's `types` (a name, or a type of its own). */
type TypedInputType =
  | string
  | {
      value: string;
      label?: string;
      icon?: string;
      validate?: (value: string, options?: unknown) => boolean | string;
      expand?: (this: { value(v?: string): string }) => void;
      autoComplete?: (value: string, done: (items: Suggestion[]) => void) => void;
    };

interface Suggestion {
  value: string;
  label: string;
}

interface TypedInputOptions {
  default?: string;
  types: TypedInputType[];
  typeField?: string;
}

interface AutoCompleteOptions {
  minLength?: number;
  search: (value: string, done: (items: Suggestion[]) => void) => void;
}

/** A validator as a node's `defaults` entry holds it (`this` is the node being checked). */
type Validator = (this: EditorNode | undefined, value: unknown, options?: unknown) => boolean | string;

interface SidebarTab {
  id: string;
  label?: string;
  name: string;
  iconClass?: string;
  content: JQuery;
  toolbar?: JQuery;
  enableOnEdit?: boolean;
  action?: string;
  onchange?: () => void;
}

interface NodeRedEditor {
  _: CatalogueFn;
  nodes: {
    getType(type: string): NodeDefinition | undefined;
    node(id: string): EditorNode | undefined;
    eachConfig(callback: (node: EditorNode) => unknown): void;
    add(node: EditorNode): EditorNode;
    eachNode(callback: (node: EditorNode) => unknown): void;
    dirty(dirty: boolean): void;
    id(): string;
  };
  validators: {
    typedInput(options: {
      type?: string;
      typeField?: string;
      allowBlank?: boolean;
      allowUndefined?: boolean;
    }): Validator;
  };
  editor: {
    createEditor(options: { id: string; mode: string; value: string }): CodeEditor;
    editJSON(options: { value: string; focus: boolean; complete: (value: string) => void }): void;
    /** Node-RED's larger code editor in a tray of its own; `complete` gets the text on Done. */
    editText(options: {
      mode: string;
      value: string;
      width?: string;
      focus?: boolean;
      complete: (value: string) => void;
    }): void;
    validateNode?(node: EditorNode): boolean;
  };
  comms: { subscribe(topic: string, callback: (topic: string, msg: { text?: unknown } | undefined) => void): void };
  view: {
    redrawStatus(node: EditorNode): void;
    redraw(full?: boolean): void;
    select(selection: { nodes: EditorNode[] } | string): void;
    /** The canvas's zoom. */
    scale?(): number;
    /** A new node of `type` at (x, y) on the open flow, not yet added (3.1 and later), as a palette drop makes it. */
    createNode?(
      type: string,
      x?: number,
      y?: number,
      z?: string,
    ): { node: EditorNode; historyEvent: Record<string, unknown> };
  };
  workspaces: { active(): string };
  history: { push(event: Record<string, unknown>): void };
  sidebar: {
    addTab(tab: SidebarTab): void;
    removeTab(id: string): void;
    show(id: string): void;
  };
  plugins: {
    registerPlugin(id: string, definition: { onadd?: () => void; onremove?: () => void; type?: string }): void;
  };
  tabs: {
    create(options: { id: string; onchange?: (tab: { id: string }) => void }): {
      addTab(tab: { id: string; label: string }): void;
    };
  };
  popover: {
    tooltip(target: JQuery, content: string): void;
  };
  notify(text: string, options?: string | { type?: string; timeout?: number }): void;
  events: {
    on(event: string, handler: (...args: unknown[]) => void): void;
    off(event: string, handler: (...args: unknown[]) => void): void;
  };
  settings: Record<string, unknown>;
}

interface JQuery<TElement = HTMLElement> {
  typedInput(options: TypedInputOptions): JQuery<TElement>;
  typedInput(method: 'type' | 'value'): string;
  autoComplete(options: AutoCompleteOptions): JQuery<TElement>;
}

declare var RED: NodeRedEditor;
