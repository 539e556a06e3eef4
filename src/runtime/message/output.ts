import { isPlainObject } from '../../client';
import type { Msg, NodeAPI } from '../node/red';

/** Writes a result to the configured output property ("payload" takes the fast path). */
export function setOutput(RED: NodeAPI, msg: Msg, property: string, value: unknown): void {
  if (property === 'payload' || property === '') msg.payload = value;
  else RED.util.setMessageProperty(msg, property, value, true);
}

/**
 * Adds to msg.mindsdb what the message concerns (its operation, project, names …) as soon as the
 * node knows it: the input handler gave each message a fresh msg.mindsdb, so an error reaches
 * Catch with the fields the node's success would give, as far as the node got.
 */
export function describe(msg: Msg, fields: Record<string, unknown>): void {
  if (isPlainObject(msg.mindsdb)) Object.assign(msg.mindsdb, fields);
  else msg.mindsdb = { ...fields };
}

/**
 * Marks the message as a write (an insert, an sql node's statement, a file upload, a training) once
 * the node knows it is one: msg.mindsdb.stored is false (nothing stored yet) until the node stores
 * it, and a failure, its input checks included, sets it by the verdict of what failed (input.ts:
 * false when nothing was stored, "unknown" when that cannot be known; client/exchange/verdict.ts).
 */
export function writing(msg: Msg, fields?: Record<string, unknown>): void {
  describe(msg, { ...fields, stored: false });
}
