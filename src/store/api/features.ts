/**
 * What each feature that keeps state asks of a store, one interface per feature, each implemented
 * by the embedded store (one SQLite file: src/store/embedded/) and by the shared one (PostgreSQL:
 * src/store/postgres/). Every call is asynchronous and is kept when it resolves; each may reject
 * with a StoreError that says why. docs/state-store.md says what lives where.
 *
 * Fencing: a row a copy works on carries the epoch of the claim under which it holds it; every
 * later write on that row names that epoch, and a write that changes nothing means another copy
 * took the row over since (its lease had run out): the slow holder then does nothing more with it.
 * In the embedded store there is one copy, and every write finds its row.
 */

/** A kept row as its holder knows it: the row, and the epoch of the claim it holds it under. */
export interface Held {
  id: number;
  epoch: number;
}

/** A message to keep: its JSON (the msg with its target), and an id made by the client for it. */
export interface NewRow {
  /** Unique per message: an insert whose answer was lost is looked up by it, never guessed. */
  uid: string;
  acceptedAt: number;
  msg: string;
  bytes: number;
}

/** A kept row, as inserted (`taken`: another copy holds it already, so its outcome is not this copy's). */
export interface Kept extends Held {
  taken?: boolean;
}

/** A kept row as claimed to be sent. */
export interface KeptRow extends Held {
  acceptedAt: number;
  /** An earlier request may have stored it. */
  inDoubt: boolean;
  bytes: number;
  msg: string;
  /** Claimed from another copy (it died, or stalled past its lease): its requests may still be running. */
  takenOver: boolean;
}

/** One node's rows in the outbox (docs/outbox.md). */
export interface OutboxRows {
  readonly node: string;
  /** Other copies may hold rows of this node: its backlog is looked at now and then for rows to take over. */
  readonly shared: boolean;
  /** How often a node that sends live looks for rows to take over (a third of the lease period), if shared. */
  readonly takeoverPollMs: number | undefined;
  /** Keeps `rows` in one commit, held by this copy (`sending`: already as in a request); in order. */
  insert(rows: readonly NewRow[], sending: boolean): Promise<Kept[]>;
  /** Marks rows as in a request that may store them; resolves with the ids another copy holds now (not marked). */
  markSending(rows: readonly Held[]): Promise<Set<number>>;
  /** Deletes rows whose messages have their outcomes; resolves with the ids another copy holds now (kept). */
  remove(rows: readonly Held[]): Promise<Set<number>>;
  /** Rows whose request ended without storing them: to be sent again (`inDoubt`: looked up first). */
  release(rows: readonly Held[], inDoubt: boolean): Promise<void>;
  /** At start: rows this store's copy had in a request when Node-RED stopped are in doubt now. */
  recover(): Promise<number>;
  /**
   * The next rows to send, in arrival order, after id `after`: this copy's rows not in a request,
   * and rows no live copy holds (taken over, under a new epoch); `before` (ms): only rows kept
   * since before then.
   */
  claim(after: number, limit: number, before?: number): Promise<KeptRow[]>;
  /** How much this node keeps (across every copy). */
  usage(): Promise<{ count: number; bytes: number }>;
}

/** A node's incremental position as kept (docs/state-store.md). */
export interface StoredPosition {
  watermarkColumn: string;
  keyColumn: string;
  /** The position's values as JSON. */
  watermark: string;
  tieKey: string | null;
  rowsSent: number;
}

/**
 * The right to move a node's position, held by one run of one copy at a time. Every write names
 * the lease's epoch: a write that finds another epoch fails (another copy took the position over
 * after this lease ran out), and so does every later one.
 */
export interface PositionLease {
  /** The position when the lease was taken (another copy may have moved it since this one last ran). */
  readonly position: StoredPosition | undefined;
  write(position: StoredPosition): Promise<void>;
  /** Forgets the position (back to the first row). */
  clear(): Promise<void>;
  /** Lets go of the lease (after the run's last write). */
  release(): Promise<void>;
}

export interface PositionRows {
  readonly node: string;
  /** The kept position, without a lease (what the status says at start). */
  read(): Promise<StoredPosition | undefined>;
  /**
   * Takes the position's lease, waiting up to `waitMs` while another copy holds it; rejects with a
   * StoreError that says another copy is running this node's query when it cannot get it in time.
   */
  acquire(waitMs: number): Promise<PositionLease>;
}

/** An answered turn of a conversation with an agent. */
export interface Turn {
  question: string;
  answer: string;
}

/** One node's conversations: the turns of every copy, in the order they were kept. */
export interface TurnRows {
  readonly node: string;
  /** The turns of a conversation, oldest first; none (and it is forgotten) when idle `idleMs` or longer. */
  history(conversation: string, idleMs: number): Promise<Turn[]>;
  /** Keeps an answered turn (`uid`: unique, so a write repeated after a lost answer keeps it once). */
  append(conversation: string, uid: string, turn: Turn, maxTurns: number): Promise<void>;
  forget(conversation: string): Promise<void>;
  /** Forgets this node's conversations idle `idleMs` or longer. */
  forgetIdle(idleMs: number): Promise<void>;
}
