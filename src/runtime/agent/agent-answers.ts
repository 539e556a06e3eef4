import {
  completeAgent,
  describeType,
  inputError,
  plainJson,
  redactSecretFields,
  streamAgent,
  toAgentMessages,
  type AgentMessage,
  type Completion,
  type MindsDBClient,
} from '../../client';
import type { AgentNodeConfig } from '../../schema';
import { resetError, type Control } from '../message/control';
import { Conversations } from './conversations';
import { setOutput } from '../message/output';
import { StoppableSet, type Stoppable } from '../message/stoppable';
import type { Msg, Node, NodeAPI, NodeMessageParts, Send } from '../node/red';
import type { HealthRing } from '../status/health-ring';

/** msg.parts as Node-RED's split node writes it (the typings know only id, index and count). */
type SequenceParts = NodeMessageParts & { type: 'array'; parts?: unknown };

/** What the agent node's completions read from its config. */
type AnswerConfig = Pick<
  AgentNodeConfig,
  'streamMode' | 'memory' | 'conversationKey' | 'maxTurns' | 'idleMinutes' | 'historyOut' | 'outputProperty'
>;

/**
 * The agent node's questions: asked once (never repeated: each may be a billed LLM call), the
 * answer as one message or as a sequence of its streamed chunks, and, with memory on, one
 * conversation per msg.topic (or the property the node names) whose earlier turns go with each
 * question, in the {question, answer} form both MindsDB lines read as history (docs/real-mindsdb.md).
 * The turns of one conversation are asked one after another: a question waits for the answer
 * before it, so that answer is part of its history.
 *
 * msg.reset (one rule): it stops the answers under way (with memory on, only that conversation's:
 * a streamed answer at once, its connection freed; one that is not streamed is dropped when it
 * comes), each one's message ending at Catch with a "reset" error, and forgets that conversation.
 */
export class AgentAnswers {
  private readonly runs = new StoppableSet();
  /** The memory, or why the store cannot keep it (every completion then fails with that). */
  private readonly memory: Conversations | Error | undefined;
  /** The last question of each conversation under way: the next one waits for it. */
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(
    private readonly RED: NodeAPI,
    node: Node,
    private readonly config: AnswerConfig,
  ) {
    if (!config.memory) return;
    try {
      this.memory = new Conversations(RED, node, { maxTurns: config.maxTurns, idleMs: config.idleMinutes * 60_000 });
    } catch (err) {
      this.memory = err instanceof Error ? err : new Error(String(err));
      node.error(`the agent's memory cannot be kept: ${this.memory.message}`);
    }
  }

  /** Shows a shared state store's health on the node's ring while it keeps conversations there. */
  watchStore(ring: HealthRing): void {
    if (this.memory instanceof Conversations && this.memory.store.shared) ring.watchStore(this.memory.store);
  }

  /** msg.reset / msg.flush at the agent node (flush has nothing to send here). */
  async control(msg: Msg, control: Control): Promise<void> {
    if (!control.reset) return;
    if (!this.config.memory) {
      this.runs.stop(resetError('msg.reset stopped this answer before it was sent'));
      return;
    }
    const key = this.conversationOf(msg);
    this.runs.stop(resetError('msg.reset stopped this answer before it was sent, and forgot its conversation'), key);
    await this.kept().forget(key);
  }

  /**
   * Asks the agent the question in `msg` and puts the answer on it; with chunks, each chunk goes out first as a part.
   */
  async ask(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    project: string,
    agent: string,
    timeoutMs: number | undefined,
  ): Promise<Completion> {
    // Values by the one rule for what is not plain JSON, named by their place in the msg.
    if (!this.config.memory)
      return this.once(
        msg,
        send,
        client,
        project,
        agent,
        timeoutMs,
        toAgentMessages(plainJson(msg.payload, 'msg.payload')),
      );
    const key = this.conversationOf(msg);
    const question = questionOf(msg.payload);
    const memory = this.kept();
    // After the conversation's question before this one, whatever became of it.
    const before = this.turns.get(key) ?? Promise.resolve();
    const mine = before.then(async () => {
      const result = await this.once(
        msg,
        send,
        client,
        project,
        agent,
        timeoutMs,
        [...(await memory.history(key)), { question, answer: null }],
        key,
        // On disk before the answer leaves the node; an answer a reset stopped is not kept.
        (answer) => memory.append(key, question, answer),
      );
      if (this.config.historyOut)
        (msg.mindsdb as Record<string, unknown>).conversation = { key, turns: await memory.history(key) };
      return result;
    });
    const settled = mine.catch(() => undefined);
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return mine;
  }

  /**
   * The node is closing: the questions under way may still keep their turns (for up to `graceMs`); then the store's
   * lease goes.
   */
  async close(graceMs: number): Promise<void> {
    if (!(this.memory instanceof Conversations)) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.turns.values()),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.memory.close();
  }

  private async once(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    project: string,
    agent: string,
    timeoutMs: number | undefined,
    messages: AgentMessage[],
    key?: string,
    keep?: (answer: string) => Promise<void>,
  ): Promise<Completion> {
    const run = this.runs.add(key);
    const stop = new AbortController();
    run.whenStopped(() => stop.abort(run.reason));
    try {
      const result =
        this.config.streamMode === 'chunks'
          ? await this.streamInChunks(msg, send, client, project, agent, messages, timeoutMs, run, stop.signal)
          : await completeAgent(client, project, agent, messages, { timeoutMs, signal: stop.signal });
      // An answer that came after a reset (one not streamed cannot be stopped on its way) is dropped.
      run.check();
      await keep?.(result.answer);
      return result;
    } finally {
      run.done();
    }
  }

  /**
   * Chunk mode: one message per streamed event, each a part of a Join-compatible sequence
   * (parts.id/index, an incoming msg.parts nested as parts.parts, the event at the Output
   * property); the final answer is the input msg itself as the last part (parts.count,
   * msg.complete). A stream that breaks (or is stopped) after N events: the N messages already sent
   * stay sent, and the input msg ends with one error to Catch, with msg.mindsdb.sequence =
   * {id, chunks: N} naming the unfinished sequence; it never gets a last part.
   */
  private async streamInChunks(
    msg: Msg,
    send: Send,
    client: MindsDBClient,
    project: string,
    agent: string,
    messages: AgentMessage[],
    timeoutMs: number | undefined,
    run: Stoppable,
    signal: AbortSignal,
  ): Promise<Completion> {
    const id = this.RED.util.generateId();
    const outer = msg.parts;
    const partsAt = (index: number, count?: number): SequenceParts => ({
      id,
      index,
      type: 'array',
      ...(count === undefined ? {} : { count }),
      ...(outer === undefined ? {} : { parts: outer }),
    });
    let index = 0;
    try {
      const result = await streamAgent(
        client,
        project,
        agent,
        messages,
        (event) => {
          run.check();
          const part = this.RED.util.cloneMessage(msg) as Msg;
          part.parts = partsAt(index++);
          delete part.complete;
          setOutput(this.RED, part, this.config.outputProperty, redactSecretFields(event));
          send(part);
        },
        { timeoutMs, signal },
      );
      run.check();
      msg.parts = partsAt(index, index + 1);
      msg.complete = true;
      return result;
    } catch (err) {
      if (index > 0) (msg.mindsdb as Record<string, unknown>).sequence = { id, chunks: index };
      throw run.reason ?? err;
    }
  }

  /** The conversation a message belongs to: the value at the property the node names (msg.topic by default). */
  private conversationOf(msg: Msg): string {
    const path = this.config.conversationKey;
    let value: unknown;
    try {
      value = this.RED.util.getMessageProperty(msg, path);
    } catch {
      value = undefined;
    }
    if ((typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)))
      return String(value);
    throw inputError(
      `memory is on: msg.${path} must name the conversation (a non-empty text or a number), not ` +
        `${describeType(value)}; set it (a chat id, a user name), or name another property in the node`,
    );
  }

  private kept(): Conversations {
    if (this.memory instanceof Error) throw this.memory;
    return this.memory as Conversations;
  }
}

/** With memory on, msg.payload is the one question asked now (the node keeps what came before). */
function questionOf(payload: unknown): string {
  if (typeof payload === 'string' && payload.trim() !== '') return payload;
  throw inputError(
    `memory is on: msg.payload must be the question as text (got ${describeType(payload)}); the node sends the ` +
      `conversation's earlier turns itself. To send a whole conversation of your own, turn memory off`,
  );
}
