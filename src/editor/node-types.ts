import type { NamePicker } from './name-picker';
import { actionNode, resourceNode } from './node-definitions';
import { serverNode, stateStoreNode } from './config-nodes';
import { literalValue } from './shared/typed-input';

/**
 * What each node type's definition has of its own, beyond its declaration (src/schema/nodes.ts) and
 * its dialog template: a node's .html spreads `definition("<type>")` into its registerType, whose
 * literals (category, colour, icon, ports) the Flow Library reads, and holds no code of its own.
 */

/** The sql node's canvas label: its name, else the start of its query, else the catalogue's. */
export function queryLabel(this: EditorNode, t: CatalogueFn): string {
  if (this.name) return this.name;
  const query = String(this.query || '')
    .replace(/\s+/g, ' ')
    .trim();
  if (query) return query.length > 25 ? `${query.slice(0, 25)}…` : query;
  return t('label.node');
}

/** The predict node's canvas label: its name, else "predict <model>" (msg.model where it comes from msg). */
export function predictLabel(this: EditorNode, t: CatalogueFn): string {
  if (this.name) return this.name;
  let model = String(this.model || '').trim();
  if (!model) return t('label.node');
  if (this.modelType && this.modelType !== 'str') model = `${String(this.modelType)}.${model}`;
  return `predict ${model}`;
}

/** Each name once, in the order first seen. */
const once = (names: string[]): string[] => names.filter((n, i) => names.indexOf(n) === i);

/** The sql node's context database: data sources and projects are both valid. */
export async function contextDatabases(picker: NamePicker): Promise<string[]> {
  const [databases, projects] = await Promise.all([picker.list('databases'), picker.list('projects')]);
  return once([...databases, ...projects]).sort();
}

/** The usual embedding providers, then the ML handlers the server has (the ML engine node lists them). */
export const EMBEDDING_PROVIDERS = ['openai', 'azure_openai', 'ollama', 'bedrock', 'gemini'];
export async function embeddingProviders(picker: NamePicker): Promise<string[]> {
  return once([...EMBEDDING_PROVIDERS, ...(await picker.list('ml_handlers'))]);
}

const DEFINITIONS: Record<string, (type: string) => Record<string, unknown>> = {
  'mindsdb-server': serverNode,
  'mindsdb-state-store': stateStoreNode,
  'mindsdb-sql': (type) =>
    actionNode(type, {
      label: queryLabel,
      inputLabel: 'label.inputQuery',
      outputLabel: 'label.outputRows',
      prepare(picker) {
        picker.nameInput('node-input-database', () => contextDatabases(picker));
      },
    }),
  'mindsdb-predict': (type) =>
    actionNode(type, {
      label: predictLabel,
      inputLabel: 'label.inputRows',
      outputLabel: 'label.outputPredictions',
      prepare(picker) {
        picker.nameInput('node-input-project', () => picker.list('projects'));
        picker.nameInput('node-input-model', () => picker.list('models', literalValue('node-input-project')));
      },
    }),
  'mindsdb-table': (type) =>
    actionNode(type, {
      noun: 'table',
      plural: 'tables',
      nameField: 'table',
      prepare(picker) {
        picker.nameInput('node-input-database', () => picker.list('databases'));
        // The table picker sends the data source as its project.
        picker.nameInput('node-input-table', () => picker.list('tables', literalValue('node-input-database')));
      },
    }),
  'mindsdb-ml-engine': (type) =>
    actionNode(type, {
      noun: 'ML engine',
      plural: 'ML engines',
      nameField: 'engineName',
      prepare(picker) {
        picker.nameInput('node-input-engineName', () => picker.list('ml_engines'));
        picker.textInput('node-input-handler', () => picker.list('ml_handlers'));
      },
    }),
  'mindsdb-database': (type) => resourceNode(type, { itemIcon: 'database' }),
  'mindsdb-chatbot': (type) => resourceNode(type, { itemIcon: 'comment-o' }),
  'mindsdb-file': (type) => resourceNode(type, { itemIcon: 'file-text-o' }),
  'mindsdb-job': (type) => resourceNode(type, { itemIcon: 'clock-o' }),
  'mindsdb-project': (type) => resourceNode(type, { itemIcon: 'folder-o' }),
  'mindsdb-view': (type) => resourceNode(type, { itemIcon: 'eye', rowsOperation: 'query' }),
  'mindsdb-agent': (type) =>
    resourceNode(type, {
      itemIcon: 'user-circle-o',
      outputLabel: (node) => {
        if (node.operation !== 'completions') return 'label.outputResult';
        return node.streamMode === 'chunks' ? 'label.outputChunks' : 'label.outputAnswer';
      },
    }),
  // list (and msg.operation "list") can keep only the skills one agent uses.
  'mindsdb-skill': (type) =>
    resourceNode(type, {
      itemIcon: 'bolt',
      prepare: (picker, project) => picker.textInput('node-input-agent', () => picker.list('agents', project())),
    }),
  'mindsdb-model': (type) =>
    resourceNode(type, {
      itemIcon: 'cube',
      prepare(picker) {
        picker.textInput('node-input-database', () => picker.list('databases'));
        // The ML engines the server has (the ML engine node makes them).
        picker.textInput('node-input-engine', () => picker.list('ml_engines'));
      },
    }),
  'mindsdb-knowledge-base': (type) =>
    resourceNode(type, {
      itemIcon: 'book',
      rowsOperation: 'search',
      prepare(picker) {
        picker.textInput('node-input-storageDatabase', () => picker.list('databases'));
        picker.textInput('node-input-provider', () => embeddingProviders(picker));
      },
    }),
};

/** The node types this package's editor defines. */
export const NODE_TYPES = Object.keys(DEFINITIONS);

/** The definition a node type's registerType spreads in (after its literals). */
export function definition(type: string): Record<string, unknown> {
  const make = DEFINITIONS[type];
  if (!make) throw new Error(`${type}: no definition in src/editor/node-types.ts`);
  return make(type);
}
