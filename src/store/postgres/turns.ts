import type { Turn, TurnRows } from '../api';
import { persist, retryWithin } from './persist';
import type { PgContext } from './context';

/**
 * One node's conversations in the shared store: the turns of every copy in one table, in the
 * order they were kept (a question to either copy sees both). A turn carries a unique id, so a
 * write repeated after a lost answer keeps it once; idle time is measured on the store's clock.
 */
export class PgTurnRows implements TurnRows {
  private readonly s: string;

  constructor(
    private readonly store: PgContext,
    readonly node: string,
  ) {
    this.s = store.database.connection.schema;
  }

  async history(conversation: string, idleMs: number): Promise<Turn[]> {
    const rows = await retryWithin(this.store, this.store.leaseMs * 2, () =>
      this.store.database.query<{ question: string; answer: string; idle_ms: number }>(
        'read a conversation',
        `SELECT question, answer, extract(epoch FROM now() - max(at) OVER ()) * 1000 AS idle_ms
       FROM ${this.s}.agent_turn WHERE node = $1 AND conversation = $2 ORDER BY id`,
        [this.node, conversation],
      ),
    );
    if (rows.length > 0 && Number(rows[0].idle_ms) >= idleMs) {
      await this.forget(conversation);
      return [];
    }
    return rows.map((r) => ({ question: r.question, answer: r.answer }));
  }

  async append(conversation: string, uid: string, turn: Turn, maxTurns: number): Promise<void> {
    const s = this.s;
    await persist(this.store, () =>
      this.store.database.transaction('keep a conversation turn', async (c) => {
        await c.query(
          `INSERT INTO ${s}.agent_turn (uid, node, conversation, question, answer) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (uid) DO NOTHING`,
          [uid, this.node, conversation, turn.question, turn.answer],
        );
        await c.query(
          `DELETE FROM ${s}.agent_turn WHERE node = $1 AND conversation = $2 AND id NOT IN
             (SELECT id FROM ${s}.agent_turn WHERE node = $1 AND conversation = $2 ORDER BY id DESC LIMIT $3)`,
          [this.node, conversation, maxTurns],
        );
      }),
    );
  }

  async forget(conversation: string): Promise<void> {
    await this.store.database.query(
      'forget a conversation',
      `DELETE FROM ${this.s}.agent_turn WHERE node = $1 AND conversation = $2`,
      [this.node, conversation],
    );
  }

  async forgetIdle(idleMs: number): Promise<void> {
    const s = this.s;
    await this.store.database.query(
      'forget idle conversations',
      `DELETE FROM ${s}.agent_turn WHERE node = $1 AND conversation IN (
         SELECT conversation FROM ${s}.agent_turn WHERE node = $1 GROUP BY conversation
         HAVING max(at) <= now() - $2::float8 * interval '1 millisecond')`,
      [this.node, idleMs],
    );
  }
}
