/**
 * Every node type's saved configuration, declared once. From this table:
 * - the runtime reads each node's config typed, with the declared defaults for what a flow lacks
 *   (`readConfig` in src/runtime/node/config.ts), so node files never restate a fallback;
 * - the build writes each type's editor `defaults` and `credentials` to
 *   resources/mindsdb-defaults.js (scripts/editor-defaults.mjs); every dialog registers those
 *   and builds its rows from them (src/editor/form.ts), and
 *   test/unit/node-schema.test.js runs each nodes/<type>.html and fails when a dialog and the
 *   runtime disagree.
 *
 * To add a node type:
 * 1. declare it in its group's file (server-node.ts, state-store-node.ts, query-nodes.ts, data-nodes.ts,
 *    model-nodes.ts, record-nodes.ts; fields shared by several types are field-groups.ts'), fields
 *    in dialog order (`...head()` first and `outputProperty` last, as the other action nodes do),
 *    and add it to SCHEMAS below;
 * 2. in its node file: `const config = startNode(RED, this, ITS_NODE, saved)` (typed by
 *    `ConfigOf<typeof ITS_NODE>`) and `registerNodeType(RED, ITS_NODE, ctor)`, which takes the
 *    type's name and credentials from here;
 * 3. in nodes/<type>.html (copy nodes/mindsdb-job.html): the literal registerType (category,
 *    color, icon, inputs, outputs: the Flow Library indexes the node from it) spreading in
 *    `...MindsDBEditor.definition("<type>")`, its entry in src/editor/node-types.ts being
 *    `resourceNode(type, { itemIcon: "<fa icon>" })` for a node whose operation acts on a named item
 *    (the field declared with `item()`; its noun, plural and the list its picker suggests from follow
 *    the type's name: "knowledge base", "knowledge_bases"; `collection: "…"` when the dialog's list
 *    route names it otherwise), else `actionNode(type, {…})` (a config node: `configNode`); then
 *    `MindsDBEditor.buildForm("<type>")` and a template of only the node's own rows.
 *    buildForm adds the rows every action dialog has: server, operation, project and the item
 *    first; outputProperty, name and the catalogue's `label.tip` last (src/editor/form.ts
 *    says what a row may add). Its catalogue has `label.<field>` for each row;
 * 4. `npm run build`: the node-schema test then checks the new type like the others.
 * When a field changes meaning later: raise the declaration's version and add a step in
 * src/runtime/node/migrations.ts.
 */
import type { NodeSchema } from './node-schema';
import { SERVER_NODE } from './server-node';
import { ML_ENGINE_NODE, MODEL_NODE } from './model-nodes';
import { DATABASE_NODE, FILE_NODE, KNOWLEDGE_BASE_NODE, TABLE_NODE } from './data-nodes';
import { PREDICT_NODE, SQL_NODE, VIEW_NODE } from './query-nodes';
import { AGENT_NODE, CHATBOT_NODE, JOB_NODE, PROJECT_NODE, SKILL_NODE } from './record-nodes';
import { STATE_STORE_NODE } from './state-store-node';

// One file per group of node types (a new type goes into its group's file and into SCHEMAS below).
export * from './server-node';
export * from './query-nodes';
export * from './data-nodes';
export * from './model-nodes';
export * from './record-nodes';
export { DEFAULT_PROJECT } from './field-groups';

/** Every node type of the package, by type. */
export const SCHEMAS: Readonly<Record<string, NodeSchema>> = Object.fromEntries(
  [
    SERVER_NODE,
    SQL_NODE,
    PREDICT_NODE,
    DATABASE_NODE,
    CHATBOT_NODE,
    SKILL_NODE,
    AGENT_NODE,
    FILE_NODE,
    JOB_NODE,
    MODEL_NODE,
    KNOWLEDGE_BASE_NODE,
    TABLE_NODE,
    PROJECT_NODE,
    VIEW_NODE,
    ML_ENGINE_NODE,
    STATE_STORE_NODE,
  ].map((s) => [s.type, s]),
);
