import { parseConfig, type ConfigOf, type NodeSchema } from '../../schema';
import { migrateConfig, type Step } from './migrations';
import type { Node, NodeAPI, SavedConfig } from './red';
import { rememberServer } from './server';

export type { SavedConfig };

/**
 * A node's configuration, read once when the node starts: migrated to its type's current version,
 * then every field read through the type's declaration (src/schema/nodes.ts), with the declared
 * default for what the flow lacks. A value the declaration refuses (a hand-edited flow, a `${VAR}`
 * that resolved to the wrong thing) also gets the default, and the node says so once.
 */
export function readConfig<S extends NodeSchema>(
  node: Pick<Node, 'warn'>,
  schema: S,
  saved: Record<string, unknown>,
  steps?: Record<string, Record<number, Step>>,
): ConfigOf<S> {
  migrateConfig(schema, saved, steps);
  const { config, problems } = parseConfig(schema, saved);
  for (const problem of problems) node.warn(`the node's ${problem}`);
  return config;
}

/** The start of every node's constructor: Node-RED's own setup, then the node's config. */
export function startNode<S extends NodeSchema>(RED: NodeAPI, node: Node, schema: S, saved: SavedConfig): ConfigOf<S> {
  RED.nodes.createNode(node, saved);
  const config = readConfig(node, schema, saved);
  rememberServer(RED, node, (config as { server?: unknown }).server);
  return config;
}
