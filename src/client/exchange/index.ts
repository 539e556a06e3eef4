/**
 * One exchange with the server over HTTP, and the policy every exchange follows: the undici pool,
 * the message's one deadline and the size limit of every answer, same-origin redirects, the retry
 * rule, the connection slots, the login. Imports only ../shared.
 */
export { Exchanger } from './exchanger';
export type { Exchange, ExchangeSettings, OpenedStream, StreamHold, StreamMode } from './exchanger';
export { deadlineAfter, msLeft } from './deadline';
export type { DeadlineAt } from './deadline';
export { RetryPolicy, repeatOf, retryAfterMs, verdictOf, mayHaveLanded } from './policy';
export type { Repeat, Verdict, RetrySettings, Decision } from './policy';
export { HttpTransport, readText, discard } from './transport';
export type { OpenedResponse, StreamedResponse, TextResponse, TlsOptions, SendOptions } from './transport';
export { Authenticator } from './auth';
export type { AuthOptions, HttpAuthType, LoginTransport } from './auth';
export { RequestLimiter } from './limiter';
export type { ReleaseSlot, WaitDescription } from './limiter';
export { isNotSent, networkError, timeoutError, tooLarge } from './network-errors';
export type { ExchangeDescription } from './network-errors';
export { httpError, parseSuccessBody, isMissingRouteBody } from './response';
export { MAX_REDIRECTS } from './redirects';
