import type { MindsDBError } from './errors';

/**
 * What the exchange tells about each attempt's end, for whoever watches the server's health
 * (client/connection/health.ts): it sees every answer the server gives, so it needs no probe of
 * its own while real traffic shows the server healthy. The exchange calls it once per attempt:
 * `answered` when an HTTP answer's status arrived (any status, before its body is read), `failed`
 * when an attempt ended with no answer (a network failure or a timeout). It must not throw and
 * must return at once: it runs inside undici's callbacks.
 */
export interface ExchangeObserver {
  answered(status: number): void;
  failed(err: MindsDBError): void;
}

/** An observer that ignores everything: the exchange's default. */
export const NO_OBSERVER: ExchangeObserver = Object.freeze({ answered: () => undefined, failed: () => undefined });
