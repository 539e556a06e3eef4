/**
 * Saved-config versions. Every node of this package saves `version` with its config; when a later
 * release changes a node's options, it raises CURRENT_VERSION for that type and adds a step here
 * that upgrades an older saved config in memory (the user's flow file is rewritten on the next
 * deploy). Flows saved before versioning existed have no `version` and are treated as version 1.
 */
export const CURRENT_VERSION = 1;

type Step = (config: Record<string, unknown>) => void;

/** Upgrade steps per node type: STEPS[type][n] turns a version-n config into version n+1. */
const STEPS: Record<string, Record<number, Step>> = {};

export function migrateConfig<T extends { version?: number }>(type: string, config: T): T {
  const c = config as T & Record<string, unknown>;
  let v = typeof c.version === 'number' && c.version >= 1 ? c.version : 1;
  if (v > CURRENT_VERSION) return c; // saved by a newer release: use as is
  while (v < CURRENT_VERSION) {
    STEPS[type]?.[v]?.(c);
    v++;
  }
  c.version = v;
  return c;
}
