import { catalogue, i18n, labelStyle } from './catalogue';
import { credentials, defaults } from './checks';
import { declaration, declared, items } from './declarations';
import { prepare } from './dialog';
import { cancelEditors, resizeEditors, saveEditors } from './sql-editors';
import { namePicker, type NamePicker } from './name-picker';
import { literalValue } from './shared/typed-input';

/** What an action node's .html says of itself (see actionNode). */
export interface ActionSpec {
  label?: (this: EditorNode, t: CatalogueFn) => string;
  noun?: string;
  plural?: string;
  nameField?: string;
  inputLabel?: string;
  outputLabel?: string | ((node: EditorNode) => string);
  rowsOperation?: string;
  prepare?: (this: EditorNode, picker: NamePicker) => void;
}

/** What a resource node's .html says of itself (see resourceNode). */
export interface ResourceSpec {
  itemIcon?: string;
  item?: string;
  resource?: string;
  collection?: string;
  plural?: string;
  prepare?: (picker: NamePicker, project: () => string) => void;
  outputLabel?: ActionSpec['outputLabel'];
  rowsOperation?: string;
}

/**
 * The canvas label of a node with an operation and a name TypedInput, unless it has a name of
 * its own: "get model m1", "list models", "msg.operation database env.DB", "agent a1 completions".
 */
function operationLabel(node: EditorNode, noun: string, plural: string, nameField: string): string {
  if (node.name) return node.name;
  const op = String(node.operation || declared[node.type]?.operation?.value);
  if (op === 'list') return `list ${plural}`;
  let value = String(node[nameField] || '').trim();
  const type = node[`${nameField}Type`];
  if (value && type && type !== 'str') value = `${String(type)}.${value}`;
  if (op === 'completions') return `${noun}${value ? ` ${value}` : ''} completions`;
  return `${op === 'msg' ? 'msg.operation' : op} ${noun}${value ? ` ${value}` : ''}`;
}

/**
 * An action node's definition, but for what the Flow Library reads from its .html: the node's
 * registerType holds category, colour, icon, inputs and outputs as literals and spreads this
 * in (properties written after the spread replace these). It brings the declared defaults and
 * credentials, the palette label, the label style, labels of the ports, a dialog prepared by
 * `prepare` (./dialog.ts), and SQL editors (./sql-editors.ts) sized with the dialog and closed on
 * save or cancel. `spec` names what differs:
 *   label(t)                  the canvas label (`this` is the node, `t` its catalogue), or
 *   noun, plural, nameField   for a label like "get model m1" / "list models";
 *   inputLabel                a catalogue key for the input port;
 *   outputLabel               a catalogue key, or a function of the node returning one
 *                             (default "label.outputResult");
 *   rowsOperation             the operation that sends rows (the port is labelled
 *                             "label.outputRows" while it is chosen, else "label.outputResult");
 *   prepare(picker)           the node's own inputs (`this` is the node), name pickers at hand.
 */
export function actionNode(type: string, spec: ActionSpec): Record<string, unknown> {
  const t = catalogue(type);
  const ownLabel = spec.label;
  const definition: Record<string, unknown> = {
    defaults: defaults(type),
    paletteLabel: i18n(type, 'paletteLabel'),
    label: ownLabel
      ? function (this: EditorNode) {
          return ownLabel.call(this, t);
        }
      : function (this: EditorNode) {
          return operationLabel(this, spec.noun ?? '', spec.plural ?? '', spec.nameField ?? '');
        },
    labelStyle,
    outputLabels(this: EditorNode) {
      let key = typeof spec.outputLabel === 'function' ? spec.outputLabel(this) : spec.outputLabel;
      if (spec.rowsOperation) key = this.operation === spec.rowsOperation ? 'label.outputRows' : 'label.outputResult';
      return t(key || 'label.outputResult');
    },
    oneditprepare(this: EditorNode) {
      prepare(type, this);
      if (spec.prepare) spec.prepare.call(this, namePicker());
    },
    oneditsave: saveEditors,
    oneditcancel: cancelEditors,
    oneditresize: resizeEditors,
  };
  if (spec.inputLabel) definition.inputLabels = i18n(type, spec.inputLabel);
  const secrets = credentials(type);
  if (Object.keys(secrets).length) definition.credentials = secrets;
  return definition;
}

/**
 * The definition of a node with an operation and an item it names (chatbot, skill, agent, job,
 * knowledge base, database, file, model): an action node whose item name, and project where
 * it has one, suggest what the server has, and whose dialog buildForm starts with the rows
 * such a node has (see standardRows in ./form.ts). Every part of `spec` is optional:
 *   itemIcon       the icon of the item name's row (default "pencil");
 *   item           the item name's field (default: the one declared `item` in
 *                  src/schema/nodes.ts, else "itemName");
 *   resource       the canvas's noun (default: the type without "mindsdb-", with spaces:
 *                  "knowledge base");
 *   collection     what the picker lists (default: the noun's plural, "_" for spaces:
 *                  "knowledge_bases");
 *   plural         the canvas's plural (default: the collection when given, else the noun's
 *                  plural: "knowledge bases");
 *   prepare(picker, project)  the node's own inputs (project() is the literal project, or "");
 *   outputLabel, rowsOperation   as for actionNode.
 */
export function resourceNode(type: string, resourceSpec?: ResourceSpec): Record<string, unknown> {
  const spec = resourceSpec ?? {};
  const resource = spec.resource ?? type.replace(/^mindsdb-/, '').replace(/-/g, ' ');
  const collection = spec.collection ?? `${resource.replace(/ /g, '_')}s`;
  const fields = declaration(type).defaults;
  const field = spec.item ?? Object.keys(fields).find((f) => fields[f].item) ?? 'itemName';
  const definition = actionNode(type, {
    noun: resource,
    plural: spec.plural ?? spec.collection ?? `${resource}s`,
    nameField: field,
    outputLabel: spec.outputLabel,
    rowsOperation: spec.rowsOperation,
    prepare(picker) {
      const hasProject = Boolean(declared[type]?.project);
      const project = (): string => (hasProject ? literalValue('node-input-project') : '');
      if (hasProject) picker.nameInput('node-input-project', () => picker.list('projects'));
      picker.nameInput(`node-input-${field}`, () =>
        hasProject ? picker.list(collection, project()) : picker.list(collection),
      );
      if (spec.prepare) spec.prepare(picker, project);
    },
  });
  items[type] = { field, icon: spec.itemIcon ?? 'pencil' };
  return definition;
}
