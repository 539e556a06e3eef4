import { isPlainObject, storedAfter } from '../../client';
import { StoreError, type StoreLease } from '../../store';
import { leaseNodeStore } from '../node/store';
import { clientOfNode } from '../node/server';
import type { Node, NodeAPI } from '../node/red';
import type { HealthRing } from '../status/health-ring';
import type { ThrottledStatus } from '../status/status';
import { reportLateFailure, type FailureStatus } from '../message/input';
import { Outbox } from './outbox';
import type { OutboxItem, OutboxWriter } from './outbox-writer';

/** A node's outbox settings, as its config declares them (src/schema/nodes.ts, `outbox()`). */
export interface OutboxConfig {
  outboxSizeMB: number;
  outboxMaxAgeH: number;
  /** Messages sent at once from the backlog. */
  window: number;
}

/**
 * A node's outbox in the store of this Node-RED's user directory, wired to the node: kept
 * messages' late outcomes go out of the node (output, or Catch with the red ring), its backlog
 * shows on the ring beside the server's health, and it sends its backlog when the server comes
 * back. A store that cannot be opened is said once; the node then works as without an outbox.
 */
export function startOutbox<Target>(
  RED: NodeAPI,
  node: Node,
  status: ThrottledStatus,
  texts: FailureStatus,
  ring: HealthRing,
  writer: OutboxWriter<Target>,
  config: OutboxConfig,
): Outbox<Target> {
  let lease: StoreLease | StoreError;
  try {
    lease = leaseNodeStore(RED);
  } catch (err) {
    lease =
      err instanceof StoreError ? err : new StoreError(err instanceof Error ? err.message : String(err), 'other', '');
  }
  const outbox = new Outbox<Target>(
    lease,
    node.id,
    writer,
    {
      sent: (msg) => node.send(msg),
      failed: (msg, err) => reportLateFailure(node, status, texts, msg, err),
      warn: (text) => node.warn(text),
    },
    {
      maxBytes: config.outboxSizeMB * 1024 * 1024,
      maxAgeMs: config.outboxMaxAgeH * 3_600_000,
      window: config.window,
      // A write in doubt is looked up once its lost request cannot still be running: the server's timeout.
      doubtSettleMs: clientOfNode(node)?.requestTimeoutMs ?? 60_000,
    },
  );
  outbox.onKept = (kept) => ring.setKept(kept);
  ring.setKept(outbox.backlog);
  ring.onChange = (view) => outbox.healthChanged(view);
  outbox.healthChanged(ring.health);
  return outbox;
}

/**
 * The writer of a node whose kept messages each go as one request (the knowledge-base node's
 * inserts, the sql node's writes): `write` sends one and puts its result on the msg; a message in
 * doubt goes again only where `canCheck` says that cannot store it twice.
 */
export function singleWriter<Target>(
  outbox: () => Outbox<Target> | undefined,
  o: { write(item: OutboxItem<Target>): Promise<void>; canCheck?(item: OutboxItem<Target>): boolean },
): OutboxWriter<Target> {
  return {
    async write(item) {
      outbox()?.sending([item]);
      await o.write(item);
    },
    flush() {
      /* nothing collected */
    },
    canCheck: (item) => o.canCheck?.(item) ?? false,
    failed(item, err) {
      item.msg.mindsdb = {
        ...(isPlainObject(item.msg.mindsdb) ? item.msg.mindsdb : {}),
        stored: storedAfter(err, item.inDoubt),
      };
      return err;
    },
  };
}
