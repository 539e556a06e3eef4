/**
 * MindsDB's resources, one module each: databases, files, models, knowledge bases, jobs, and the
 * records table (chatbots, skills, agents) with agent bodies and completions. Each speaks to the
 * server through the MindsDBClient facade; imports ../connection, ../answers and ../shared.
 */
export { DatabasesApi } from './databases';
export type { DatabaseSpec, CreatedDatabase } from './databases';
export { ResourcesApi, RESOURCES } from './records';
export type { ResourceKind, ResourceOperation, ResourceRequest, ResourceSpec, DeletedRecord } from './records';
export { completeAgent, streamAgent, toAgentMessages } from './agent-completions';
export type { AgentMessage, AgentRequestOptions, Completion } from './agent-completions';
export { agentBody, majorVersion, normaliseAgentSettings } from './agent-body';
export type { AgentSettings } from './agent-body';
export { AgentsApi, agentData } from './agents';
export { FilesApi, fileContent, toCsv, checkFileName, multipartBody } from './files';
export type { FileContent, RowFormat, UploadResult } from './files';
export { JobsApi, checkSchedule, jobDate } from './jobs';
export type { JobSpec } from './jobs';
export { ModelsApi, createModelSql } from './models';
export type { TrainSpec, UpdateSpec } from './models';
export type { TrainingRun, WaitOptions, AbortLike } from './training';
export { KnowledgeBasesApi, knowledgeInsert } from './knowledge-bases';
export type { KnowledgeInsert } from './knowledge-bases';
export type { SearchRequest, SearchAnswer } from './kb-search';
export { kbConditions } from './kb-filter';
export type { KbCondition, KbOperator, KbValue } from './kb-filter';
export { storedNames, storedName, withStoredName, withStoredNames, isNoSuchName, hasCapitals } from './names';
export type { NamedResource, NameScope, StoredNameOptions } from './names';
export { integrationCapabilities, CAPABILITIES_SINCE } from './integrations';
export type { PassthroughEngine } from './integrations';
export {
  TablesApi,
  insertRows,
  insertStatement,
  insertColumn,
  insertValue,
  insertMayHaveLanded,
  bindsParameters,
  storedKeys,
  keyText,
} from './tables';
export type { InsertRow, InsertResult } from './tables';
export type { CreatedTable } from './table-create';
export { ProjectsApi } from './projects';
export type { ProjectRecord, ProjectChange } from './projects';
export { ViewsApi, viewSelect } from './views';
export type { ViewRecord } from './views';
export { MLEnginesApi, checkHandler } from './ml-engines';
export type { MLEngine, MLEngineSpec, MLHandler } from './ml-engines';
export { TreeApi } from './tree';
export type { TreeItem, TreeKind } from './tree';
