import { catalogue } from './catalogue';
import { declaration, declared, type Check, type DeclaredField } from './declarations';

const ENV_REFERENCE = /^\$\{[^}]+\}$/;

/** A dialog value as trimmed text ("" for nothing). */
function textOf(v: unknown): string {
  return String(v === undefined || v === null ? '' : v).trim();
}

/** Blank, or the text of a JSON object. */
export function blankOrJsonObject(v: unknown): boolean {
  const s = textOf(v);
  if (s === '') return true;
  try {
    const parsed: unknown = JSON.parse(s);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/**
 * Whether `s` is a number under `rule`: the same patterns and bounds as the runtime's numberOf
 * (src/schema/fields.ts), so the dialog and the runtime accept the same values.
 */
function numberFits(s: string, rule: NonNullable<Check['number']>): boolean {
  if (!(rule.integer ? /^\d+$/ : /^(\d+\.?\d*|\.\d+)$/).test(s)) return false;
  const n = Number(s);
  return (
    Number.isFinite(n) &&
    (rule.min === undefined || n >= rule.min) &&
    (rule.max === undefined || n <= rule.max) &&
    (rule.above === undefined || n > rule.above)
  );
}

/** The type a TypedInput has in the open dialog, else as saved, else `fallback`. */
function liveType(node: EditorNode | undefined, typeField: string, fallback: string): string {
  const live = $(`#node-input-${typeField}`).val();
  const saved = node ? node[typeField] : undefined;
  return (typeof live === 'string' && live) || (typeof saved === 'string' && saved) || fallback;
}

/** A check's verdict: pass or fail, or Node-RED's own validator to decide (with its own message). */
type Verdict = boolean | Validator;

/**
 * The dialog checks a declaration names. Each gets the check, the value and the node, and says
 * whether the value passes.
 */
const CHECKS: Record<string, (c: Check, v: unknown, node: EditorNode | undefined) => Verdict> = {
  number: (c, v) => {
    if (v === undefined) return true; // flows saved before the field existed
    const s = textOf(v);
    if (s === '') return c.blank === true;
    return ENV_REFERENCE.test(s) || numberFits(s, c.number ?? {});
  },
  oneOf: (c, v) => (c.optional === true && v === undefined) || (c.oneOf ?? []).includes(v as string),
  jsonObject: (_c, v) => blankOrJsonObject(v),
  url: (_c, v) => {
    const s = textOf(v);
    return ENV_REFERENCE.test(s) || /^https?:\/\/[^\s/?#]+/i.test(s);
  },
  apiPrefix: (_c, v) => {
    const s = textOf(v);
    return s === '' || ENV_REFERENCE.test(s) || (s.startsWith('/') && !/[\s?#]/.test(s));
  },
  pattern: (c, v) => {
    const s = textOf(v);
    return s === '' || new RegExp(c.pattern ?? '', 'i').test(s);
  },
  msgProperty: () => RED.validators.typedInput({ type: 'msg', allowBlank: true, allowUndefined: true }),
  typedInput: (c, v, node) => {
    const typeField = c.typedInput ?? '';
    const type = liveType(node, typeField, 'str');
    if (c.jsonObject && type === 'json') return blankOrJsonObject(v);
    // MindsDB refuses a file name with an extension: the file becomes the table files.<name>.
    if (c.noExtension && type === 'str' && /[^.]\.[^.]+$/.test(textOf(v))) return false;
    return RED.validators.typedInput({ typeField, allowBlank: true, allowUndefined: true });
  },
};

/**
 * The `validate` function of a declared property: its check (named by the check's first key), its message from the
 * catalogue's errors.
 */
function validator(t: CatalogueFn, key: string, entry: DeclaredField & { check: Check }): Validator {
  const name = Object.keys(entry.check)[0];
  const errorKey = `errors.${entry.error ?? key}`;
  const check = CHECKS[name];
  if (!check) throw new Error(`${key}: no dialog check named "${name}"`);
  return function (this: EditorNode | undefined, v: unknown, opt?: unknown) {
    const verdict = check(entry.check, v, this);
    if (typeof verdict === 'function') return verdict.call(this, v, opt);
    return verdict ? true : opt ? t(errorKey) : false;
  };
}

/** A `defaults` entry for registerType. */
interface DefaultEntry {
  value: unknown;
  type?: string;
  required?: boolean;
  validate?: Validator;
}

/**
 * A node type's `defaults` for registerType: Node-RED's value, type and required as declared,
 * and each declared `check` turned into a `validate` function.
 */
export function defaults(type: string): Record<string, DefaultEntry> {
  const spec = declaration(type).defaults;
  const t = catalogue(type);
  const out: Record<string, DefaultEntry> = {};
  for (const [key, entry] of Object.entries(spec)) {
    const d: DefaultEntry = { value: entry.value };
    if (entry.type !== undefined) d.type = entry.type;
    if (entry.required !== undefined) d.required = entry.required;
    if (entry.check) d.validate = validator(t, key, { ...entry, check: entry.check });
    out[key] = d;
  }
  declared[type] = spec;
  return out;
}

/** A node type's `credentials` for registerType, as declared. */
export function credentials(type: string): Record<string, { type: string }> {
  return JSON.parse(JSON.stringify(declaration(type).credentials)) as Record<string, { type: string }>;
}
