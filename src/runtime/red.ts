/** The slice of Node-RED's runtime API this package uses, typed once. */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus } from 'node-red';

export type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow, NodeMessageParts, NodeStatus };

/** The `send` function Node-RED passes to an input handler. */
export type Send = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
/** The `done` function Node-RED passes to an input handler. */
export type Done = (err?: Error) => void;

/** A message as our nodes see it: any properties, read defensively. */
export type Msg = NodeMessageInFlow & Record<string, unknown>;
