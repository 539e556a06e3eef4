import { sqlOf, type SqlRequest } from '../../client';
import type { SqlNodeConfig } from '../../schema';
import { timeoutFrom } from '../message/input';
import type { NodeAPI } from '../node/red';
import { clientFor } from '../node/server';
import type { SqlOutput } from '../sql-answers';
import type { OutboxItem } from '../outbox';
import { SingleWriter } from './single-writer';

/**
 * The sql node's statements marked as writes, through its outbox: each one request, answered whole
 * (SqlOutput puts the answer on the msg). A statement is any SQL, so one in doubt is never sent again.
 */
export class SqlWriter extends SingleWriter<SqlRequest> {
  constructor(
    private readonly RED: NodeAPI,
    private readonly config: SqlNodeConfig,
    private readonly output: SqlOutput,
  ) {
    super();
  }

  protected async send(item: OutboxItem<SqlRequest>): Promise<void> {
    const client = clientFor(this.RED, this.config, item.msg);
    this.output.putWhole(item.msg, await sqlOf(client, item.target, { timeoutMs: timeoutFrom(item.msg) }));
  }
}
