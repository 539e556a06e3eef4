import type { AgentMessage } from '../../client';
import type { StateStore, StoreLease } from '../../store';
import { leaseNodeStore } from '../node/store';
import type { Node, NodeAPI } from '../node/red';

/**
 * The agent node's memory: the turns (question and answer) of each conversation, per node, kept
 * in the package's store (docs/state-store.md) so that a restart or a kill -9 forgets nothing that
 * was answered. A conversation keeps its last `maxTurns` turns and is forgotten once it has been
 * idle for `idleMs`. What is kept never goes into a log line or an error text.
 */

/** The store's table for this feature (StateStore.migrate): one row per turn. */
const SCHEMA = [
  `CREATE TABLE agent_turn (
    node TEXT NOT NULL,
    conversation TEXT NOT NULL,
    turn INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (node, conversation, turn)
  ) WITHOUT ROWID`,
];

export interface MemoryLimits {
  /** Turns kept per conversation (the oldest go first). */
  maxTurns: number;
  /** A conversation without a turn for this long is forgotten. */
  idleMs: number;
}

interface TurnRow {
  question: string;
  answer: string;
  at: number;
}

export class Conversations {
  private readonly lease: StoreLease;

  /** Throws a StoreError when the store cannot be opened (the caller decides what the node does then). */
  constructor(
    RED: NodeAPI,
    private readonly node: Node,
    private readonly limits: MemoryLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.lease = leaseNodeStore(RED);
    try {
      this.store.migrate('conversations', SCHEMA);
      this.forgetIdle();
    } catch (err) {
      this.lease.release();
      throw err;
    }
  }

  private get store(): StateStore {
    return this.lease.store;
  }

  /** The turns of a conversation, oldest first, as the agent reads them; none for one idle too long. */
  history(conversation: string): AgentMessage[] {
    const rows = this.store.attempt(
      () =>
        this.store
          .statement('SELECT question, answer, at FROM agent_turn WHERE node = ? AND conversation = ? ORDER BY turn')
          .all(this.node.id, conversation) as unknown as TurnRow[],
      'read a conversation',
    );
    const last = rows.at(-1);
    if (last && this.now() - last.at >= this.limits.idleMs) {
      this.forget(conversation);
      return [];
    }
    return rows.map((r) => ({ question: r.question, answer: r.answer }));
  }

  /** Keeps an answered turn (on disk when this returns), dropping the oldest beyond the limit. */
  append(conversation: string, question: string, answer: string): void {
    const id = this.node.id;
    this.store.transaction(() => {
      const top = this.store
        .statement('SELECT MAX(turn) AS turn FROM agent_turn WHERE node = ? AND conversation = ?')
        .get(id, conversation) as { turn: number | null };
      const turn = (top.turn ?? 0) + 1;
      this.store
        .statement('INSERT INTO agent_turn (node, conversation, turn, question, answer, at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, conversation, turn, question, answer, this.now());
      this.store
        .statement('DELETE FROM agent_turn WHERE node = ? AND conversation = ? AND turn <= ?')
        .run(id, conversation, turn - this.limits.maxTurns);
    }, 'keep a conversation turn');
    this.forgetIdle();
  }

  /** Forgets one conversation (msg.reset). */
  forget(conversation: string): void {
    this.store.attempt(
      () =>
        this.store
          .statement('DELETE FROM agent_turn WHERE node = ? AND conversation = ?')
          .run(this.node.id, conversation),
      'forget a conversation',
    );
  }

  /** The node is closing: its lease on the store goes (after its last write). */
  close(): void {
    this.lease.release();
  }

  /**
   * Forgets this node's conversations that have been idle too long, so the store does not grow with chats long over.
   */
  private forgetIdle(): void {
    this.store.attempt(
      () =>
        this.store
          .statement(`DELETE FROM agent_turn WHERE node = ? AND conversation IN (
      SELECT conversation FROM agent_turn WHERE node = ? GROUP BY conversation HAVING MAX(at) <= ?)`)
          .run(this.node.id, this.node.id, this.now() - this.limits.idleMs),
      'forget idle conversations',
    );
  }
}
