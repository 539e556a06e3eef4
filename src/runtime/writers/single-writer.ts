import { isPlainObject, storedAfter } from '../../client';
import { TakenOver, type Outbox, type OutboxItem, type OutboxWriter } from '../outbox';

/**
 * A writer whose kept messages each go as one request (the knowledge-base node's inserts, the sql
 * node's writes): `send` sends one and puts its result on the msg; a message in doubt goes again
 * only where `canCheck` says that cannot store it twice. The node gives it its outbox once started.
 */
export abstract class SingleWriter<Target> implements OutboxWriter<Target> {
  private outbox: Outbox<Target> | undefined;

  /** The node's outbox, once it started (after the node's input, whose ring it shows on). */
  useOutbox(outbox: Outbox<Target>): void {
    this.outbox = outbox;
  }

  /** The node closes: its outbox with it. */
  close(): Promise<void> | undefined {
    return this.outbox?.close();
  }

  /** One message through the outbox (`kept`: on disk, its outcome comes when MindsDB takes it). */
  accept(msg: OutboxItem<Target>['msg'], target: Target): Promise<'sent' | 'kept'> | undefined {
    return this.outbox?.accept(msg, target);
  }

  async write(item: OutboxItem<Target>): Promise<void> {
    // Another copy of the flows that took the message over owns its outcome: nothing is sent here.
    const takenOver = await this.outbox?.sending([item]);
    if (takenOver?.has(item.id)) throw new TakenOver();
    await this.send(item);
  }

  flush(): void {
    /* nothing collected */
  }

  canCheck(_item: OutboxItem<Target>): boolean {
    return false;
  }

  failed(item: OutboxItem<Target>, err: Error): Error {
    item.msg.mindsdb = {
      ...(isPlainObject(item.msg.mindsdb) ? item.msg.mindsdb : {}),
      stored: storedAfter(err, item.inDoubt),
    };
    return err;
  }

  /** Sends one message's request and puts its result on the msg; rejects with why not. */
  protected abstract send(item: OutboxItem<Target>): Promise<void>;
}
