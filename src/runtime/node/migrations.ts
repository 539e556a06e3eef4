import type { NodeSchema } from '../../schema';

/**
 * Saved-config versions. Every node of this package saves `version` with its config; when a later
 * release changes a node's options, it raises that type's version in its declaration
 * (src/schema/nodes.ts) and adds a step here that upgrades an older saved config in memory (the
 * user's flow file is rewritten on the next deploy). Fields a step does not set get their declared
 * defaults when the config is read (src/runtime/node/config.ts). Flows saved before versioning existed
 * have no `version` and are treated as version 1.
 */
export type Step = (config: Record<string, unknown>) => void;

/** Upgrade steps per node type: STEPS[type][n] turns a version-n config into version n+1. */
const STEPS: Record<string, Record<number, Step>> = {};

export function migrateConfig(
  schema: NodeSchema,
  config: Record<string, unknown>,
  steps: Record<string, Record<number, Step>> = STEPS,
): void {
  const { type, version: current } = schema;
  let v = typeof config.version === 'number' && config.version >= 1 ? config.version : 1;
  if (v > current) return; // saved by a newer release: use as is
  while (v < current) {
    steps[type]?.[v]?.(config);
    v++;
  }
  config.version = v;
}
