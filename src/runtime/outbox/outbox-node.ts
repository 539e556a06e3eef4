import { isPlainObject, MindsDBError } from '../../client';
import { asStoreError, type StoreError, type StoreLease } from '../../store';
import { leaseNodeStore } from '../node/store';
import { clientOfNode } from '../node/server';
import type { Node, NodeAPI } from '../node/red';
import type { HealthRing } from '../status/health-ring';
import type { ThrottledStatus } from '../status/status';
import { reportLateFailure, type FailureStatus } from '../message/input';
import { Outbox } from './outbox';
import { keepOf, TakenOver } from './outbox-policy';
import type { OutboxItem, OutboxWriter } from './outbox-writer';

/** A node's outbox settings, as its config declares them (src/schema/nodes.ts, `outbox()`). */
export interface OutboxConfig {
  outboxSizeMB: number;
  outboxMaxAgeH: number;
  /** Messages sent at once from the backlog. */
  window: number;
}

/**
 * A node's outbox in its state store (the server node's shared store, else this Node-RED's file),
 * wired to the node: kept messages' late outcomes go out of the node (output, or Catch with the red
 * ring), its backlog shows on the ring beside the server's health (and a shared store's, while it
 * is away), and it sends its backlog when the server (or the store) comes back. A store that
 * cannot be used is said on the ring; every message then ends at Catch with why, unsent.
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
    lease = leaseNodeStore(RED, node);
  } catch (err) {
    lease = asStoreError(err, 'the state store');
    node.error(`the outbox cannot keep messages: ${lease.message}`);
    status.now(texts.error(lease));
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
  ring.setKept(outbox.backlogCount);
  ring.onChange = (view) => outbox.healthChanged(view);
  outbox.healthChanged(ring.health);
  if (!(lease instanceof Error) && lease.store.shared) {
    ring.onStoreBack = () => outbox.storeBack();
    ring.watchStore(lease.store);
  }
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
      const takenOver = await outbox()?.sending([item]);
      if (takenOver?.has(item.id)) throw new TakenOver();
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

/** Whether a failed write may be stored after all: "unknown" when its answer was lost (now or earlier), else false. */
function storedAfter(err: Error, inDoubt: boolean): false | 'unknown' {
  const code = err instanceof MindsDBError ? err.code : undefined;
  if (code === 'EINDOUBT') return 'unknown';
  if (code === 'EOUTBOXFULL' || code === 'EOUTBOXEXPIRED') return inDoubt ? 'unknown' : false;
  return keepOf(err) === 'in-doubt' ? 'unknown' : false;
}
