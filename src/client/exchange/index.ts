/**
 * One exchange with the server over HTTP: the undici pool, the deadline and size limit of every
 * answer, same-origin redirects, the in-flight limit, login headers, and the errors of a failed
 * exchange. Imports only ../shared.
 */
export { HttpTransport, readText, discard } from './transport';
export type { OpenedResponse, TextResponse, TlsOptions, SendOptions } from './transport';
export { Authenticator } from './auth';
export type { AuthOptions, LoginTransport } from './auth';
export { RequestLimiter } from './limiter';
export { isNotSent, networkError, timeoutError, tooLarge } from './network-errors';
export type { ExchangeDescription } from './network-errors';
export { httpError, parseSuccessBody, isMissingRouteBody } from './response';
