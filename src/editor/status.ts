/**
 * Status texts of our nodes in the editor's language. Node-RED's editor translates a status text
 * that is a key of the node's catalogue itself (our texts without values,
 * "mindsdb-sql.status.requesting"), but passes no values; a text with values arrives in English
 * ("42 rows", from the en-US template "__count__ rows", src/runtime/status-texts.ts). Here it is
 * matched against the node type's en-US templates and the editor language's template is filled
 * with the same values ("42 Zeilen").
 */

export const PACKAGE = '@mindsdb-flows/node-red-mindsdb';

/** Placeholders that always hold a whole number; any other holds text (a name, a MindsDB state). */
const NUMBER_PLACEHOLDERS = ['count', 'version', 'seconds', 'kb'];

interface I18next {
  getResource(lang: string, ns: string, key: string): unknown;
}

declare global {
  interface Window {
    i18next?: I18next;
  }
}

/**
 * The values of a status text made from `template` ("__count__ rows" and "42 rows" give
 * {count: "42"}), or null when the text is not that template's. A number placeholder matches
 * only digits, so that "Warteschlange voll" is not "__model__ v__version__".
 */
export function statusValues(template: string, text: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = template
    .split(/__(\w+?)__/)
    .map((part, i) => {
      if (i % 2 === 1) {
        names.push(part);
        return NUMBER_PLACEHOLDERS.includes(part) ? '(\\d+)' : '([\\s\\S]+?)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const m = new RegExp(`^${pattern}$`).exec(text);
  if (!m) return null;
  const values: Record<string, string> = {};
  names.forEach((name, i) => {
    values[name] = m[i + 1];
  });
  return values;
}

/** A status text of one of our nodes in the editor's language, or null to leave it as it is. */
function translatedStatus(def: NodeDefinition, type: string, text: string): string | null {
  const i18next = window.i18next;
  const english = i18next && def.set ? i18next.getResource('en-US', def.set.id, `${type}.status`) : undefined;
  if (!english || typeof english !== 'object') return null;
  for (const [key, template] of Object.entries(english as Record<string, unknown>)) {
    if (typeof template !== 'string' || !template.includes('__')) continue;
    const values = statusValues(template, text);
    if (values && def._) return def._(`${type}.status.${key}`, values);
  }
  return null;
}

/**
 * Runs beside the editor's own status handler, before or after it: both change msg.text, so
 * whichever runs second sees the other's result (a translated text is no key and matches no
 * English template, so it stays).
 */
export function translateStatuses(): void {
  RED.comms.subscribe('status/#', (topic, msg) => {
    const node = RED.nodes.node(topic.split('/')[1]);
    const def = node && RED.nodes.getType(node.type);
    if (!node || !def?.set || def.set.module !== PACKAGE || !msg || typeof msg.text !== 'string') return;
    const text = translatedStatus(def, node.type, msg.text);
    if (text === null) return;
    msg.text = text;
    if (node.status === msg) {
      // The editor's handler ran first and drew the English text.
      node.dirtyStatus = true;
      RED.view.redrawStatus(node);
    }
  });
}
