import {
  inputError,
  MindsDBError,
  rowsToObjects,
  type MindsDBClient,
  type SqlAnswer,
  type SqlRequest,
} from '../../client';
import type { Outcome } from '../message/input';
import { setOutput } from '../message/output';
import type { Msg, Node, NodeAPI, NodeStatus, Send } from '../node/red';
import { sendSequence } from './sql-sequence';
import { StoppableSet, type Stoppable } from '../message/stoppable';
import type { ThrottledStatus } from '../status/status';
import type { StatusTexts } from '../status/status-texts';
import { TickWindow } from '../message/tick-window';

/** The fields of a node that sends SQL answers out (the sql node; the view node's query). */
export interface SqlOutputConfig {
  rowFormat?: 'objects' | 'arrays';
  split: boolean;
  rowsPerMsg: number;
  flowControl: boolean;
  partsAhead: number;
  outputProperty: string;
}

/** The status texts such a node has. */
export type SqlOutputStatus = 'ok' | 'rows' | 'streaming';

/**
 * How a node starts its statement: it calls `start` with the request, and may look names up
 * around it (the view node calls it again with a name in the stored case when the first misses).
 */
export type Starter = <T>(start: (request: SqlRequest) => Promise<T>) => Promise<T>;

/**
 * Sees every batch of rows right before it leaves the node (a whole answer, or one part of a
 * sequence), with the answer's column names: incremental mode keeps its position there, on disk
 * before the rows are sent. A throw stops the send and fails the message. `answered` is the
 * status once the run sent `rows` rows.
 */
export interface RowGate {
  /** Rows right before they leave: resolves once their position is kept (they are not sent if it rejects). */
  pass(columns: readonly string[], rows: readonly unknown[][]): void | Promise<void>;
  answered(rows: number): NodeStatus;
  /**
   * With flow control: a part sent is kept only when its msg.tick comes back (`acked`, once per
   * part, in order), and the run ends once every part is acknowledged (`settled`, which fails
   * after `timeoutMs` without the ticks, or when the run is stopped).
   */
  acknowledged?: {
    acked(): void;
    settled(timeoutMs: number, run: Stoppable): Promise<void>;
    /** The run ended without its parts acknowledged: later ticks keep nothing. */
    abandon(): void;
  };
}

/**
 * How a node sends an SQL answer out, shared by every node that does: whole (one message, the
 * rows at the Output property, msg.mindsdb the answer's type, columns, context), or split (read
 * as it arrives and sent as a Join-compatible sequence of `rowsPerMsg` rows, ./sql-sequence.ts),
 * with flow control by msg.tick when on (./tick-window.ts).
 */
export class SqlOutput {
  readonly window: TickWindow | undefined;
  /** Sequences under way, and incremental runs waiting for their answer: what msg.reset stops. */
  private readonly runs = new StoppableSet();
  /** Incremental sequences under flow control whose parts are kept as their ticks come back: id → the gate's ack. */
  private readonly acks = new Map<string, () => void>();
  /** Runs read to the end, waiting for the ticks of their last parts (a redeploy ends the wait). */
  private readonly settling = new Set<Stoppable>();
  private readonly asArrays: boolean;
  private readonly rowsPerMsg: number;
  private readonly requesting;
  /** The status after a whole answer: its row count, or "ok" for a statement without rows (-1). */
  private readonly answeredStatus = (rows: number) =>
    rows < 0 ? this.texts.ok('ok') : this.texts.ok('rows', { count: rows });

  constructor(
    private readonly RED: NodeAPI,
    node: Node,
    private readonly status: ThrottledStatus,
    private readonly texts: StatusTexts<SqlOutputStatus | 'requesting'>,
    private readonly config: SqlOutputConfig,
  ) {
    this.requesting = texts.busy('requesting');
    this.asArrays = config.rowFormat === 'arrays';
    this.rowsPerMsg = config.split ? config.rowsPerMsg : 0;
    this.window = this.rowsPerMsg > 0 && config.flowControl ? new TickWindow(config.partsAhead) : undefined;
    // The convention's marker (node-red-contrib-postgresql): this node takes msg.tick back.
    if (this.window) (node as Node & { tickConsumer?: boolean }).tickConsumer = true;
  }

  /**
   * A msg.tick coming back from the flow acknowledges a part and is never a request: true when
   * `msg` is one (taken here); one for a node without flow control is refused with `refusal`.
   */
  tookTick(msg: Msg, refusal: string): boolean {
    if (!msg.tick) return false;
    if (!this.window) throw inputError(refusal);
    const id = this.window.tick(msg.parts);
    if (id !== undefined) this.acks.get(id)?.();
    return true;
  }

  /**
   * Runs the statement `starter` starts and sends its answer out as the node is set to; `gate`
   * sees the rows before they leave (incremental mode).
   */
  run(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    timeoutMs: number | undefined,
    starter: Starter,
    gate?: RowGate,
  ): Promise<void> {
    this.status.set(this.requesting);
    return this.rowsPerMsg > 0
      ? this.streamed(msg, send, client, timeoutMs, starter, gate)
      : this.whole(msg, send, client, timeoutMs, starter, gate);
  }

  /**
   * msg.reset: every sequence under way stops now (no further part is sent, its stream is closed
   * and its connection freed), and so does an incremental run waiting for its whole answer (the
   * answer is dropped when it comes); each one's message ends with `reason`. Returns how many.
   */
  stopAll(reason: Error): number {
    return this.runs.stop(reason);
  }

  /**
   * `run` for a node that sends one request it knows in full (the sql node), reporting through
   * `outcome`. Split off, this is the per-message hot path: no promise from the msg to its answer
   * (client.sql's callback); the answer is shaped and sent in it.
   */
  runTo(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    timeoutMs: number | undefined,
    request: SqlRequest,
    outcome: Outcome,
  ): void {
    this.status.set(this.requesting);
    if (this.rowsPerMsg > 0) {
      this.streamed(msg, send, client, timeoutMs, (start) => start(request)).then(
        () => outcome.ok(),
        (err: unknown) => outcome.fail(err),
      );
      return;
    }
    client.sql(
      request,
      timeoutMs === undefined ? undefined : { timeoutMs },
      (err: MindsDBError | null, answer?: SqlAnswer) => {
        if (err || !answer) {
          outcome.fail(err);
          return;
        }
        try {
          this.putWhole(msg, answer);
          send(msg);
        } catch (e) {
          outcome.fail(e);
          return;
        }
        outcome.ok();
      },
    );
  }

  close(): void {
    this.window?.close();
    for (const run of this.settling)
      run.stop(
        new MindsDBError(
          'the node was stopped (redeploy) while waiting for msg.tick; the parts not acknowledged will be sent again ' +
            'by the next run',
          { kind: 'closed' },
        ),
      );
  }

  /** Split off: one request, one message. With a gate (incremental), msg.reset may drop its answer. */
  private whole(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    timeoutMs: number | undefined,
    starter: Starter,
    gate?: RowGate,
  ): Promise<void> {
    const run = gate ? this.runs.add() : undefined;
    const sql = (request: SqlRequest) =>
      new Promise<SqlAnswer>((resolve, reject) => {
        client.sql(request, { timeoutMs }, (err, answer) => (err ? reject(err) : resolve(answer as SqlAnswer)));
      });
    return starter(sql)
      .then(async (answer) => {
        run?.check();
        if (gate) return this.sendGated(msg, send, answer, gate);
        this.putWhole(msg, answer);
        send(msg);
      })
      .finally(() => run?.done());
  }

  /** A whole answer of an incremental run: sent once the gate kept the position after its rows. */
  private async sendGated(msg: Msg, send: Send, answer: SqlAnswer, gate: RowGate): Promise<void> {
    msg.mindsdb = this.metadata(answer);
    setOutput(this.RED, msg, this.config.outputProperty, answer.type === 'table' ? this.shape(answer) : []);
    const rows = answer.type === 'table' ? answer.data : [];
    await gate.pass(answer.type === 'table' ? answer.column_names : [], rows);
    send(msg);
    this.status.set(gate.answered(rows.length));
  }

  /** A whole answer on its message, without sending it (an outbox sends it once its row is gone). */
  putWhole(msg: Msg, answer: SqlAnswer): void {
    msg.mindsdb = this.metadata(answer);
    setOutput(this.RED, msg, this.config.outputProperty, answer.type === 'table' ? this.shape(answer) : []);
    this.status.setWith(this.answeredStatus, answer.type === 'table' ? answer.data.length : -1);
  }

  /** Split on: the answer is read as it arrives and sent as a message sequence, which msg.reset may stop. */
  private async streamed(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    timeoutMs: number | undefined,
    starter: Starter,
    gate?: RowGate,
  ): Promise<void> {
    const run = this.runs.add();
    // Under flow control, incremental mode keeps each part when its tick comes back.
    const acknowledged = this.window ? gate?.acknowledged : undefined;
    const id = this.RED.util.generateId();
    if (acknowledged) this.acks.set(id, () => acknowledged.acked());
    try {
      await this.streamedRun(msg, send, client, timeoutMs, starter, run, gate, acknowledged ? id : undefined);
      if (acknowledged) {
        // The answer is read and its connection free: the run ends when the flow has acknowledged every part.
        this.settling.add(run);
        await acknowledged.settled(timeoutMs ?? client.requestTimeoutMs, run);
      }
    } catch (err) {
      acknowledged?.abandon();
      throw err;
    } finally {
      if (acknowledged) {
        this.settling.delete(run);
        this.acks.delete(id);
        this.window?.finish(id);
      }
      run.done();
    }
  }

  private async streamedRun(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    timeoutMs: number | undefined,
    starter: Starter,
    run: Stoppable,
    gate?: RowGate,
    ackedId?: string,
  ): Promise<void> {
    const flowControl = this.window !== undefined;
    const stream = await starter((request) => client.sqlStream(request, { timeoutMs, flowControl }));
    // Stopped while the answer was on its way: its connection goes back at once, nothing is sent.
    run.whenStopped(() => stream.close());
    try {
      run.check();
      if (stream.type === 'ok') {
        const f = stream.fields;
        msg.mindsdb = {
          type: 'ok',
          columns: [],
          context: f.context,
          affectedRows: (f.affected_rows as number | null | undefined) ?? null,
          ...(this.asArrays ? { data: [] } : {}),
        };
        setOutput(this.RED, msg, this.config.outputProperty, []);
        await gate?.pass([], []);
        send(msg);
        this.status.set(gate ? gate.answered(0) : this.texts.ok('ok'));
        return;
      }
      const rows = await sendSequence(this.RED, msg, stream, send, {
        rowsPerMsg: this.rowsPerMsg,
        asArrays: this.asArrays,
        outputProperty: this.config.outputProperty,
        window: this.window,
        tickTimeoutMs: timeoutMs ?? client.requestTimeoutMs,
        progress: (n) => this.status.set(this.texts.busy('streaming', { count: n })),
        beforeSend: gate ? (columns, part) => gate.pass(columns, part) : undefined,
        stop: run,
        id: ackedId,
        awaitTicks: ackedId !== undefined,
      });
      this.status.set(gate ? gate.answered(rows) : this.texts.ok('rows', { count: rows }));
    } finally {
      stream.close();
    }
  }

  private metadata(answer: SqlAnswer): Record<string, unknown> {
    const meta: Record<string, unknown> = { type: answer.type, columns: answer.column_names, context: answer.context };
    if (answer.type === 'ok') meta.affectedRows = answer.affected_rows ?? null;
    if (this.asArrays) meta.data = answer.data;
    return meta;
  }

  private shape(answer: SqlAnswer): unknown[] {
    return this.asArrays ? answer.data : rowsToObjects(answer.column_names, answer.data);
  }
}
