/**
 * One exchange with the server over HTTP, and the policy every exchange follows: the undici
 * dispatcher (a pool, or a proxy agent), the message's one deadline and the size limit of every
 * answer, same-origin redirects, the one retry loop and its rule, the connection slots, the
 * login. Imports only ../shared.
 */
export { Exchanger } from './exchanger';
export type { ExchangeSettings, OpenedStream, StreamMode } from './exchanger';
export type { Exchange, CallDone } from './call';
export type { StreamHold } from './held-stream';
export { deadlineAfter, msLeft } from './deadline';
export type { DeadlineAt } from './deadline';
export { RetryPolicy, repeatOf, retryAfterMs } from './policy';
export type { Repeat, RetrySettings, Decision } from './policy';
export { answerLost, isGateway, storedAfter, verdictOf, verdictOfStatus } from './verdict';
export type { Stored, Verdict } from './verdict';
export { HttpTransport } from './transport';
export type { TlsOptions, ProxyOptions, TransportOptions } from './transport';
export type { TextResponse, StreamedResponse, ExchangeRequest, ExchangeSink, ReadMode } from './http-exchange';
export type { ResponseBody } from './response-body';
export { Authenticator } from './auth';
export type { AuthOptions, HttpAuthType, LoginTransport } from './auth';
export { RequestLimiter } from './limiter';
export type { ReleaseSlot, WaitDescription } from './limiter';
export { isNotSent, networkError, timeoutError, tooLarge } from './network-errors';
export type { ExchangeDescription } from './network-errors';
export { httpError, parseSuccessBody, isMissingRouteBody } from './response';
export { MAX_REDIRECTS } from './redirects';
