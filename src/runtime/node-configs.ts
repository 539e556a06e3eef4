/**
 * The saved configuration of every node type in this package: the `defaults` (and `credentials`)
 * of each editor file in nodes/*.html must match these interfaces field for field.
 *
 * Every property a flow may take from msg, flow, global or env is a TypedInput: the value lives in
 * `<prop>` and its type in `<prop>Type` ('str' | 'msg' | 'flow' | 'global' | 'env' | 'json' | 'jsonata' ...).
 * A blank node field lets the msg fill it (node fields win, msg fills blanks, as in Node-RED's own nodes).
 *
 * `version` is the saved-config schema version of each node; see src/runtime/migrations.ts.
 */

import type { ResourceOperation } from '../client';

/** TypedInput type names that Node-RED's RED.util.evaluateNodeProperty understands. */
export type TypedInputType =
  | 'str' | 'num' | 'bool' | 'json' | 'msg' | 'flow' | 'global' | 'env' | 'jsonata' | 're' | 'date' | 'bin';

export type AuthMode = 'none' | 'session' | 'login' | 'token';

/** Fields Node-RED gives every node definition. */
interface NodeDefFields {
  id: string;
  type: string;
  z: string;
  name: string;
}

/** mindsdb-server (config node). */
export interface ServerNodeConfig extends NodeDefFields {
  /** Base URL of the MindsDB server, e.g. http://127.0.0.1:47334 (may be `${ENV}`). */
  url: string;
  /** API path prefix, default "/api". */
  apiPrefix: string;
  authMode: AuthMode;
  /** Default per-request timeout in milliseconds (msg.timeout overrides it per message). */
  timeout: number | string;
  /** Retries for requests that are safe to retry (see the README's "Reliability and security"). */
  retries: number | string;
  /** Retry POST requests (SQL, predict, create) too, even when they may have reached the server. */
  retryPost: boolean;
  /** Requests in flight at once, per server. */
  maxInFlight: number | string;
  /** Requests waiting for a free slot; beyond this a message fails with a "queue full" error. */
  maxQueue: number | string;
  /** Largest response body accepted, in megabytes. */
  maxResponseMB: number | string;
  /** Optional id of a core `tls-config` node (custom CA, client certificate, or no verification). */
  tls: string;
  version: number;
}

/** Credentials of mindsdb-server; stored by Node-RED in flows_cred.json, never exported. */
export interface ServerNodeCredentials {
  /** Hosted service: value of the `session` cookie. */
  session?: string;
  /** Login mode: POST {prefix}/login. */
  username?: string;
  password?: string;
  /** Bearer token mode. */
  token?: string;
}

interface ActionNodeBase extends NodeDefFields {
  /** id of the mindsdb-server config node. */
  server: string;
  /** Where the result goes on the output msg (a msg property path), default "payload". */
  outputProperty: string;
  version: number;
}

/** mindsdb-sql. */
export interface SqlNodeConfig extends ActionNodeBase {
  /** SQL text from the node's SQL editor; blank → msg.query, else a string msg.payload. */
  query: string;
  /** Default database / project context (`context.db`); TypedInput. Blank → msg.database, else server default. */
  database: string;
  databaseType: TypedInputType;
  /** 'objects' (rows keyed by column name) or 'arrays' (rows as arrays; raw data also in msg.mindsdb.data). */
  rowFormat: 'objects' | 'arrays';
  /** Send the rows as a message sequence of `rowsPerMsg` rows each (msg.parts, Join-compatible). */
  split: boolean;
  rowsPerMsg: number | string;
  /** With split: send a part only while fewer than `partsAhead` parts wait for a `msg.tick` back (absent in older flows: off). */
  flowControl?: boolean;
  partsAhead?: number | string;
}

/** mindsdb-predict. */
export interface PredictNodeConfig extends ActionNodeBase {
  /** Project name; TypedInput, default "mindsdb". Blank → msg.project, else "mindsdb". */
  project: string;
  projectType: TypedInputType;
  /** Model name; TypedInput. Blank → msg.model. */
  model: string;
  modelType: TypedInputType;
  /** Extra `params` for the server (JSON object); TypedInput. Blank → msg.predictParams. */
  params: string;
  paramsType: TypedInputType;
  /** Micro-batching: collect up to batchSize messages or batchWindow ms, one predict call. */
  batch: boolean;
  batchSize: number | string;
  batchWindow: number | string;
  /** Keep each original `<target>_explain` JSON string as `<target>_explain_raw`. */
  keepExplainString: boolean;
}

export type DatabaseOperation = 'create' | 'list' | 'get' | 'update' | 'delete' | 'msg';

/** mindsdb-database. */
export interface DatabaseNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. */
  operation: DatabaseOperation;
  /** Database (data source) name; TypedInput. Blank → msg.payload.name, else msg.name. */
  dbName: string;
  dbNameType: TypedInputType;
  /** Engine (create/update), e.g. "postgres". Blank → msg.payload.engine. */
  engine: string;
  /** Connection parameters; blank ones are not sent. */
  host: string;
  port: string;
  user: string;
  database: string;
  /** Any other engine parameters, as a JSON object text. */
  extraParams: string;
  /** Ask the server to test the connection before creating (create/update). */
  checkConnection: boolean;
  /** Update creates a missing database (MindsDB's upsert); off: update fails on a missing one. */
  updateCreates?: boolean;
}

/** Credentials of mindsdb-database. */
export interface DatabaseNodeCredentials {
  password?: string;
}


/** mindsdb-chatbot, mindsdb-skill and mindsdb-agent (one shape, one implementation). */
export interface ResourceNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. 'completions' exists for agents only. */
  operation: ResourceOperation | 'completions' | 'msg';
  /** Project; TypedInput, default "mindsdb". Blank → msg.project, else "mindsdb". */
  project: string;
  projectType: TypedInputType;
  /** Name of the chatbot/skill/agent; TypedInput. Blank → msg.name. */
  itemName: string;
  itemNameType: TypedInputType;
  /** Skills only, list: keep only skills attached to this agent (msg.agent fills a blank). */
  agent?: string;
  /** Agents only, completions: 'final' (one msg with the answer) or 'chunks' (a message sequence). */
  streamMode?: 'final' | 'chunks';
}

export type FileOperation = 'upload' | 'list' | 'delete' | 'msg';

/** mindsdb-file. */
export interface FileNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. */
  operation: FileOperation;
  /** The file's name in MindsDB (the table files.<name>, no extension); TypedInput. Blank → msg.name. */
  fileName: string;
  fileNameType: TypedInputType;
  /** How an array of row objects is written: 'csv' or 'json'. */
  format: 'csv' | 'json';
  /** Upload: delete an existing file of that name first, instead of failing. */
  replace: boolean;
  /** Upload: the largest file sent, in megabytes. */
  maxSizeMB: number | string;
}

export type JobOperation = 'create' | 'list' | 'get' | 'history' | 'delete' | 'msg';

/** mindsdb-job. */
export interface JobNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. */
  operation: JobOperation;
  /** Project; TypedInput, default "mindsdb". Blank → msg.project, else "mindsdb". */
  project: string;
  projectType: TypedInputType;
  /** Job name; TypedInput. Blank → msg.name. */
  itemName: string;
  itemNameType: TypedInputType;
  /** Create: the SQL the job runs (statements separated by ";"). Blank → msg.payload.query or a string msg.payload. */
  query: string;
  /** Create: "every 1 day" …; blank → msg.payload.schedule, else the job runs once. */
  schedule: string;
  /** Create: first run ("2026-01-31 08:00:00"); blank → msg.payload.start_at, else now. */
  startAt: string;
  /** Create: no runs after this; blank → msg.payload.end_at, else none. */
  endAt: string;
  /** Create: run only when this query returns rows; blank → msg.payload.if_query. */
  ifQuery: string;
}

export type ModelOperation = 'train' | 'get' | 'describe' | 'retrain' | 'finetune' | 'list' | 'versions' | 'activate' | 'delete' | 'msg';

/** mindsdb-model. */
export interface ModelNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. */
  operation: ModelOperation;
  /** Project; TypedInput, default "mindsdb". Blank → msg.project, else "mindsdb". */
  project: string;
  projectType: TypedInputType;
  /** Model name; TypedInput. Blank → msg.model. */
  model: string;
  modelType: TypedInputType;
  /** A model version (get, describe, activate, delete); blank → msg.version, else the active one / all. */
  modelVersion: string;
  /** Train: a whole CREATE MODEL statement; wins over the fields below. Blank → the fields, else msg. */
  statement: string;
  /** Train/retrain/finetune: the database the SELECT runs in, e.g. "files". Blank → msg.payload.database. */
  database: string;
  /** Train/retrain/finetune: the training data query. Blank → msg.payload.select. */
  select: string;
  /** Train: the column to predict. Blank → msg.payload.predict. */
  predict: string;
  /** Train/retrain: the ML engine. Blank → msg.payload.engine. */
  engine: string;
  /** USING options as a JSON object text; msg.payload.using fills the keys the node leaves out. */
  using: string;
  /** Train/retrain/finetune: wait until the new version is complete (or failed) before sending. */
  wait: boolean;
  /** The longest wait, in seconds. */
  waitTimeout: number | string;
}

export type KnowledgeBaseOperation = 'create' | 'insert' | 'search' | 'list' | 'get' | 'delete' | 'msg';

/** mindsdb-knowledge-base. */
export interface KnowledgeBaseNodeConfig extends ActionNodeBase {
  /** Operation, or 'msg' to take it from msg.operation. */
  operation: KnowledgeBaseOperation;
  /** Project; TypedInput, default "mindsdb". Blank → msg.project, else "mindsdb". */
  project: string;
  projectType: TypedInputType;
  /** Knowledge base name; TypedInput. Blank → msg.name. */
  itemName: string;
  itemNameType: TypedInputType;
  /** Create: embedding provider, e.g. "openai"; blank → msg.payload.embedding_model.provider. */
  provider: string;
  /** Create: embedding model, e.g. "text-embedding-3-small". */
  embeddingModel: string;
  /** Create: the provider's base URL (an OpenAI-compatible server); blank → the provider's default. */
  baseUrl: string;
  /** Create: the vector database and table that store the embeddings; blank → the server's default store. */
  storageDatabase: string;
  storageTable: string;
  /** Create: comma-separated column lists; blank → the server's defaults (content, id). */
  contentColumns: string;
  metadataColumns: string;
  idColumn: string;
  /** Insert: a SELECT whose rows are inserted; blank → msg.payload (rows, texts, URLs or a SELECT). */
  insertQuery: string;
  /** Search: rows returned; blank → msg.limit, else 10. */
  limit: number | string;
  /** Search: only chunks with relevance ≥ this (0…1); blank → msg.threshold, else none. */
  threshold: number | string;
}

/** Credentials of mindsdb-knowledge-base. */
export interface KnowledgeBaseNodeCredentials {
  /** The embedding provider's API key. */
  apiKey?: string;
}
