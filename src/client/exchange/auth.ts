import { MindsDBError } from '../shared';
import type { TextResponse } from './http-exchange';

/**
 * A MindsDB server's `auth.http_auth_type` (25.11+): what its login hands out and what it accepts
 * after it: `session` a cookie, `token` a bearer token (`{"token": "pat_…"}`, or the static
 * MINDSDB_AUTH_TOKEN), `session_or_token` both (the default). Only a login shows it
 * (/status does not say): mindsdb/api/http/namespaces/default.py, LoginRoute.
 */
export type HttpAuthType = 'session' | 'token' | 'session_or_token';

/**
 * Why the server may have refused the credentials of each mode with 401, in the terms of its
 * http_auth_type: a cookie is worthless to a `token` server and a bearer token to a `session` one,
 * while a login works with each (it takes whatever the server hands out).
 */
const REFUSED: Readonly<Record<AuthOptions['mode'], string>> = {
  none: 'the server has authentication on: choose an auth mode in the server node',
  session:
    "the session cookie was refused: it expired, the server restarted without FLASK_SECRET_KEY, or the server's " +
    'http_auth_type is "token" (no session cookies); "username and password" works with every http_auth_type',
  token:
    'the bearer token was refused: a generated pat_… token dies when the server restarts (MINDSDB_AUTH_TOKEN does ' +
    'not), or the server\'s http_auth_type is "session" (no bearer tokens); "username and password" works with ' +
    'every http_auth_type',
  login: 'the server refused the credentials its own login had just handed out',
};

export type AuthOptions =
  | { mode: 'none' }
  | { mode: 'session'; session: string }
  | { mode: 'login'; username: string; password: string }
  | { mode: 'token'; token: string };

/** What the authenticator needs from the client: a raw POST of the login body, and the status probe. */
export interface LoginTransport {
  postLogin(body: string): Promise<TextResponse>;
  authEnabled(): Promise<boolean>;
}

/**
 * Produces the headers for each request and renews them when the server says 401.
 * In login mode it logs in lazily (once, shared by concurrent requests), uses whatever the server
 * returns (a `session` cookie, a `{"token"}` for Bearer, or both) and logs in again at most once per
 * request after a 401, because tokens die with a server restart.
 */
export class Authenticator {
  private headers: Readonly<Record<string, string>>;
  private loggedIn = false;
  private pendingLogin: Promise<void> | undefined;
  /** The server's http_auth_type as its last login showed it (undefined before a login, or with auth off). */
  private issued: HttpAuthType | undefined;
  /** Secrets learnt at run time (tokens, cookies), so the client's redactor can hide them too. */
  onSecret: (secret: string) => void = () => undefined;

  /**
   * `base`: the headers of every request before credentials (the JSON content type, which MindsDB
   * wants even on GETs, and the server's tenant headers).
   */
  constructor(
    private readonly opts: AuthOptions,
    private readonly base: Readonly<Record<string, string>>,
    private readonly transport: LoginTransport,
  ) {
    switch (opts.mode) {
      case 'session':
        this.headers = Object.freeze({ ...base, cookie: `session=${cookieValue(opts.session)}` });
        break;
      case 'token':
        this.headers = Object.freeze({
          ...base,
          authorization: `Bearer ${opts.token.replace(/^Bearer\s+/i, '').trim()}`,
        });
        break;
      default:
        this.headers = base;
    }
  }

  get mode(): AuthOptions['mode'] {
    return this.opts.mode;
  }

  /** The server's http_auth_type, as the last login showed it (login mode only). */
  get httpAuthType(): HttpAuthType | undefined {
    return this.issued;
  }

  /** Why a 401 to a request sent with these credentials may have come, for the error text. */
  refusedHint(): string {
    return REFUSED[this.opts.mode];
  }

  /** Headers for the next request; a promise only while a login is needed or under way. */
  /** The headers when no login is needed first (no promise is made, so none can be left unhandled). */
  ready(): Readonly<Record<string, string>> | undefined {
    return this.opts.mode !== 'login' || this.loggedIn ? this.headers : undefined;
  }

  current(): Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>> {
    if (this.opts.mode !== 'login' || this.loggedIn) return this.headers;
    return this.login().then(() => this.headers);
  }

  /**
   * After a 401 for a request sent with `rejected` headers: true when the request may be retried
   * once. Many requests in flight get their 401 at slightly different times after a server
   * restart; only the first logs in again, the others find newer headers (or the login under way)
   * and reuse them, so one login serves them all.
   */
  async renewAfter401(rejected: Readonly<Record<string, string>>): Promise<boolean> {
    if (this.opts.mode !== 'login') return false;
    if (this.pendingLogin) {
      await this.pendingLogin;
      return true;
    }
    if (this.loggedIn && this.headers !== rejected) return true;
    this.loggedIn = false;
    await this.login();
    return true;
  }

  private login(): Promise<void> {
    if (!this.pendingLogin) {
      this.pendingLogin = this.doLogin().finally(() => {
        this.pendingLogin = undefined;
      });
    }
    return this.pendingLogin;
  }

  private async doLogin(): Promise<void> {
    if (this.opts.mode !== 'login') return;
    // A server with auth off rejects every login (it checks against an empty default password), so ask first.
    if (!(await this.transport.authEnabled())) {
      this.headers = this.base;
      this.loggedIn = true;
      return;
    }
    const res = await this.transport.postLogin(
      JSON.stringify({ username: this.opts.username, password: this.opts.password }),
    );
    if (res.status < 200 || res.status >= 300) {
      // Only 401/403 say the credentials were refused; a 429, a 5xx or a proxy's page says nothing
      // about the password, so it is reported as what it is (kind 'http'), not as a wrong password.
      const refused = res.status === 401 || res.status === 403;
      throw new MindsDBError(
        `login to MindsDB as "${this.opts.username}" failed (HTTP ${res.status}): ` +
          `${loginFailureText(res.text, refused)}`,
        { kind: refused ? 'auth' : 'http', status: res.status, method: 'POST', path: 'login' },
      );
    }
    const headers: Record<string, string> = { ...this.base };
    const cookie = sessionCookie(res.headers['set-cookie']);
    if (cookie) {
      headers.cookie = `session=${cookie}`;
      this.onSecret(cookie);
    }
    const token = tokenFrom(res.text);
    if (token) {
      headers.authorization = `Bearer ${token}`;
      this.onSecret(token);
    }
    if (!cookie && !token) {
      throw new MindsDBError(
        'login to MindsDB succeeded but the server returned neither a session cookie nor a token',
        { kind: 'auth', status: res.status, method: 'POST', path: 'login' },
      );
    }
    this.issued = cookie && token ? 'session_or_token' : cookie ? 'session' : 'token';
    this.headers = Object.freeze(headers);
    this.loggedIn = true;
  }
}

/** Accepts "abc", "session=abc" or a whole "session=abc; Path=/" string pasted by a user. */
function cookieValue(raw: string): string {
  const v = raw.trim();
  const m = /(?:^|;\s*)session=([^;]*)/.exec(v);
  return (m ? m[1] : v).trim();
}

function sessionCookie(setCookie: string | string[] | undefined): string | undefined {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  for (const c of list) {
    const m = /^\s*session=([^;]*)/.exec(c);
    if (m?.[1]) return m[1];
  }
  return undefined;
}

function tokenFrom(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    const token = (body as { token?: unknown } | null)?.token;
    return typeof token === 'string' && token ? token : undefined;
  } catch {
    return undefined;
  }
}

function loginFailureText(text: string, refused: boolean): string {
  try {
    const b = JSON.parse(text) as { title?: unknown; detail?: unknown };
    const parts = [b.title, b.detail].filter((x): x is string => typeof x === 'string' && x.length > 0);
    if (parts.length) return parts.join(': ');
  } catch {
    /* not JSON */
  }
  return refused
    ? 'the server rejected the username or password'
    : 'the server did not answer the login (the username and password were not checked)';
}
