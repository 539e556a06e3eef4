import type { Turn, TurnRows } from '../api';
import type { StateStore } from './state-store';

/** The conversations' table in the embedded store: one row per answered turn. */
export const TURN_FEATURE = 'conversations';
export const TURN_SCHEMA: readonly string[] = [
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

interface TurnRow {
  question: string;
  answer: string;
  at: number;
}

/** One node's conversations in the embedded store (one copy: a turn's write never races another's). */
export class EmbeddedTurnRows implements TurnRows {
  constructor(
    private readonly store: StateStore,
    readonly node: string,
    private readonly now: () => number = Date.now,
  ) {
    store.migrate(TURN_FEATURE, TURN_SCHEMA);
  }

  async history(conversation: string, idleMs: number): Promise<Turn[]> {
    const rows = this.store.attempt(
      () =>
        this.store
          .statement('SELECT question, answer, at FROM agent_turn WHERE node = ? AND conversation = ? ORDER BY turn')
          .all(this.node, conversation) as unknown as TurnRow[],
      'read a conversation',
    );
    const last = rows.at(-1);
    if (last && this.now() - last.at >= idleMs) {
      await this.forget(conversation);
      return [];
    }
    return rows.map((r) => ({ question: r.question, answer: r.answer }));
  }

  async append(conversation: string, _uid: string, turn: Turn, maxTurns: number): Promise<void> {
    const id = this.node;
    this.store.transaction(() => {
      const top = this.store
        .statement('SELECT MAX(turn) AS turn FROM agent_turn WHERE node = ? AND conversation = ?')
        .get(id, conversation) as { turn: number | null };
      const next = (top.turn ?? 0) + 1;
      this.store
        .statement('INSERT INTO agent_turn (node, conversation, turn, question, answer, at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, conversation, next, turn.question, turn.answer, this.now());
      this.store
        .statement('DELETE FROM agent_turn WHERE node = ? AND conversation = ? AND turn <= ?')
        .run(id, conversation, next - maxTurns);
    }, 'keep a conversation turn');
  }

  async forget(conversation: string): Promise<void> {
    this.store.attempt(
      () =>
        this.store.statement('DELETE FROM agent_turn WHERE node = ? AND conversation = ?').run(this.node, conversation),
      'forget a conversation',
    );
  }

  async forgetIdle(idleMs: number): Promise<void> {
    this.store.attempt(
      () =>
        this.store
          .statement(`DELETE FROM agent_turn WHERE node = ? AND conversation IN (
            SELECT conversation FROM agent_turn WHERE node = ? GROUP BY conversation HAVING MAX(at) <= ?)`)
          .run(this.node, this.node, this.now() - idleMs),
      'forget idle conversations',
    );
  }
}
