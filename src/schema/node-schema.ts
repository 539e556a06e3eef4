import type { Credential, EditorEntry, Field, ValueOf } from './field-types';

type Fields = Record<string, Field<unknown>>;
type Credentials = Record<string, Credential>;

/** One node type's saved configuration: its fields in dialog order, its credentials, its config version. */
export interface NodeSchema<F extends Fields = Fields, C extends Credentials = Credentials> {
  readonly type: string;
  /**
   * The saved-config version a node of this type is saved with now. Raise it when an option
   * changes meaning, and add the step that upgrades older configs in src/runtime/node/migrations.ts.
   */
  readonly version: number;
  readonly fields: F;
  readonly credentials: C;
}

/** A node's configuration as the runtime reads it: every field typed, defaults applied. */
export type ConfigOf<S extends NodeSchema> = {
  readonly [K in keyof S['fields']]: ValueOf<S['fields'][K]>;
} & { readonly version: number };

/** A node's credentials (each may be missing: Node-RED stores only what was typed). */
export type CredentialsOf<S extends NodeSchema> = { [K in keyof S['credentials']]?: string };

export function defineNode<F extends Fields, C extends Credentials = Record<never, Credential>>(
  type: string,
  version: number,
  fields: F,
  credentials: C = {} as C,
): NodeSchema<F, C> {
  return { type, version, fields, credentials };
}

/**
 * Reads a saved config (after its migration) into typed values. An absent field gets its declared
 * default; a value the declaration refuses gets the default too, and a line in `problems` that
 * names the field, for the node to warn about once when it starts.
 */
export function parseConfig<S extends NodeSchema>(
  schema: S,
  saved: Record<string, unknown>,
): { config: ConfigOf<S>; problems: string[] } {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, field] of Object.entries(schema.fields)) {
    const read = field.read(saved, name);
    config[name] = read.value;
    if (read.problem) problems.push(`${name}: ${read.problem}; using ${JSON.stringify(read.value) ?? 'nothing'}`);
  }
  config.version = typeof saved.version === 'number' ? saved.version : schema.version;
  return { config: config as ConfigOf<S>, problems };
}

/** The editor's `defaults`, in dialog order, ending with the saved-config version. */
export function editorDefaults(schema: NodeSchema): Array<[string, EditorEntry]> {
  return [
    ...Object.entries(schema.fields).flatMap(([name, field]) => field.editor(name)),
    ['version', { value: schema.version }],
  ];
}
