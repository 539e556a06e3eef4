import { KnowledgeBasesApi, type KnowledgeInsert, type Redactor } from '../../client';
import type { KnowledgeBaseNodeConfig } from '../../schema';
import { timeoutFrom } from '../message/input';
import { setOutput } from '../message/output';
import type { NodeAPI } from '../node/red';
import { clientFor } from '../node/server';
import type { ThrottledStatus } from '../status/status';
import type { StatusTexts } from '../status/status-texts';
import type { OutboxItem } from '../outbox';
import { SingleWriter } from './single-writer';

/** Where a kept insert goes: the knowledge base the node resolved when it took the message, and what to insert. */
export interface KbInsert {
  project: string;
  name: string;
  what: KnowledgeInsert;
}

/**
 * The knowledge-base node's inserts through its outbox: each one request. A kept insert in doubt
 * goes again only with an ID column: MindsDB replaces a row by its id.
 */
export class KnowledgeBaseWriter extends SingleWriter<KbInsert> {
  constructor(
    private readonly RED: NodeAPI,
    private readonly config: KnowledgeBaseNodeConfig,
    private readonly status: ThrottledStatus,
    private readonly texts: StatusTexts<'embedding' | 'inserted'>,
    /** The node's API key must not reach a flow even if the server quotes it back in an error. */
    private readonly keyRedactor: Redactor,
  ) {
    super();
  }

  override canCheck(item: OutboxItem<KbInsert>): boolean {
    return this.config.idColumn.trim() !== '' && 'rows' in item.target.what;
  }

  protected async send(item: OutboxItem<KbInsert>): Promise<void> {
    const { project, name, what } = item.target;
    this.status.set(this.texts.busy('embedding'));
    let result: unknown;
    try {
      result = await new KnowledgeBasesApi(clientFor(this.RED, this.config, item.msg)).insert(project, name, what, {
        timeoutMs: timeoutFrom(item.msg),
      });
    } catch (err) {
      throw this.keyRedactor.error(err);
    }
    setOutput(this.RED, item.msg, this.config.outputProperty, result);
    item.msg.mindsdb = {
      resource: 'knowledge_base',
      operation: 'insert',
      project,
      name,
      stored: true,
      ...(item.restored ? { replayed: true } : {}),
    };
    this.status.set(this.texts.ok('inserted'));
  }
}
