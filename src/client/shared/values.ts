/** Small value types and checks shared by the client and the Node-RED adapters. */

/** One row as objects keyed by column name (SQL answers, predictions). */
export type Row = Record<string, unknown>;

/** A JSON-style object (not an array, null or Buffer): what a row or a settings record must be. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** Names a value's type for error messages ("an array", "null", "number" …). */
export function describeType(v: unknown): string {
  return Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v;
}

/** Node's timers hold at most 2^31-1 ms; a longer delay would silently become 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A byte count for error texts: "64 MB", "512 kB" (a limit under 1 MB is not "0 MB"). */
export function sizeText(bytes: number): string {
  return bytes >= 1048576 ? `${Math.round(bytes / 1048576)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`;
}
