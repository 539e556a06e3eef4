import { randomUUID } from 'node:crypto';
import type { AgentMessage } from '../../client';
import type { StoreLease, TurnRows } from '../../store';
import { leaseNodeStore } from '../node/store';
import type { Node, NodeAPI } from '../node/red';

/**
 * The agent node's memory: the turns (question and answer) of each conversation, per node, kept
 * in the node's state store (docs/state-store.md) so that a restart or a kill -9 forgets nothing
 * that was answered; with a shared store, a question to either copy of the flows sees the turns of
 * both. A conversation keeps its last `maxTurns` turns and is forgotten once it has been idle for
 * `idleMs`. What is kept never goes into a log line or an error text.
 */

export interface MemoryLimits {
  /** Turns kept per conversation (the oldest go first). */
  maxTurns: number;
  /** A conversation without a turn for this long is forgotten. */
  idleMs: number;
}

export class Conversations {
  private readonly lease: StoreLease;
  private opening: Promise<TurnRows> | undefined;

  /** Throws a StoreError when the store cannot be used (the caller decides what the node does then). */
  constructor(
    RED: NodeAPI,
    private readonly node: Node,
    private readonly limits: MemoryLimits,
  ) {
    this.lease = leaseNodeStore(RED, node);
    void this.rows()
      .then((rows) => rows.forgetIdle(limits.idleMs))
      .catch(() => undefined);
  }

  /** The store, for the ring to show its health (a shared one). */
  get store(): StoreLease['store'] {
    return this.lease.store;
  }

  /** The turns of a conversation, oldest first, as the agent reads them; none for one idle too long. */
  async history(conversation: string): Promise<AgentMessage[]> {
    return (await this.rows()).history(conversation, this.limits.idleMs);
  }

  /** Keeps an answered turn (in the store when this resolves), dropping the oldest beyond the limit. */
  async append(conversation: string, question: string, answer: string): Promise<void> {
    const rows = await this.rows();
    await rows.append(conversation, randomUUID(), { question, answer }, this.limits.maxTurns);
    await rows.forgetIdle(this.limits.idleMs);
  }

  /** Forgets one conversation (msg.reset). */
  async forget(conversation: string): Promise<void> {
    await (await this.rows()).forget(conversation);
  }

  /** The node is closing: its lease on the store goes (after its last write). */
  close(): void {
    this.lease.release();
  }

  /** The node's turns once the store opened them (tried again at the next call when it could not). */
  private rows(): Promise<TurnRows> {
    this.opening ??= this.lease.store.turns(this.node.id).catch((err: unknown) => {
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }
}
