import { MindsDBError, type ExchangeObserver } from '../shared';
import { answerLost, isGateway, verdictOf, verdictOfStatus, type Exchange, type Exchanger } from '../exchange';

/**
 * What the client knows of its server's health:
 * - `unknown`: nothing answered yet;
 * - `reachable`: the last answer (to a real request or a probe) was the server working;
 * - `busy`: the server answered but said it cannot take work now (429, 503, or its readiness
 *   route's 503 while a model trains); requests still go, and are retried as the policy says;
 * - `unreachable`: a probe confirmed that nothing answers (since `since`); requests fail at once
 *   (ServerUnreachableError) instead of waiting out their time budget, until a probe or a real
 *   answer shows the server back.
 */
export type HealthState = 'unknown' | 'reachable' | 'busy' | 'unreachable';

export interface HealthView {
  readonly state: HealthState;
  /** unreachable: since when (ms since the epoch), the time of the first failure. */
  readonly since?: number;
  /** unreachable: why, in words (the failure's text). */
  readonly cause?: string;
}

export interface HealthSettings {
  /** The first probe after a confirmed failure comes this long after it; then twice as long each time. */
  firstBackoffMs: number;
  /** The longest wait between two probes while the server is unreachable. */
  maxBackoffMs: number;
  /** While nodes watch: a probe once no answer came for this long (idle flows still see a change). */
  idleMs: number;
  /** A probe's own time budget. */
  probeTimeoutMs: number;
}

export const DEFAULT_HEALTH: HealthSettings = {
  firstBackoffMs: 500,
  maxBackoffMs: 5_000,
  idleMs: 30_000,
  probeTimeoutMs: 5_000,
};

/** One probe: resolves with the HTTP status the server answered, rejects (MindsDBError) when none came. */
export type Probe = (timeoutMs: number) => Promise<number>;

/** A request refused before it was sent, because the server is known to be down. */
export class ServerUnreachableError extends MindsDBError {
  constructor(
    readonly since: number,
    cause: string,
    method: string,
    path: string,
    nextProbeInMs: number,
  ) {
    super(
      `the MindsDB server has been unreachable since ${new Date(since).toISOString()} (${cause}): ${method} ${path} ` +
        `was not sent; the server node checks again within ${Math.max(1, Math.ceil(nextProbeInMs / 1000))} s`,
      { kind: 'network', code: 'EUNREACHABLE', method, path },
    );
  }
}

/**
 * The health watcher of one server (one per client, so one per server node). It learns from
 * every answer and failure of real traffic (as the exchange's observer), by the verdict of each
 * (client/exchange/verdict.ts): an answer that refused the request for now (429, 503) says busy, any
 * other answer of the server's own says reachable; a failure that was not sent or whose answer was
 * lost makes it suspect the server is down. It probes only when
 * that traffic cannot tell: `firstBackoffMs` after a failure without an answer (to confirm it,
 * unless an answer came meanwhile), while the server is unreachable (with back-off: first after `firstBackoffMs`,
 * doubling up to `maxBackoffMs`, each with ±20 % jitter so that many Node-REDs do not probe in step), and, while nodes
 * watch, when nothing answered for `idleMs`. Never more than one probe at a time; none while answers come. No Node-RED
 * in here: a node subscribes with `watch`.
 */
export class ServerHealth implements ExchangeObserver {
  private current: HealthView = { state: 'unknown' };
  private readonly listeners = new Set<(view: HealthView) => void>();
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private backoffMs = 0;
  /** The first failure since the server last answered: its time is the "since" of an outage. */
  private pendingCause: { at: number; cause?: string } | undefined;
  /** The last answer (a start counts as one: the first idle probe comes `idleMs` after it). */
  private lastAnswerAt: number;
  private closed = false;
  /** Probes sent so far (the benchmark counts them). */
  probes = 0;

  constructor(
    private readonly probe: Probe,
    private readonly settings: HealthSettings = DEFAULT_HEALTH,
    private readonly now: () => number = Date.now,
  ) {
    this.lastAnswerAt = now();
  }

  get view(): HealthView {
    return this.current;
  }

  /** Calls `listener` with the current view now and on every change; returns the unsubscribe. */
  watch(listener: (view: HealthView) => void): () => void {
    this.listeners.add(listener);
    listener(this.current);
    this.schedule();
    return () => {
      this.listeners.delete(listener);
      this.clearTimer();
      this.schedule();
    };
  }

  /** The error for a request that must not be sent now, or undefined when it may go. */
  refusal(method: string, path: string): ServerUnreachableError | undefined {
    const c = this.current;
    if (c.state !== 'unreachable') return undefined;
    return new ServerUnreachableError(
      c.since ?? this.now(),
      c.cause ?? 'no answer',
      method,
      path,
      this.timer ? this.timerAt - this.now() : this.settings.firstBackoffMs,
    );
  }

  answered(status: number): void {
    // A gateway's 502/504 is not the server's answer: it leaves the state as it is, and after
    // `idleMs` of nothing else the idle probe asks (through the same gateway).
    if (isGateway(status)) return;
    this.lastAnswerAt = this.now();
    this.set(busyOrReachable(status));
  }

  failed(err: MindsDBError): void {
    // A timeout while other requests are answered says that one request was slow, not the server.
    if (err.kind === 'timeout' && this.now() - this.lastAnswerAt < this.settings.probeTimeoutMs) return;
    if (verdictOf(err) === 'not-sent' || answerLost(err)) this.suspect(err.message);
  }

  close(): void {
    this.closed = true;
    this.clearTimer();
    this.listeners.clear();
  }

  /**
   * A failure without an answer: a probe confirms it `firstBackoffMs` later, unless an answer
   * came meanwhile (the request's own retries often find the server back). Once confirmed, the
   * outage is dated from this first failure.
   */
  private suspect(cause: string): void {
    if (this.closed || this.current.state === 'unreachable') return;
    this.pendingCause ??= { at: this.now(), cause };
    this.schedule();
  }

  private runProbe(): void {
    if (this.probing || this.closed) return;
    this.probing = true;
    this.clearTimer();
    this.probes++;
    let result: Promise<number>;
    try {
      result = this.probe(this.settings.probeTimeoutMs);
    } catch (err) {
      result = Promise.reject(err);
    }
    result
      .then(
        (status) => {
          this.probing = false;
          if (isGateway(status)) {
            this.down(`a gateway answered HTTP ${status}`);
            return;
          }
          this.lastAnswerAt = this.now();
          this.set(busyOrReachable(status));
        },
        (err: unknown) => {
          this.probing = false;
          this.down(err instanceof Error ? err.message : String(err));
        },
      )
      .finally(() => this.schedule());
  }

  private down(cause: string): void {
    if (this.current.state === 'unreachable') {
      this.backoffMs = Math.min(this.settings.maxBackoffMs, this.backoffMs * 2);
      return;
    }
    const first = this.pendingCause;
    this.pendingCause = undefined;
    this.backoffMs = this.settings.firstBackoffMs;
    this.set({ state: 'unreachable', since: first?.at ?? this.now(), cause: withoutRoute(first?.cause ?? cause) });
  }

  private set(view: HealthView): void {
    if (view.state !== 'unreachable') {
      this.pendingCause = undefined;
      this.backoffMs = 0;
    }
    const c = this.current;
    if (c.state === view.state && c.since === view.since) return;
    this.current = view;
    for (const l of [...this.listeners]) {
      try {
        l(view);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  /**
   * When the next probe is due, if any: on back-off while unreachable; `firstBackoffMs` after a
   * failure to confirm; `idleMs` after the last answer while nodes watch. Nothing otherwise.
   */
  private dueAt(): number | undefined {
    if (this.current.state === 'unreachable') return this.now() + this.backoffMs * (0.8 + Math.random() * 0.4);
    if (this.pendingCause) return this.pendingCause.at + this.settings.firstBackoffMs;
    if (this.listeners.size > 0) return this.lastAnswerAt + this.settings.idleMs;
    return undefined;
  }

  private schedule(): void {
    if (this.closed || this.probing) return;
    const at = this.dueAt();
    if (at === undefined) {
      this.clearTimer();
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const due = this.dueAt();
        // An answer may have come meanwhile, which makes the probe needless (or later).
        if (due !== undefined && (this.current.state === 'unreachable' || due <= this.now() + 1)) this.runProbe();
        else this.schedule();
      },
      Math.max(0, at - this.now()),
    );
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The server's own answer: busy when it refused the request for now (429, 503), else reachable. */
function busyOrReachable(status: number): HealthView {
  return status >= 400 && verdictOfStatus(status) === 'refused' ? { state: 'busy' } : { state: 'reachable' };
}

/**
 * "cannot reach the MindsDB server for GET /api/x: connection refused" → "connection refused": the cause, not the
 * request that met it.
 */
function withoutRoute(text: string): string {
  const m = /^cannot reach the MindsDB server for \S+ \S+: (.*)$/s.exec(text);
  return m ? m[1] : text;
}

/**
 * The probe of a client's exchanger: GET …/util/readiness (`path`) without credentials, under the
 * exchange policy like any request. Measured (docs/real-mindsdb.md): 200 when ready, 503 while a
 * model trains, 401 with authentication on; a server without the route answers 404. Any answer
 * means the server is there: resolves with its status; rejects only when none came.
 */
export function readinessProbe(exchanger: Exchanger, path: string): Probe {
  return (timeoutMs) => {
    const exchange: Exchange = {
      method: 'GET',
      path,
      headers: {},
      body: undefined,
      timeoutMs,
      deadlineAt: Date.now() + timeoutMs,
      repeat: 'idempotent',
      anonymous: true,
    };
    return new Promise<number>((resolve, reject) => {
      exchanger.send(exchange, (err) => {
        if (!err) resolve(200);
        else if (err.status !== undefined) resolve(err.status);
        else if (err.kind === 'redirect') resolve(307);
        else reject(err);
      });
    });
  };
}
