/**
 * The server node an open dialog names, and what an editor endpoint is told about it: its id, and
 * while it is new or changed and not yet deployed, its dialog values (the runtime fills the
 * stored secrets it may use; admin-target.ts says when).
 */

/** The server picked in #node-input-server, or "" for none. */
export function selectedServer(): string {
  const s = $('#node-input-server').val();
  return typeof s === 'string' && s !== '_ADD_' ? s : '';
}

/** The request body that names `server` to an editor endpoint. */
export function serverRequest(server: string): { server: string; config?: Record<string, unknown> } {
  const body: { server: string; config?: Record<string, unknown> } = { server };
  const cfg = RED.nodes.node(server);
  if (cfg?.changed) {
    // Not deployed as it is now: the runtime connects with these values (stored secrets fill the gaps).
    const creds = cfg.credentials ?? {};
    body.config = {
      url: cfg.url,
      apiPrefix: cfg.apiPrefix,
      authMode: cfg.authMode,
      tls: cfg.tls,
      timeout: cfg.timeout,
      credentials: { session: creds.session, username: creds.username, password: creds.password, token: creds.token },
    };
  }
  return body;
}

/** POSTs `body` as JSON to an editor endpoint (relative to the editor); the answer as JSON. */
export function postJson<T>(url: string, body: unknown, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    $.ajax({
      url,
      method: 'POST',
      contentType: 'application/json',
      dataType: 'json',
      data: JSON.stringify(body),
      timeout: timeoutMs,
    })
      .done((res: T) => resolve(res))
      .fail((_xhr: unknown, status: string) => reject(new Error(status || 'request failed')));
  });
}
