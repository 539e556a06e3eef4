import { MindsDBError } from '../shared';
import type { TextResponse } from './transport';

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

const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  // MindsDB answers 415 without it, even on GETs.
  'content-type': 'application/json',
  accept: 'application/json',
});

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
  /** Secrets learnt at run time (tokens, cookies), so the client's redactor can hide them too. */
  onSecret: (secret: string) => void = () => undefined;

  constructor(private readonly opts: AuthOptions, private readonly transport: LoginTransport) {
    switch (opts.mode) {
      case 'session':
        this.headers = Object.freeze({ ...BASE_HEADERS, cookie: `session=${cookieValue(opts.session)}` });
        break;
      case 'token':
        this.headers = Object.freeze({ ...BASE_HEADERS, authorization: `Bearer ${opts.token.replace(/^Bearer\s+/i, '').trim()}` });
        break;
      default:
        this.headers = BASE_HEADERS;
    }
  }

  get mode(): AuthOptions['mode'] { return this.opts.mode; }

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
    if (this.pendingLogin) { await this.pendingLogin; return true; }
    if (this.loggedIn && this.headers !== rejected) return true;
    this.loggedIn = false;
    await this.login();
    return true;
  }

  private login(): Promise<void> {
    if (!this.pendingLogin) {
      this.pendingLogin = this.doLogin().finally(() => { this.pendingLogin = undefined; });
    }
    return this.pendingLogin;
  }

  private async doLogin(): Promise<void> {
    if (this.opts.mode !== 'login') return;
    // A server with auth off rejects every login (it checks against an empty default password), so ask first.
    if (!(await this.transport.authEnabled())) {
      this.headers = BASE_HEADERS;
      this.loggedIn = true;
      return;
    }
    const res = await this.transport.postLogin(JSON.stringify({ username: this.opts.username, password: this.opts.password }));
    if (res.status < 200 || res.status >= 300) {
      // Only 401/403 say the credentials were refused; a 429, a 5xx or a proxy's page says nothing
      // about the password, so it is reported as what it is (kind 'http'), not as a wrong password.
      const refused = res.status === 401 || res.status === 403;
      throw new MindsDBError(`login to MindsDB as "${this.opts.username}" failed (HTTP ${res.status}): ${loginFailureText(res.text, refused)}`,
        { kind: refused ? 'auth' : 'http', status: res.status, method: 'POST', path: 'login' });
    }
    const headers: Record<string, string> = { ...BASE_HEADERS };
    const cookie = sessionCookie(res.headers['set-cookie']);
    if (cookie) { headers.cookie = `session=${cookie}`; this.onSecret(cookie); }
    const token = tokenFrom(res.text);
    if (token) { headers.authorization = `Bearer ${token}`; this.onSecret(token); }
    if (!cookie && !token) {
      throw new MindsDBError('login to MindsDB succeeded but the server returned neither a session cookie nor a token',
        { kind: 'auth', status: res.status, method: 'POST', path: 'login' });
    }
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
    if (m && m[1]) return m[1];
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
  } catch { /* not JSON */ }
  return refused ? 'the server rejected the username or password' : 'the server did not answer the login (the username and password were not checked)';
}
