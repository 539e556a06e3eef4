import type { Msg, NodeAPI } from '../node/red';

/** Writes a result to the configured output property ("payload" takes the fast path). */
export function setOutput(RED: NodeAPI, msg: Msg, property: string, value: unknown): void {
  if (property === 'payload' || property === '') msg.payload = value;
  else RED.util.setMessageProperty(msg, property, value, true);
}
