/*
 * Editor code shared by every MindsDB node's edit dialog, built by `npm run build` into
 * resources/mindsdb-editor.js (scripts/editor-bundle.mjs). Node-RED serves that file from the
 * package's resources/ folder, with resources/mindsdb-defaults.js (each node type's declaration,
 * written by the build from src/schema/nodes.ts), and runs a node's own editor script only once
 * both have loaded, so each node's .html holds no code: the literal registerType the Flow Library
 * reads, spreading in definition("<type>") (./node-types.ts), buildForm("<type>"), and its own
 * dialog rows (buildForm adds the rows every action dialog has). Every node's .html names this
 * file; the first copy to run defines window.MindsDBEditor and any later one leaves it alone.
 */
import { buildForm } from './form';
import { definition } from './node-types';
import { statusValues, translateStatuses } from './status';

const editorApi = {
  // a node's registerType spreads in definition(type) after its literals; buildForm(type) then
  // writes its dialog's rows
  definition,
  buildForm,
  // the status texts' matcher (test/unit/status-texts.test.js reads it)
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
