import { describeType, inputError } from '../client';

export { isPlainObject, describeType } from '../client';
import type { Msg, Node, NodeAPI } from './red';
import type { TypedInputType } from './node-configs';

/**
 * Evaluates a TypedInput property for one message. Plain strings skip Node-RED's evaluator (the
 * common case, on the hot path); everything else goes through RED.util.evaluateNodeProperty in
 * its callback form, which JSONata and asynchronous context stores need.
 */
export function evaluateProperty(RED: NodeAPI, node: Node, value: string | undefined, type: TypedInputType | string | undefined, msg: Msg): Promise<unknown> | unknown {
  if (value === undefined || value === '') return type === 'str' || !type ? '' : undefined;
  if (!type || type === 'str') return value;
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

/** Reads a positive number from node config text (e.g. "100"), else the fallback. */
export function configNumber(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Reads a whole number ≥ 0 from node config text (e.g. "0", "3"), else the fallback. */
export function configCount(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : fallback;
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
export async function nameFrom(RED: NodeAPI, node: Node, value: string | undefined, type: string | undefined, msg: Msg, key: string): Promise<string | undefined> {
  return nonEmptyString(await evaluateProperty(RED, node, value, type, msg)) ?? msgText(msg, key);
}
