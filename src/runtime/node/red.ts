/** The slice of Node-RED's runtime API this package uses, typed once. */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus } from 'node-red';
import type { NodeSchema } from '../../schema';

export type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus };

/** The `send` function Node-RED passes to an input handler. */
export type Send = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
/** The `done` function Node-RED passes to an input handler. */
export type Done = (err?: Error) => void;

/** A node's configuration as Node-RED hands it to the constructor: the saved flow's object. */
export type SavedConfig = NodeDef & Record<string, unknown>;

/** A message as our nodes see it: any properties, read defensively. */
export type Msg = NodeMessageInFlow & Record<string, unknown>;

/** The constructor type registerType's typings want; ours take the saved config as a plain record. */
type NodeConstructor = Parameters<NodeAPI['nodes']['registerType']>[1];

/**
 * Registers a node type under its declaration's name, with the credentials it declares (the one
 * cast the typings need, made once here instead of in every node file).
 */
export function registerNodeType<N extends Node>(
  RED: NodeAPI,
  schema: NodeSchema,
  ctor: (this: N, saved: SavedConfig) => void,
): void {
  const credentials = Object.keys(schema.credentials).length ? { credentials: schema.credentials } : undefined;
  RED.nodes.registerType(schema.type, ctor as unknown as NodeConstructor, credentials);
}
