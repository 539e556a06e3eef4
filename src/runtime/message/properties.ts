import { describeType, inputError, isPlainObject } from '../../client';

export { isPlainObject, describeType } from '../../client';
import { DEFAULT_PROJECT, type Typed } from '../../schema';
import type { Msg, Node, NodeAPI } from '../node/red';

/**
 * Evaluates a TypedInput property for one message. Plain strings skip Node-RED's evaluator (the
 * common case, on the hot path); everything else goes through RED.util.evaluateNodeProperty in
 * its callback form, which JSONata and asynchronous context stores need.
 */
export function evaluateProperty(
  RED: NodeAPI,
  node: Node,
  { value, type }: Typed,
  msg: Msg,
): Promise<unknown> | unknown {
  if (value === '') return type === 'str' ? '' : undefined;
  if (type === 'str') return value;
  return new Promise((resolve, reject) => {
    RED.util.evaluateNodeProperty(value, type, node, msg, (err: Error | null, result: unknown) => {
      if (err) reject(err);
      else resolve(result);
    });
  });
}

/** A non-empty string, or undefined. Numbers are accepted and turned into text (names like 2024). */
export function nonEmptyString(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/**
 * A text field of the message (msg.project, msg.model …) that fills a blank node field. Call it
 * only when the node field is blank, so a msg field the node overrides never fails a message; a
 * value that is not text is reported, never silently replaced by a default.
 */
export function msgText(msg: Msg, key: string): string | undefined {
  const v = msg[key];
  // Blank text fills nothing, like a missing field; only a value that is not text is a mistake.
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return undefined;
  const s = nonEmptyString(v);
  if (s === undefined) throw inputError(`msg.${key} must be a string, not ${describeType(v)}`);
  return s;
}

/**
 * A name field (project, model, record name …): the node's TypedInput when it gives text, else
 * msg[key], which must then be text (msgText). Every node reads its names this way.
 */
export async function nameFrom(
  RED: NodeAPI,
  node: Node,
  field: Typed,
  msg: Msg,
  key: string,
): Promise<string | undefined> {
  return nonEmptyString(await evaluateProperty(RED, node, field, msg)) ?? msgText(msg, key);
}

/**
 * A node's JSON-object text field (a database's other parameters, a model's USING options): {} when
 * blank, else the object; anything else is an input error that names the field (`what`).
 */
export function jsonObjectText(text: string, what: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw inputError(`${what} are not valid JSON`);
  }
  if (!isPlainObject(parsed)) throw inputError(`${what} must be a JSON object`);
  return parsed;
}

/** The project a message is about: the node's Project, else msg.project, else MindsDB's default project. */
export async function projectFrom(RED: NodeAPI, node: Node, field: Typed, msg: Msg): Promise<string> {
  return (await nameFrom(RED, node, field, msg, 'project')) ?? DEFAULT_PROJECT;
}

/** The rows a message brings, before they are checked: an array's length, one for an object, else none. */
export function rowCount(payload: unknown): number {
  return Array.isArray(payload) ? payload.length : isPlainObject(payload) ? 1 : 0;
}
