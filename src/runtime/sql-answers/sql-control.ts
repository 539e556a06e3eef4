import { resetError, type Control } from '../message/control';
import type { SqlOutput } from './sql-output';
import type { NodeStatus } from '../node/red';
import type { ThrottledStatus } from '../status/status';

/**
 * What a reset asks of incremental mode: the new position kept (after the run the reset stops), and the status that
 * says where it is; a value it cannot read throws at once.
 */
interface Rewind {
  reset(value: unknown): Promise<NodeStatus>;
}

/**
 * msg.reset at a node that sends SQL rows (the sql node; the view node's query), one rule: every
 * sequence under way stops (and, in incremental mode, a run waiting for its answer), each one's
 * message going to Catch with a "reset" error, and in incremental mode the position goes back to
 * the start or to the one in msg.reset. msg.flush has nothing to send here. Either way the control
 * message itself runs no query and sends nothing. Resolves once the new position is kept.
 */
export async function sqlControl(
  control: Control,
  output: SqlOutput,
  incremental: Rewind | undefined,
  status: ThrottledStatus,
): Promise<void> {
  if (!control.reset) return;
  // The new position is read first: a msg.reset it refuses stops nothing.
  const where = incremental?.reset(control.reset.value);
  output.stopAll(
    resetError('msg.reset stopped this query while its rows were being sent: the rest of its result was dropped'),
  );
  if (where) status.now(await where);
}
