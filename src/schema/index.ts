/**
 * The door of src/schema/: each node type's saved configuration, declared once (nodes.ts), read by
 * the runtime and written into the editor's dialogs by the build. It imports nothing of the
 * package: node files, src/runtime/ and the build all read it.
 */
import type { ConfigOf, CredentialsOf } from './node-schema';
import type {
  AGENT_NODE, CHATBOT_NODE, DATABASE_NODE, FILE_NODE, JOB_NODE, KNOWLEDGE_BASE_NODE, MODEL_NODE,
  PREDICT_NODE, SERVER_NODE, SKILL_NODE, SQL_NODE,
} from './nodes';

export { describeRule, numberOf, type Check, type EditorEntry, type NumberRule, type OneOf, type Typed, type TypedInputType } from './fields';
export { defineNode, editorDefaults, parseConfig, type ConfigOf, type CredentialsOf, type NodeSchema } from './node-schema';
export * from './nodes';

export type ServerNodeConfig = ConfigOf<typeof SERVER_NODE>;
export type ServerNodeCredentials = CredentialsOf<typeof SERVER_NODE>;
export type AuthMode = ServerNodeConfig['authMode'];
export type SqlNodeConfig = ConfigOf<typeof SQL_NODE>;
export type PredictNodeConfig = ConfigOf<typeof PREDICT_NODE>;
export type DatabaseNodeConfig = ConfigOf<typeof DATABASE_NODE>;
export type DatabaseNodeCredentials = CredentialsOf<typeof DATABASE_NODE>;
export type ChatbotNodeConfig = ConfigOf<typeof CHATBOT_NODE>;
export type SkillNodeConfig = ConfigOf<typeof SKILL_NODE>;
export type AgentNodeConfig = ConfigOf<typeof AGENT_NODE>;
export type FileNodeConfig = ConfigOf<typeof FILE_NODE>;
export type JobNodeConfig = ConfigOf<typeof JOB_NODE>;
export type ModelNodeConfig = ConfigOf<typeof MODEL_NODE>;
export type KnowledgeBaseNodeConfig = ConfigOf<typeof KNOWLEDGE_BASE_NODE>;
export type KnowledgeBaseNodeCredentials = CredentialsOf<typeof KNOWLEDGE_BASE_NODE>;
