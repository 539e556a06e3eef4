/**
 * What a field declaration is (./fields.ts makes them): the TypedInput types, the values a field
 * reads to, the rules and checks it carries as data, and what it gives the editor and the runtime.
 */

/** TypedInput type names that Node-RED's RED.util.evaluateNodeProperty understands. */
export type TypedInputType =
  | 'str'
  | 'num'
  | 'bool'
  | 'json'
  | 'msg'
  | 'flow'
  | 'global'
  | 'env'
  | 'jsonata'
  | 're'
  | 'date'
  | 'bin';

export const TYPED_INPUT_TYPES: readonly string[] = [
  'str',
  'num',
  'bool',
  'json',
  'msg',
  'flow',
  'global',
  'env',
  'jsonata',
  're',
  'date',
  'bin',
];

/** A TypedInput's saved pair, read as one value: `project` and `projectType` become `{value, type}`. */
export interface Typed {
  value: string;
  type: TypedInputType;
}

/** What a number field accepts: a whole number or a decimal, within bounds. */
export interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
  /** Strictly greater than this (a size in MB may be 0.5, never 0). */
  above?: number;
}

/**
 * A dialog check, as data. Its first key names it: src/editor/checks.ts (`CHECKS`)
 * implements each one, and the message it shows is the catalogue's `errors.<field>` (or
 * `errors.<error>` when a field says so).
 */
export type Check =
  /**
   * The value of a TypedInput whose type is saved in `typedInput`; with `jsonObject`, a json-typed value must be blank
   * or a JSON object; with `noExtension`, a str-typed value must not end in an extension.
   */
  | { typedInput: string; jsonObject?: boolean; noExtension?: boolean }
  /** A msg property path (the Output row). */
  | { msgProperty: true }
  /** A number (text or number) following `number`; blank too with `blank`; `${VAR}` always. */
  | { number: NumberRule; blank?: boolean }
  /** One of `oneOf`; with `optional`, absent too (flows saved before the field existed). */
  | { oneOf: readonly string[]; optional?: boolean }
  /** Blank, or the text of a JSON object. */
  | { jsonObject: true }
  /** An http(s) URL, or `${VAR}`. */
  | { url: true }
  /** Blank, `${VAR}`, or a path that starts with "/" (no spaces, "?" or "#"). */
  | { apiPrefix: true }
  /** Blank, or a text matching the regular expression `pattern` (case-insensitive). */
  | { pattern: string };

/** One saved property as the editor declares it in `defaults`. */
export interface EditorEntry {
  value: string | number | boolean | readonly string[];
  /** A config node type the property refers to (a select of those nodes in the dialog). */
  type?: string;
  /**
   * A config node type whose nodes the property lists by id (a select of several in the dialog).
   * Not `type`: Node-RED's editor would make that a select of one.
   */
  choices?: string;
  required?: boolean;
  check?: Check;
  /** The catalogue key under `errors.` when it is not the property's name. */
  error?: string;
  /** The name of what the node's operation acts on (its canvas label and name picker in the dialog). */
  item?: true;
}

/** A value read from a saved config; `problem` says why a value that was there was not used. */
export interface Read<T> {
  value: T;
  problem?: string;
}

/** One declared field: its editor entries and how the runtime reads it. */
export interface Field<T> {
  /** What the runtime reads when the saved config lacks the field. */
  readonly default: T;
  /** The editor's `defaults` entries for this field (a TypedInput saves two). */
  editor(name: string): Array<[string, EditorEntry]>;
  /** The value from a saved config (`saved[name]`, and `saved[name + 'Type']` for a TypedInput). */
  read(saved: Record<string, unknown>, name: string): Read<T>;
}

/** A field of a few values; `values` also lists them for the runtime (a node's operations). */
export interface OneOf<V extends string> extends Field<V> {
  readonly values: readonly V[];
}

/** A credential (Node-RED keeps it in flows_cred.json, never in the flow). */
export interface Credential {
  type: 'password' | 'text';
}

/** The value a field declaration reads to. */
export type ValueOf<F> = F extends Field<infer T> ? T : never;
