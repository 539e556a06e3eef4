/**
 * The door of src/schema/: each node type's saved configuration, declared once (nodes.ts), read by
 * the runtime and, through the build, by the editor's dialogs. It imports nothing of the package:
 * node files, src/runtime/ and the build all read it.
 */
import type { ConfigOf, CredentialsOf } from './node-schema';
import type {
  AGENT_NODE,
  DATABASE_NODE,
  KNOWLEDGE_BASE_NODE,
  ML_ENGINE_NODE,
  SERVER_NODE,
  SKILL_NODE,
  SQL_NODE,
} from './nodes';
import type { STATE_STORE_NODE } from './state-store-node';

export {
  describeRule,
  numberOf,
  type Check,
  type EditorEntry,
  type NumberRule,
  type OneOf,
  type Typed,
  type TypedInputType,
} from './fields';
export {
  defineNode,
  editorDefaults,
  parseConfig,
  type ConfigOf,
  type CredentialsOf,
  type NodeSchema,
} from './node-schema';
export * from './nodes';
export { DEFAULT_STORE_SCHEMA, STATE_STORE_NODE } from './state-store-node';

// The configs and credentials other modules name; any node's is ConfigOf<typeof ITS_NODE>.

export type ServerNodeConfig = ConfigOf<typeof SERVER_NODE>;
export type ServerNodeCredentials = CredentialsOf<typeof SERVER_NODE>;
export type AuthMode = ServerNodeConfig['authMode'];
export type SqlNodeConfig = ConfigOf<typeof SQL_NODE>;
export type DatabaseNodeConfig = ConfigOf<typeof DATABASE_NODE>;
export type DatabaseNodeCredentials = CredentialsOf<typeof DATABASE_NODE>;
export type SkillNodeConfig = ConfigOf<typeof SKILL_NODE>;
export type AgentNodeConfig = ConfigOf<typeof AGENT_NODE>;
export type KnowledgeBaseNodeCredentials = CredentialsOf<typeof KNOWLEDGE_BASE_NODE>;
export type MLEngineNodeCredentials = CredentialsOf<typeof ML_ENGINE_NODE>;
export type StateStoreNodeConfig = ConfigOf<typeof STATE_STORE_NODE>;
export type StateStoreNodeCredentials = CredentialsOf<typeof STATE_STORE_NODE>;
