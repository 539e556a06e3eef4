import { dialogServerValues, postJson } from './shared/server-choice';

/**
 * The server dialog's Test connection: the dialog's values (saved or not) go to POST mindsdb/test
 * (src/runtime/editor/admin-routes.ts), which connects as a deployed node would, and its answer is
 * shown beside the button in the dialog's language.
 */

/** What POST mindsdb/test answers. */
export interface TestAnswer {
  ok?: boolean;
  error?: unknown;
  version?: unknown;
  authEnabled?: boolean;
  authConfirmed?: boolean;
  authType?: unknown;
  proxy?: unknown;
  integrations?: { ok?: boolean; error?: unknown; passthrough?: Array<{ engine: string; authModes: string[] }> };
}

/** The text of an answer, and whether the connection works: the version, how it logs in, its proxy and integrations. */
export function testResult(res: TestAnswer | undefined, t: CatalogueFn): { ok: boolean; text: string } {
  if (!res?.ok) return { ok: false, text: t('label.testFailed', { error: String(res?.error || 'unknown error') }) };
  const key = !res.authEnabled
    ? 'label.testOkNoAuth'
    : res.authConfirmed
      ? 'label.testOkAuth'
      : 'label.testOkUnconfirmed';
  const lines = [t(key, { version: String(res.version) })];
  if (res.authType) lines.push(t('label.testAuthType', { type: String(res.authType) }));
  if (res.proxy) lines.push(t('label.testProxy', { source: String(res.proxy) }));
  const integrations = res.integrations;
  if (integrations?.ok) {
    const passthrough = integrations.passthrough ?? [];
    lines.push(
      passthrough.length
        ? t('label.testPassthrough', {
            engines: passthrough.map((p) => `${p.engine} (${p.authModes.join(', ')})`).join(', '),
          })
        : t('label.testNoPassthrough'),
    );
  } else if (integrations) {
    lines.push(t('label.testIntegrations', { error: String(integrations.error) }));
  }
  return { ok: true, text: lines.join(' · ') };
}

const OK = 'mindsdb-server-test-ok';
const FAILED = 'mindsdb-server-test-failed';

/**
 * Wires the dialog's #mindsdb-test-button to #mindsdb-test-result, for the server node `node`; a
 * result is cleared once a field of the button's tab changes, since it no longer describes the dialog.
 */
export function connectionTest(node: EditorNode, t: CatalogueFn): void {
  const result = $('#mindsdb-test-result');
  const button = $('#mindsdb-test-button');
  const show = (icon: string, text: string, outcome?: string): void => {
    result.empty().removeClass(`${OK} ${FAILED}`);
    if (outcome) result.addClass(outcome);
    $('<i>', { class: `fa ${icon}` }).appendTo(result);
    $('<span>').text(` ${text}`).appendTo(result);
  };
  button.on('click', (evt) => {
    evt.preventDefault();
    button.prop('disabled', true);
    show('fa-spinner fa-spin', t('label.testing'));
    postJson<TestAnswer>('mindsdb/test', { id: node.id, ...dialogServerValues() }, 30000)
      .then(
        (res) => {
          const { ok, text } = testResult(res, t);
          show(ok ? 'fa-check' : 'fa-exclamation-triangle', text, ok ? OK : FAILED);
        },
        (err: unknown) =>
          show('fa-exclamation-triangle', t('label.testFailed', { error: (err as Error).message }), FAILED),
      )
      .then(
        () => button.prop('disabled', false),
        () => button.prop('disabled', false),
      );
  });
  button.closest('[data-tab]').on('change input', 'input, select', () => {
    result.empty().removeClass(`${OK} ${FAILED}`);
  });
}
