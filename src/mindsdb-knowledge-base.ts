// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import {
  inputError,
  kbConditions,
  plainJson,
  knowledgeInsert,
  KnowledgeBasesApi,
  Redactor,
  redactSecretFields,
  type SearchRequest,
} from './client';
import { KNOWLEDGE_BASE_NODE, type KnowledgeBaseNodeCredentials } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationsOf } from './runtime/message/operation';
import { setOutput } from './runtime/message/output';
import { projectItemOf } from './runtime/message/project-item';
import { describeType, evaluateProperty, isPlainObject } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts, type StatusValues } from './runtime/status/status-texts';
import { withStoredSecret } from './runtime/message/stored-secret';
import { startOutbox } from './runtime/outbox';
import { KnowledgeBaseWriter } from './runtime/writers';

const OPERATIONS = operationsOf(KNOWLEDGE_BASE_NODE.fields.operation);
/** Rows a search returns when neither the node nor msg.limit says: the dialog's default. */
const SEARCH_LIMIT = KNOWLEDGE_BASE_NODE.fields.limit.default;

const columnList = (text: string): string[] | undefined => {
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
};

/**
 * A number from the message (msg.limit, msg.threshold) when the node leaves it blank; undefined when it says nothing.
 */
function numberFrom(raw: unknown, what: string): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw inputError(`the search ${what} must be a number, not ${describeType(raw)}`);
  return n;
}

/** The knowledge-base node: create (embedding settings, api key as a credential), insert, search, list, get, delete. */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-knowledge-base', [
    'requesting',
    'knowledgeBases',
    'get',
    'deleted',
    'created',
    'embedding',
    'inserted',
    'rows',
  ] as const);
  type Done = Parameters<typeof texts.ok>[0];
  function MindsDBKnowledgeBaseNode(this: Node<KnowledgeBaseNodeCredentials>, saved: SavedConfig): void {
    const config = startNode(RED, this, KNOWLEDGE_BASE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const apiKey = node.credentials?.apiKey || undefined;
    // The API key must not reach a flow even if the server quotes it back in an error.
    const keyRedactor = new Redactor();
    keyRedactor.setSecrets([apiKey]);

    /**
     * Node fields win; msg.payload ({embedding_model, storage, content_columns, …}) fills what the node leaves blank.
     */
    const settingsFrom = (msg: Msg): Record<string, unknown> => {
      // Only an object carries settings; anything else (an inject's timestamp) is ignored, as the database node does.
      // Values by the one rule for what is not plain JSON (a Date as its ISO text …), named by their place in
      // msg.payload.
      const given = isPlainObject(msg.payload) ? plainJson(msg.payload, 'msg.payload') : undefined;
      const p = isPlainObject(given) ? given : {};
      if (p.embedding_model !== undefined && !isPlainObject(p.embedding_model))
        throw inputError('msg.payload.embedding_model must be an object');
      const own: Record<string, unknown> = {};
      const put = (key: string, value: string) => {
        if (value.trim() !== '') own[key] = value.trim();
      };
      put('provider', config.provider);
      put('model_name', config.embeddingModel);
      put('base_url', config.baseUrl);
      // Node fields win, msg.payload.embedding_model fills the rest; the stored API key goes only
      // with the node's own provider and base URL (./runtime/message/stored-secret.ts).
      const embedding = withStoredSecret({
        key: 'api_key',
        stored: apiKey,
        what: 'the embedding API key',
        fromNode: own,
        fromMsg: (p.embedding_model as Record<string, unknown> | undefined) ?? {},
        msgPath: 'msg.payload.embedding_model',
      });
      const settings: Record<string, unknown> = { ...p };
      if (Object.keys(embedding).length) settings.embedding_model = embedding;
      if (config.storageDatabase.trim() !== '') {
        if (config.storageTable.trim() === '') throw inputError('the storage needs both a vector database and a table');
        settings.storage = { database: config.storageDatabase.trim(), table: config.storageTable.trim() };
      }
      const lists: Array<[string, string]> = [
        ['content_columns', config.contentColumns],
        ['metadata_columns', config.metadataColumns],
      ];
      for (const [key, text] of lists) {
        const l = columnList(text);
        if (l) settings[key] = l;
      }
      if (config.idColumn.trim() !== '') settings.id_column = config.idColumn.trim();
      return settings;
    };

    /**
     * A search as the node and the message ask it: the node's fields win, msg.limit, msg.threshold, msg.alpha and
     * msg.reranking fill blanks; the node's Filter and msg.filter both apply; msg.hybrid can only switch it on.
     */
    const searchOf = async (msg: Msg, text: string): Promise<SearchRequest> => {
      const filter = [
        ...kbConditions(
          plainJson(await evaluateProperty(RED, node, config.filter, msg), "the node's Filter"),
          "the node's Filter",
        ),
        ...kbConditions(plainJson(msg.filter, 'msg.filter'), 'msg.filter'),
      ];
      const flag = (key: 'hybrid' | 'reranking'): boolean | undefined => {
        const v = msg[key];
        if (v === undefined || v === null || typeof v === 'boolean') return v ?? undefined;
        throw inputError(`msg.${key} must be true or false, not ${describeType(v)}`);
      };
      const hybrid = config.hybrid || flag('hybrid') === true;
      // The node's Alpha counts only with its Hybrid search ticked (the dialog hides it otherwise).
      const alpha = (config.hybrid ? config.alpha : undefined) ?? numberFrom(msg.alpha, 'alpha');
      if (!hybrid && alpha !== undefined)
        throw inputError('msg.alpha weighs hybrid search, which is off: tick Hybrid search or set msg.hybrid to true');
      return {
        text,
        limit: config.limit ?? numberFrom(msg.limit, 'limit') ?? SEARCH_LIMIT,
        threshold: config.threshold ?? numberFrom(msg.threshold, 'threshold'),
        filter,
        hybrid: hybrid ? { alpha } : undefined,
        reranking: config.reranking === 'default' ? flag('reranking') : config.reranking === 'on',
      };
    };

    // With the outbox on, inserts are kept in the store first and sent from there by the writer.
    const writer = config.outbox ? new KnowledgeBaseWriter(RED, config, status, texts, keyRedactor) : undefined;

    const ring = handleInput(
      node,
      status,
      texts,
      async (msg: Msg, send: Send) => {
        const { operation, project, name } = await projectItemOf(
          RED,
          node,
          msg,
          'knowledge_base',
          { configured: config.operation, allowed: OPERATIONS, what: 'knowledge base', writes: ['insert'] },
          config,
        );
        const api = new KnowledgeBasesApi(
          clientFor(RED, config, msg, config.outbox && operation === 'insert' ? 'its outbox' : undefined),
        );
        if (operation !== 'list' && !name)
          throw inputError('no knowledge base name: set it in the node or in msg.name');
        const kb = name as string;
        const timeoutMs = timeoutFrom(msg);
        const opts = { timeoutMs };
        const meta: Record<string, unknown> = { resource: 'knowledge_base', operation, project, name };
        let result: unknown;
        let done: Done;
        let values: StatusValues | undefined;
        try {
          switch (operation) {
            case 'list': {
              result = redactSecretFields(await api.list(project, opts));
              done = 'knowledgeBases';
              values = { count: Array.isArray(result) ? result.length : 0 };
              break;
            }
            case 'get':
              result = redactSecretFields(await api.get(project, kb, opts));
              done = 'get';
              break;
            case 'delete':
              result = await api.delete(project, kb, opts);
              done = 'deleted';
              values = { name: kb };
              break;
            case 'create': {
              const settings = settingsFrom(msg);
              status.set(texts.busy('requesting'));
              result = redactSecretFields(await api.create(project, kb, settings, opts));
              done = 'created';
              values = { name: kb };
              break;
            }
            case 'insert': {
              const what =
                config.insertQuery.trim() !== ''
                  ? knowledgeInsert(config.insertQuery)
                  : knowledgeInsert(plainJson(msg.payload, 'msg.payload'));
              meta.stored = false;
              msg.mindsdb = meta;
              // 'kept': on disk, its output or error comes when MindsDB is back; this input ends now.
              const kept = writer?.accept(msg, { project, name: kb, what });
              if (kept) {
                if ((await kept) === 'sent') send(msg);
                return;
              }
              status.set(texts.busy('embedding'));
              result = await api.insert(project, kb, what, opts);
              meta.stored = true;
              done = 'inserted';
              break;
            }
            case 'search': {
              const text =
                typeof msg.payload === 'string' ? msg.payload : typeof msg.query === 'string' ? msg.query : undefined;
              if (text === undefined)
                throw inputError(
                  `for search, msg.payload must be the text to search for, not ${describeType(msg.payload)}`,
                );
              const request = await searchOf(msg, text);
              status.set(texts.busy('requesting'));
              const answer = await api.search(project, kb, request, opts);
              result = answer.rows;
              meta.columns = answer.columns;
              done = 'rows';
              values = { count: answer.rows.length };
              break;
            }
          }
        } catch (err) {
          throw keyRedactor.error(err);
        }
        setOutput(RED, msg, outputProperty, result);
        msg.mindsdb = meta;
        send(msg);
        status.set(texts.ok(done, values));
      },
      () => writer?.close(),
    );
    if (writer) writer.useOutbox(startOutbox(RED, node, status, texts, ring, writer, { ...config, window: 8 }));
  }

  registerNodeType(RED, KNOWLEDGE_BASE_NODE, MindsDBKnowledgeBaseNode);
};
