import type { Typed } from '../../schema';
import type { Msg, Node, NodeAPI } from '../node/red';
import { operationOf } from './operation';
import { describe, writing } from './output';
import { nameFrom, projectFrom } from './properties';

/** What a message to a node of project items (jobs, views, knowledge bases, chatbots, skills, agents) asks for. */
export interface ProjectItemRequest<Op extends string> {
  operation: Op;
  project: string;
  /** The item's name (msg.name when the node has none); undefined for a list. */
  name: string | undefined;
}

/**
 * Reads a message's operation, project and item name, in that order, and adds each to msg.mindsdb
 * as it is read (with `resource`, and `stored` for an operation in `writes`), so an error in any of
 * them, or later, reaches Catch with what was known. Node fields win; a msg field fills a blank one
 * and must then be text (a number or an object silently becoming "mindsdb" could point a delete at
 * the default project).
 */
export async function projectItemOf<Op extends string>(
  RED: NodeAPI,
  node: Node,
  msg: Msg,
  resource: string,
  operation: { configured: string | undefined; allowed: readonly Op[]; what: string; writes?: readonly Op[] },
  fields: { project: Typed; itemName: Typed },
): Promise<ProjectItemRequest<Op>> {
  describe(msg, { resource });
  const op = operationOf(operation.configured, msg, operation.allowed, operation.what);
  describe(msg, { operation: op });
  if (operation.writes?.includes(op)) writing(msg);
  const project = await projectFrom(RED, node, fields.project, msg);
  describe(msg, { project });
  const name = await nameFrom(RED, node, fields.itemName, msg, 'name');
  describe(msg, { name });
  return { operation: op, project, name };
}
