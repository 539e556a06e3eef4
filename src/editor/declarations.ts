/**
 * Each node type's declaration as the build wrote it (resources/mindsdb-defaults.js, from
 * src/schema/nodes.ts), and what the editor learns about a node type while registering it. Each
 * .html loads that file beside this script; Node-RED runs a node's inline scripts only once every
 * script it names has loaded, in whatever order they came.
 */

/** A dialog check as data (`Check` in src/schema/fields.ts); its first key names it. */
export interface Check {
  number?: { integer?: boolean; min?: number; max?: number; above?: number };
  blank?: boolean;
  oneOf?: string[];
  optional?: boolean;
  jsonObject?: boolean;
  url?: boolean;
  apiPrefix?: boolean;
  pattern?: string;
  msgProperty?: boolean;
  typedInput?: string;
  noExtension?: boolean;
}

/** One property of a node type's declaration, as the editor gets it. */
export interface DeclaredField {
  value: unknown;
  type?: string;
  required?: boolean;
  check?: Check;
  /** The catalogue key of its error (`errors.<error>`), when it is not the field's own. */
  error?: string;
  /** The field that names a resource node's item. */
  item?: boolean;
  /** The config node type whose nodes the field lists by id (a select of several). */
  choices?: string;
}

export interface Declaration {
  defaults: Record<string, DeclaredField>;
  credentials: Record<string, { type: string }>;
}

declare global {
  interface Window {
    MindsDBDeclarations?: Record<string, Declaration>;
  }
}

/** What each node type declares, once its `defaults` were asked for (for its dialog rows). */
export const declared: Record<string, Record<string, DeclaredField>> = {};
/** A dialog row that edits SQL in a code editor (`data-editor`), and what its template asks of it. */
export interface SqlRow {
  field: string;
  /** A Preview button under the editor, run in the database this field names (`data-preview`). */
  preview?: string;
  /** A button that opens the text in Node-RED's larger editor (`data-expand`). */
  expand: boolean;
  /** The editor takes the height the dialog has left (`data-fill`). */
  fill: boolean;
}

/** The rows each node type's dialog edits in a SQL code editor. */
export const editorRows: Record<string, SqlRow[]> = {};
/** The item a resourceNode names (its field and that row's icon), for buildForm. */
export const items: Record<string, { field: string; icon: string }> = {};

export function declaration(type: string): Declaration {
  const all = window.MindsDBDeclarations;
  const found = all ? all[type] : undefined;
  if (!found) throw new Error(`${type}: no declaration in resources/mindsdb-defaults.js (run npm run build)`);
  return found;
}
