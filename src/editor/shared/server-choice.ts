/**
 * The server node an open dialog names, and what an editor endpoint is told about it: its id, and
 * while it is new or changed and not yet deployed, its values (the runtime fills the stored secrets
 * it may use; admin-target.ts says when). Every request the editor makes goes through postJson.
 */

const SERVER_TYPE = 'mindsdb-server';

/** The server picked in #node-input-server, or "" for none. */
export function selectedServer(): string {
  const s = $('#node-input-server').val();
  return typeof s === 'string' && s !== '_ADD_' ? s : '';
}

/**
 * A server node's values as an editor endpoint takes them: every property the server node type
 * declares (a new one too, with no code here), `read` gives each; and its credentials, `secret`
 * gives each (Node-RED shows a stored one as "__PWRD__", which the runtime fills).
 */
export function serverValues(
  read: (property: string) => unknown,
  secret: (key: string) => unknown,
): Record<string, unknown> {
  const def = RED.nodes.getType(SERVER_TYPE);
  const values: Record<string, unknown> = {};
  for (const property of Object.keys(def?.defaults ?? {})) values[property] = read(property);
  const credentials: Record<string, unknown> = {};
  for (const key of Object.keys(def?.credentials ?? {})) credentials[key] = secret(key);
  values.credentials = credentials;
  return values;
}

/** A value of the open config dialog's input: a checkbox's state, a text trimmed, no "add new" config node. */
function configInput(property: string): unknown {
  const input = $(`#node-config-input-${property}`);
  if (!input.length) return undefined;
  if (input.is(':checkbox')) return input.prop('checked') === true;
  const value = input.val();
  if (typeof value !== 'string') return value;
  return value === '_ADD_' ? '' : value.trim();
}

/** The values of the server node's open dialog (its Test connection). */
export function dialogServerValues(): Record<string, unknown> {
  return serverValues(configInput, (key) => {
    const value = $(`#node-config-input-${key}`).val();
    return typeof value === 'string' ? value : '';
  });
}

/** The request body that names `server` to an editor endpoint. */
export function serverRequest(server: string): { server: string; config?: Record<string, unknown> } {
  const body: { server: string; config?: Record<string, unknown> } = { server };
  const cfg = RED.nodes.node(server);
  if (cfg?.changed) {
    // Not deployed as it is now: the runtime connects with these values (stored secrets fill the gaps).
    const creds = cfg.credentials ?? {};
    body.config = serverValues(
      (property) => cfg[property],
      (key) => creds[key],
    );
  }
  return body;
}

/** What a failed request says: the endpoint's own error, else the HTTP status, else why no answer came. */
export function failureText(
  xhr: { status?: number; statusText?: string; responseJSON?: unknown } | undefined,
  textStatus: string | undefined,
  errorThrown: string | undefined,
): string {
  const answer = xhr?.responseJSON as { error?: unknown } | undefined;
  if (answer && typeof answer.error === 'string' && answer.error) return answer.error;
  if (xhr?.status) return `${xhr.status} ${errorThrown || xhr.statusText || ''}`.trim();
  return textStatus || 'no answer';
}

/** POSTs `body` as JSON to an editor endpoint (relative to the editor); the answer as JSON, or failureText. */
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
      .fail((xhr: JQuery.jqXHR, textStatus: string, errorThrown: string) =>
        reject(new Error(failureText(xhr, textStatus, errorThrown))),
      );
  });
}
