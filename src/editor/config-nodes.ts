import { catalogue, labelStyle } from './catalogue';
import { credentials, defaults } from './checks';
import { connectionTest } from './connection-test';
import { conditionalRows, fillMissingDefaults } from './dialog';

/**
 * The tabs of a config dialog, where its template has them: each child of #<type>-tabs-content with
 * `data-tab` (its label's catalogue key) is one tab of #<type>-tabs, shown while its tab is chosen.
 */
function dialogTabs(type: string, t: CatalogueFn): void {
  if (!$(`#${type}-tabs`).length) return;
  const content = $(`#${type}-tabs-content`);
  const tabs = RED.tabs.create({
    id: `${type}-tabs`,
    onchange: (tab) => {
      content.children().hide();
      $(`#${tab.id}`).show();
    },
  });
  content.children('[data-tab]').each(function () {
    tabs.addTab({ id: this.id, label: t(this.getAttribute('data-tab') ?? '') });
  });
}

/** What a config node's definition has of its own: its label, and its dialog's own parts. */
export interface ConfigSpec {
  label?: (this: EditorNode) => string;
  prepare?: (node: EditorNode, t: CatalogueFn) => void;
}

/**
 * A config node's definition, but for the category its registerType writes: the declared defaults
 * and credentials, its label (`spec.label`, else its name, else its type) and a dialog whose rows
 * buildForm writes from the declaration, so a field added there needs only its `data-row`: inputs
 * of what the saved node lacks start at their defaults, tabs where the template has them, rows with
 * `data-when` shown when they apply, then `spec.prepare`.
 */
export function configNode(type: string, spec: ConfigSpec = {}): Record<string, unknown> {
  const t = catalogue(type);
  return {
    defaults: defaults(type),
    credentials: credentials(type),
    label:
      spec.label ??
      function (this: EditorNode) {
        return this.name || type;
      },
    labelStyle,
    oneditprepare(this: EditorNode) {
      fillMissingDefaults(type, this, 'node-config-input-');
      dialogTabs(type, t);
      conditionalRows('node-config-input-');
      spec.prepare?.(this, t);
    },
  };
}

/** The server node: labelled by its name, else its URL; its dialog tests the connection (./connection-test.ts). */
export function serverNode(type: string): Record<string, unknown> {
  return configNode(type, {
    label(this: EditorNode) {
      return this.name || (typeof this.url === 'string' && this.url) || 'mindsdb';
    },
    prepare: connectionTest,
  });
}

/**
 * The shared state store (PostgreSQL) a server node may choose: labelled by its name, else its URL (never
 * with credentials: they are credentials, not part of the URL the dialog shows).
 */
export function stateStoreNode(type: string): Record<string, unknown> {
  const t = catalogue(type);
  return {
    ...configNode(type, {
      label(this: EditorNode) {
        return this.name || (typeof this.url === 'string' && this.url) || t('paletteLabel');
      },
    }),
    paletteLabel: () => t('paletteLabel'),
  };
}
