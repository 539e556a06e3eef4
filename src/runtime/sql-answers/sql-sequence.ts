import { rowsToObjects, type SqlResultStream } from '../../client';
import { describe, setOutput } from '../message/output';
import type { NodeMessageParts } from 'node-red';
import type { Msg, NodeAPI, Send } from '../node/red';
import type { Stoppable } from '../message/stoppable';
import type { TickWindow } from '../message/tick-window';

/** Node-RED's msg.parts with the fields its split/join nodes use beyond the typed ones. */
type SequenceParts = NodeMessageParts & { type: 'array'; len: number; parts?: unknown };

export interface SequenceOptions {
  rowsPerMsg: number;
  asArrays: boolean;
  outputProperty: string;
  /** Flow control by msg.tick, when the node has it on. */
  window: TickWindow | undefined;
  /** How long to wait for a tick before giving up on the rest of the result. */
  tickTimeoutMs: number;
  /** Called after each part with the rows sent so far (status display). */
  progress(rows: number): void;
  /** Sees each part's rows right before it is sent (incremental mode keeps its position); a throw ends the sequence. */
  beforeSend?(columns: readonly string[], rows: readonly unknown[][]): void | Promise<void>;
  /** msg.reset may stop the sequence: no part is sent after that, and the input msg ends with its reason. */
  stop?: Stoppable;
  /** The sequence's id (msg.parts.id), when the caller follows its ticks; a new one otherwise. */
  id?: string;
  /** Flow control: the window keeps the sequence after its last part until every part's tick came back. */
  awaitTicks?: boolean;
}

/**
 * Sends a streamed table answer as a Join-compatible message sequence while it arrives. The
 * number of parts is known only at the end, so each part is sent once the next one is read (or
 * the answer ended): the last part carries `parts.count` and `msg.complete`. With flow control a
 * part waits for the window; meanwhile nothing is read, so the server's socket is paused, and the
 * stream gives its connection slot back until the tick came (SqlResultStream.waitOnFlow).
 *
 * If the answer breaks after parts were sent, the rejection ends the sequence: no part with
 * `complete` follows, and the input msg (what reaches Catch) gets `msg.mindsdb.partsId` and
 * `msg.mindsdb.partsSent`, so a flow can drop the incomplete group.
 */
export async function sendSequence(
  RED: NodeAPI,
  msg: Msg,
  stream: SqlResultStream,
  send: Send,
  opts: SequenceOptions,
): Promise<number> {
  const id = opts.id ?? RED.util.generateId();
  const columns = stream.columns;
  const { rowsPerMsg, window, stop } = opts;
  let index = 0;
  let rows = 0;
  let whole = false;
  window?.start(id);
  // A stop ends a wait for a tick at once (the stream's close ends a wait for data).
  stop?.whenStopped(() => window?.stop(id, stop.reason as Error));
  try {
    let current = await stream.read(rowsPerMsg);
    for (;;) {
      const next = current.length < rowsPerMsg ? [] : await stream.read(rowsPerMsg);
      const last = next.length === 0;
      // Waiting for a tick is waiting on the flow: the stream holds no connection slot meanwhile,
      // so whatever the flow does with the same server before it sends the tick back can run.
      if (window && !window.isReady(id)) await stream.waitOnFlow(() => window.ready(id, opts.tickTimeoutMs));
      const parts: SequenceParts = { id, index, type: 'array', len: rowsPerMsg };
      if (msg.parts) parts.parts = msg.parts;
      const part: Msg = { ...msg, parts };
      const meta: Record<string, unknown> = { type: 'table', columns };
      if (opts.asArrays) meta.data = current;
      if (last) {
        parts.count = index + 1;
        part.complete = true;
        if (stream.fields.context !== undefined) meta.context = stream.fields.context;
      }
      part.mindsdb = meta;
      setOutput(RED, part, opts.outputProperty, opts.asArrays ? current : rowsToObjects(columns, current));
      // Rows already read may still be handed out after a stop: none of them is sent.
      stop?.check();
      await opts.beforeSend?.(columns, current);
      send(part);
      window?.sent(id);
      rows += current.length;
      index++;
      opts.progress(rows);
      if (last) {
        whole = true;
        return rows;
      }
      current = next;
    }
  } catch (err) {
    if (index > 0) describe(msg, { type: 'table', columns, partsId: id, partsSent: index });
    // Stopped: whatever the stop caused (a closed stream's read, a tick wait) is the stop.
    throw stop?.reason ?? err;
  } finally {
    // A sequence sent whole waits for the ticks of its parts still out (when asked); a broken one does not.
    window?.finish(id, opts.awaitTicks && whole);
  }
}
