import { inputError } from '../../client';
import type { OneOf } from '../../schema';
import type { Msg } from '../node/red';

/** The operations a node runs: its declared operation values but "msg" (take it from msg.operation). */
export function operationsOf<V extends string>(field: OneOf<V>): ReadonlyArray<Exclude<V, 'msg'>> {
  return field.values.filter((v): v is Exclude<V, 'msg'> => v !== 'msg');
}

/**
 * The operation one message asks for: the node's own, or msg.operation when the node is set to
 * "msg" (or to nothing); anything outside `allowed` is an input error for that message.
 */
export function operationOf<Op extends string>(
  configured: string | undefined,
  msg: Msg,
  allowed: readonly Op[],
  what: string,
): Op {
  const op = configured === 'msg' || !configured ? msg.operation : configured;
  if (typeof op !== 'string' || !(allowed as readonly string[]).includes(op)) {
    throw inputError(
      `the ${what} operation must be one of ${allowed.join(', ')} (got ${JSON.stringify(op) ?? 'nothing'})`,
    );
  }
  return op as Op;
}
