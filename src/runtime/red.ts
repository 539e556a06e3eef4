/** The slice of Node-RED's runtime API this package uses, typed once. */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus } from 'node-red';

export type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus };

/** The `send` function Node-RED passes to an input handler. */
export type Send = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
/** The `done` function Node-RED passes to an input handler. */
export type Done = (err?: Error) => void;

/** A message as our nodes see it: any properties, read defensively. */
export type Msg = NodeMessageInFlow & Record<string, unknown>;

/** The constructor type registerType's typings want; our constructors are typed by their config instead. */
type NodeConstructor = Parameters<NodeAPI['nodes']['registerType']>[1];
type RegisterOptions = Parameters<NodeAPI['nodes']['registerType']>[2];

/**
 * Registers a node type whose constructor is typed by its own saved config (the one cast the
 * typings need, made once here instead of in every node file).
 */
export function registerNodeType<Config>(RED: NodeAPI, type: string, ctor: (this: Node, config: Config) => void, options?: RegisterOptions): void {
  RED.nodes.registerType(type, ctor as unknown as NodeConstructor, options);
}
