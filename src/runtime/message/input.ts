import { isPlainObject, MAX_TIMER_MS, MindsDBError, inputError, storedAfter } from '../../client';
import type { Done, Msg, Node, NodeStatus, Send } from '../node/red';
import { clientOfNode } from '../node/server';
import { HealthRing, type HealthTexts } from '../status/health-ring';
import type { ThrottledStatus } from '../status/status';

/** What the ring says about a failed message and about the server's health (a node type's StatusTexts). */
export interface FailureStatus extends HealthTexts {
  error(err: Error): NodeStatus;
}

export type InputHandler = (msg: Msg, send: Send) => Promise<void>;

/**
 * A message's one outcome, for a handler that reports it itself (`handleInputWith`): `ok()` after
 * its output was sent, or `fail(err)`. Only the first call counts.
 */
export interface Outcome {
  ok(): void;
  fail(err: unknown): void;
}

/** A handler that reports each message's outcome through `outcome`, without a promise. */
export type DirectInputHandler = (msg: Msg, send: Send, outcome: Outcome) => void;

/** How long a closing node waits for its messages in flight (and a node that keeps state, for its last write). */
export const CLOSE_GRACE_MS = 10_000;

/**
 * Wires a node's input to an async handler with Node-RED's send/done contract:
 * every message ends in exactly one `done()` (after the handler sent its output) or one
 * `done(err)` (so a Catch node gets the msg), whatever the handler throws or rejects with.
 * It also counts messages in flight, so the node's close waits for them on redeploy, and shows the
 * server's health on the node's ring (the HealthRing it returns).
 */
export function handleInput(
  node: Node,
  status: ThrottledStatus,
  texts: FailureStatus,
  handler: InputHandler,
  onClose?: () => Promise<void> | void,
): HealthRing {
  return handleInputWith(
    node,
    status,
    texts,
    (msg, send, outcome) => {
      handler(msg, send).then(
        () => outcome.ok(),
        (err: unknown) => outcome.fail(err),
      );
    },
    onClose,
  );
}

/**
 * `handleInput` for a handler that reports the outcome itself (the sql node's per-message path,
 * which has no promise from the msg to its answer). The same contract: exactly one `done()` or
 * `done(err)` per message, a throw from the handler is that message's error, and close waits for
 * the messages in flight.
 */
export function handleInputWith(
  node: Node,
  status: ThrottledStatus,
  texts: FailureStatus,
  handler: DirectInputHandler,
  onClose?: () => Promise<void> | void,
): HealthRing {
  const input = new InputState(node, status, texts);
  // Every node shows its server's health (the server node's watcher, client/connection/health.ts).
  const ring = new HealthRing(status, texts);
  ring.watch(clientOfNode(node));

  node.on('input', (msg, send: Send, done: Done) => {
    // The message's own msg.mindsdb, filled by the node as it learns what the message concerns
    // (describe() in ./output.ts): an error reaches Catch with it, never with one an earlier node left.
    (msg as Msg).mindsdb = {};
    const outcome = new MessageOutcome(input, msg as Msg, done);
    input.inFlight++;
    try {
      handler(msg as Msg, send, outcome);
    } catch (err) {
      // A turn later, as a rejected promise's would be: Node-RED sees the error after the input event.
      queueMicrotask(() => outcome.fail(err));
    }
  });

  node.on('close', (_removed: boolean, closed: () => void) => {
    const allDone = new Promise<void>((resolve) => {
      if (input.inFlight === 0) resolve();
      else input.drained = resolve;
    });
    // onClose runs now, not a turn later: Node-RED closes the config nodes (the server node and
    // its connection) right after the flow's nodes, in the same turn, so a micro-batch flushed
    // here must start its request before that, or it would only meet a closed connection.
    let closing: Promise<void> | void;
    try {
      closing = onClose?.();
    } catch {
      closing = undefined;
    }
    Promise.resolve(closing)
      .then(() => waitAtMost(allDone, CLOSE_GRACE_MS))
      .catch(() => undefined)
      .finally(() => {
        input.drained = undefined;
        ring.stop();
        status.stop();
        closed();
      });
  });
  return ring;
}

/**
 * A counter of messages in flight, not a set of promises: on the hot path each message costs one
 * small object and no bookkeeping; close() waits on `drained` only when messages are still in flight.
 */
class InputState {
  inFlight = 0;
  drained: (() => void) | undefined;
  constructor(
    readonly node: Node,
    readonly status: ThrottledStatus,
    readonly texts: FailureStatus,
  ) {}

  finished(): void {
    if (--this.inFlight === 0 && this.drained) this.drained();
  }
}

class MessageOutcome implements Outcome {
  private settled = false;
  constructor(
    private readonly input: InputState,
    private readonly msg: Msg,
    private readonly done: Done,
  ) {}

  ok(): void {
    if (this.settled) return;
    this.settled = true;
    const { input } = this;
    try {
      this.done();
    } catch (err) {
      undelivered(input.node, err);
    }
    input.finished();
  }

  fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    const { input, msg } = this;
    const error = asError(err);
    try {
      input.status.now(input.texts.error(error));
      attachErrorDetails(msg, error);
      this.done(error);
    } catch (e) {
      undelivered(input.node, e);
    }
    input.finished();
  }
}

/**
 * The outcome of a message whose input already ended (an outbox's message, sent after MindsDB came
 * back, perhaps after a restart): its error goes to Catch as any message's does, with the node's
 * red ring and msg.mindsdbError.
 */
export function reportLateFailure(
  node: Node,
  status: ThrottledStatus,
  texts: FailureStatus,
  msg: Msg,
  err: Error,
): void {
  try {
    status.now(texts.error(err));
    attachErrorDetails(msg, err);
    node.error(err, msg);
  } catch (e) {
    undelivered(node, e);
  }
}

/**
 * Node-RED itself failed to route an outcome (e.g. a msg it cannot clone): say so once rather
 * than throw out of a callback (an unhandled rejection, or an exception inside undici's).
 */
function undelivered(node: Node, err: unknown): void {
  node.warn(`could not deliver the outcome of a message: ${asError(err).message}`);
}

/**
 * Structured details beside Node-RED's own msg.error, for flows that branch on the kind of failure:
 * msg.mindsdbError, and in msg.mindsdb (what the message concerns) what the failed operation left
 * on the server, and for a write whether it was stored.
 */
function attachErrorDetails(msg: Msg, err: Error): void {
  if (typeof msg !== 'object' || msg === null) return;
  // A write's message (./output.ts, writing()) says what the failure left stored; a writer that knew
  // more (an outbox's message in doubt: "unknown") has said so already.
  if (isPlainObject(msg.mindsdb) && msg.mindsdb.stored === false) msg.mindsdb.stored = storedAfter(err);
  if (!(err instanceof MindsDBError)) return;
  msg.mindsdbError = {
    kind: err.kind,
    status: err.status,
    code: err.code,
    serverMessage: err.serverMessage,
    method: err.method,
    path: err.path,
  };
  if (err.leftover?.length && isPlainObject(msg.mindsdb)) msg.mindsdb.leftover = [...err.leftover];
}

export function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : 'unknown error');
}

function waitAtMost(p: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
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
