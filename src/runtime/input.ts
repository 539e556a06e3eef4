import { MAX_TIMER_MS, MindsDBError, inputError } from '../client';
import type { Done, Msg, Node, NodeStatus, Send } from './red';
import type { ThrottledStatus } from './status';

/** What the red ring says about a failed message (a node type's StatusTexts). */
export interface FailureStatus {
  error(err: Error): NodeStatus;
}

export type InputHandler = (msg: Msg, send: Send) => Promise<void>;

const CLOSE_GRACE_MS = 10_000;

/**
 * Wires a node's input to an async handler with Node-RED's send/done contract:
 * every message ends in exactly one `done()` (after the handler sent its output) or one
 * `done(err)` (so a Catch node gets the msg), whatever the handler throws or rejects with.
 * It also counts messages in flight, so the node's close waits for them on redeploy.
 */
export function handleInput(node: Node, status: ThrottledStatus, texts: FailureStatus, handler: InputHandler, onClose?: () => Promise<void> | void): void {
  // A counter, not a set of promises: on the hot path each message costs one then() and no
  // bookkeeping objects; close() waits on `drained` only when messages are still in flight.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const finished = (): void => {
    if (--inFlight === 0 && drained) drained();
  };

  node.on('input', (msg, send: Send, done: Done) => {
    let task: Promise<void>;
    try {
      task = handler(msg as Msg, send);
    } catch (err) {
      task = Promise.reject(err);
    }
    inFlight++;
    task.then(
      () => { deliver(node, () => done()); finished(); },
      (err: unknown) => {
        const error = asError(err);
        deliver(node, () => {
          status.now(texts.error(error));
          attachErrorDetails(msg as Msg, error);
          done(error);
        });
        finished();
      },
    );
  });

  node.on('close', (_removed: boolean, closed: () => void) => {
    const allDone = new Promise<void>((resolve) => {
      if (inFlight === 0) resolve();
      else drained = resolve;
    });
    // onClose runs now, not a turn later: Node-RED closes the config nodes (the server node and
    // its connection) right after the flow's nodes, in the same turn, so a micro-batch flushed
    // here must start its request before that, or it would only meet a closed connection.
    let closing: Promise<void> | void;
    try { closing = onClose?.(); } catch { closing = undefined; }
    Promise.resolve(closing)
      .then(() => waitAtMost(allDone, CLOSE_GRACE_MS))
      .catch(() => undefined)
      .finally(() => { drained = undefined; status.stop(); closed(); });
  });
}

/**
 * Runs Node-RED's side of an outcome. If Node-RED itself fails to route it (e.g. a msg it cannot
 * clone), say so once rather than throw out of a promise callback (an unhandled rejection).
 */
function deliver(node: Node, outcome: () => void): void {
  try {
    outcome();
  } catch (err) {
    node.warn(`could not deliver the outcome of a message: ${asError(err).message}`);
  }
}

/** Structured details beside Node-RED's own msg.error, for flows that branch on the kind of failure. */
function attachErrorDetails(msg: Msg, err: Error): void {
  if (!(err instanceof MindsDBError) || typeof msg !== 'object' || msg === null) return;
  msg.mindsdbError = { kind: err.kind, status: err.status, code: err.code, serverMessage: err.serverMessage, method: err.method, path: err.path };
}

export function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : 'unknown error');
}

function waitAtMost(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise((resolve) => { timer = setTimeout(resolve, ms); })]).finally(() => clearTimeout(timer));
}

/** `msg.timeout`: absent, or a positive number of milliseconds. */
export function timeoutFrom(msg: Msg): number | undefined {
  const t = msg.timeout;
  if (t === undefined || t === null || t === '') return undefined;
  const n = typeof t === 'string' ? Number(t) : t;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > MAX_TIMER_MS) {
    throw inputError(`msg.timeout must be a number of milliseconds between 1 and ${MAX_TIMER_MS}`);
  }
  return n;
}
