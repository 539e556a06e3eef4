/*
 * Editor code shared by every MindsDB node's edit dialog, built by `npm run build` into
 * resources/mindsdb-editor.js (scripts/editor-bundle.mjs). Node-RED serves that file from the
 * package's resources/ folder, with resources/mindsdb-defaults.js (each node type's declaration,
 * written by the build from src/schema/nodes.ts), and runs a node's own editor script only once
 * both have loaded, so each node's .html holds only what is particular to that node: the literal
 * registerType the Flow Library reads, and its own dialog rows (buildForm adds the rows every
 * action dialog has). Every node's .html names this file; the first copy to run defines
 * window.MindsDBEditor and any later one leaves it alone.
 */
import { catalogue, labelStyle } from './catalogue';
import { credentials, defaults } from './checks';
import { conditionalRows, fillMissingDefaults } from './dialog';
import { buildForm } from './form';
import { literalValue } from './shared/typed-input';
import { actionNode, resourceNode } from './node-definitions';
import { sqlAssist } from './sql-assist';
import { statusValues, translateStatuses } from './status';

const editorApi = {
  // a node's registerType: `...resourceNode(type, {itemIcon})` or `...actionNode(type, {…})`,
  // then buildForm(type); a config node takes defaults and credentials itself
  actionNode,
  resourceNode,
  defaults,
  credentials,
  buildForm,
  // pieces for a node's own dialog code
  catalogue,
  conditionalRows,
  fillMissingDefaults,
  labelStyle,
  literalValue,
  sqlAssist,
  statusValues,
};

declare global {
  interface Window {
    MindsDBEditor?: typeof editorApi;
    RED?: NodeRedEditor;
  }
}

if (!window.MindsDBEditor) {
  // Loaded outside an editor (a unit test reads statusValues), there is no RED to subscribe to.
  if (window.RED?.comms) translateStatuses();
  window.MindsDBEditor = editorApi;
}
