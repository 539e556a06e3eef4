import type { Msg, NodeAPI } from './red';

/** Writes a result to the configured output property ("payload" takes the fast path). */
export function setOutput(RED: NodeAPI, msg: Msg, property: string, value: unknown): void {
  if (property === 'payload' || property === '') msg.payload = value;
  else RED.util.setMessageProperty(msg, property, value, true);
}

/** The output property from config, without a leading "msg.". */
export function outputPropertyOf(configured: string | undefined): string {
  const p = (configured ?? '').trim().replace(/^msg\./, '');
  return p === '' ? 'payload' : p;
}
