/**
 * The kinds of field a node's saved configuration is made of. Each kind says, once, for both sides:
 * - what the editor saves: its entries in the dialog's `defaults` (a TypedInput saves two
 *   properties, its value and its type), with the dialog's check as data (`Check`, turned into a
 *   `validate` function by src/editor/checks.ts);
 * - how the runtime reads a saved flow: an older flow lacks newer fields (→ the declared default),
 *   a number typed into a dialog is saved as text, a hand-written flow may hold anything (a value
 *   the kind refuses → the declared default, and the reason, so the node can warn once).
 *
 * Numbers follow one rule on both sides (`NumberRule`, `numberOf`): the dialog's check and the
 * runtime accept exactly the same values (test/unit/node-schema.test.js probes both).
 */

import {
  TYPED_INPUT_TYPES,
  type Check,
  type Credential,
  type Field,
  type NumberRule,
  type OneOf,
  type Read,
  type Typed,
  type TypedInputType,
} from './field-types';

const absent = (v: unknown): boolean => v === undefined || v === null;
const show = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? typeof v);

/** Text of a whole number, or of a decimal ("0.5", ".5", "2."). The dialog's check uses the same patterns. */
const WHOLE = /^\d+$/;
const DECIMAL = /^(\d+\.?\d*|\.\d+)$/;

/**
 * The number a saved value stands for under `rule`, or undefined when it breaks the rule. Saved
 * numbers come as numbers (hand-written flows, defaults) or as the dialog's text ("250").
 */
export function numberOf(v: unknown, rule: NumberRule): number | undefined {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && (rule.integer ? WHOLE : DECIMAL).test(v.trim())) n = Number(v.trim());
  else return undefined;
  if (!Number.isFinite(n) || (rule.integer && !Number.isInteger(n))) return undefined;
  if (rule.min !== undefined && n < rule.min) return undefined;
  if (rule.max !== undefined && n > rule.max) return undefined;
  if (rule.above !== undefined && n <= rule.above) return undefined;
  return n;
}

/** "a whole number from 1", "a number from 0 to 1", "a number above 0". */
export function describeRule(rule: NumberRule): string {
  const what = rule.integer ? 'a whole number' : 'a number';
  if (rule.min !== undefined && rule.max !== undefined) return `${what} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${what} from ${rule.min}`;
  if (rule.above !== undefined) return `${what} above ${rule.above}`;
  if (rule.max !== undefined) return `${what} up to ${rule.max}`;
  return what;
}

/** Text (a number in a hand-written flow is taken as its text, e.g. a port or a name like 2024). */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

function readText(v: unknown, fallback: string): Read<string> {
  if (absent(v)) return { value: fallback };
  const s = textOf(v);
  return s === undefined ? { value: fallback, problem: `${show(v)} is not text` } : { value: s };
}

/**
 * A free text field. The dialog may check its format (`check`: a URL, a JSON object, a schedule …);
 * the runtime takes the text as it is and checks it where it uses it, with an error that names it.
 * A `required` field left blank reads as its default.
 */
export function text(value = '', options: { check?: Check; error?: string; required?: boolean } = {}): Field<string> {
  const { check, error, required } = options;
  return {
    default: value,
    editor: (name) => [
      [name, { value, ...(required ? { required } : {}), ...(check ? { check } : {}), ...(error ? { error } : {}) }],
    ],
    read: (saved, name) => {
      const t = readText(saved[name], value);
      return required && t.value.trim() === '' ? { value, problem: 'it is blank' } : t;
    },
  };
}

/** The id of a config node this node uses (the server, a tls-config). */
export function configNode(type: string, required: boolean): Field<string> {
  return {
    default: '',
    editor: (name) => [[name, { value: '', type, required }]],
    read: (saved, name) => readText(saved[name], ''),
  };
}

/**
 * Config nodes of one type that a message may choose among by name (the servers msg.server may
 * pick): their ids, none by default. An id whose node is gone is left to the runtime, which names
 * the ones that are there when a message asks.
 */
export function configNodeChoices(type: string): Field<readonly string[]> {
  return {
    default: [],
    editor: (name) => [[name, { value: [], choices: type }]],
    read: (saved, name) => {
      const v = saved[name];
      if (absent(v) || v === '') return { value: [] };
      if (Array.isArray(v) && v.every((id) => typeof id === 'string')) return { value: v.filter((id) => id !== '') };
      return { value: [], problem: `${show(v)} is not a list of node ids` };
    },
  };
}

/** A checkbox. The text "true"/"false" of a hand-written flow counts as the boolean. */
export function flag(value: boolean): Field<boolean> {
  return {
    default: value,
    editor: (name) => [[name, { value }]],
    read: (saved, name) => {
      const v = saved[name];
      if (absent(v)) return { value };
      if (typeof v === 'boolean') return { value: v };
      if (v === 'true' || v === 'false') return { value: v === 'true' };
      return { value, problem: `${show(v)} is not true or false` };
    },
  };
}

/** A number the node must have (a blank or wrong one reads as the default). */
export function number(value: number, rule: NumberRule, options: { required?: boolean } = {}): Field<number> {
  return {
    default: value,
    editor: (name) => [[name, { value, ...(options.required ? { required: true } : {}), check: { number: rule } }]],
    read: (saved, name) => {
      const v = saved[name];
      if (absent(v)) return { value };
      const n = numberOf(v, rule);
      return n === undefined ? { value, problem: `${show(v)} is not ${describeRule(rule)}` } : { value: n };
    },
  };
}

/** A number the node may leave blank (blank: the message's value, or the node's own fallback, is used). */
export function optionalNumber(value: number | '', rule: NumberRule): Field<number | undefined> {
  const fallback = value === '' ? undefined : value;
  return {
    default: fallback,
    editor: (name) => [[name, { value, check: { number: rule, blank: true } }]],
    read: (saved, name) => {
      const v = saved[name];
      if (absent(v)) return { value: fallback };
      if (typeof v === 'string' && v.trim() === '') return { value: undefined };
      const n = numberOf(v, rule);
      return n === undefined ? { value: fallback, problem: `${show(v)} is not ${describeRule(rule)}` } : { value: n };
    },
  };
}

/**
 * One of a few values (a select). `optional`: flows saved before the field existed lack it, and
 * the dialog accepts that; the runtime reads an absent value as the default either way.
 */
export function oneOf<const V extends string>(
  values: readonly V[],
  value: NoInfer<V>,
  options: { optional?: boolean } = {},
): OneOf<V> {
  return {
    values,
    default: value,
    editor: (name) => [[name, { value, check: { oneOf: values, ...(options.optional ? { optional: true } : {}) } }]],
    read: (saved, name) => {
      const v = saved[name];
      if (absent(v)) return { value };
      return (values as readonly unknown[]).includes(v)
        ? { value: v as V }
        : { value, problem: `${show(v)} is not one of ${values.join(', ')}` };
    },
  };
}

/**
 * A TypedInput: the value in `<name>`, its type in `<name>Type`. `jsonObject`: a json-typed value
 * must be blank or a JSON object; `noExtension`: a string value must not end in an extension
 * (both dialog checks; the runtime evaluates the value per message, as Node-RED does); `item`:
 * it names what the node's operation acts on (the dialog's resourceNode labels and suggests it).
 */
export function typed(
  value: string,
  type: TypedInputType,
  options: { jsonObject?: boolean; noExtension?: boolean; error?: string; item?: true } = {},
): Field<Typed> {
  const { error, item, ...checks } = options;
  return {
    default: { value, type },
    editor: (name) => [
      [
        name,
        {
          value,
          check: { typedInput: `${name}Type`, ...checks },
          ...(error ? { error } : {}),
          ...(item ? { item } : {}),
        },
      ],
      [`${name}Type`, { value: type }],
    ],
    read: (saved, name) => {
      const v = readText(saved[name], value);
      const t = saved[`${name}Type`];
      if (absent(t) || t === '') return { value: { value: v.value, type }, problem: v.problem };
      if (typeof t === 'string' && TYPED_INPUT_TYPES.includes(t))
        return { value: { value: v.value, type: t as TypedInputType }, problem: v.problem };
      return { value: { value: v.value, type }, problem: `its type ${show(t)} is not a TypedInput type` };
    },
  };
}

/** Where the result goes on the output msg: a msg property path, "payload" when blank. */
export function msgProperty(value = 'payload'): Field<string> {
  return {
    default: value,
    editor: (name) => [[name, { value, check: { msgProperty: true } }]],
    read: (saved, name) => {
      const t = readText(saved[name], value);
      const path = t.value.trim().replace(/^msg\./, '');
      return { value: path === '' ? value : path, problem: t.problem };
    },
  };
}

export const password = (): Credential => ({ type: 'password' });
export const plainCredential = (): Credential => ({ type: 'text' });
