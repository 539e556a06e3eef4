/**
 * MindsDB's resources, one module each: databases, files, models, knowledge bases, jobs, and the
 * records table (chatbots, skills, agents) with agent bodies and completions. Each speaks to the
 * server through the MindsDBClient facade; imports ../connection, ../answers and ../shared.
 */
/** The client of one MindsDB server, on MindsDB's routes (./routes.ts). */
export { MindsDBClient } from './client';
/** One SQL statement awaited: the one promise around the client's `sql` (whose face is a callback). */
export { sqlOf } from './sql';
export { DatabasesApi } from './databases';
export type { DatabaseSpec, CreatedDatabase } from './databases';
export { ResourcesApi, RESOURCES } from './records';
export type { ResourceKind, ResourceOperation, ResourceRequest, ResourceSpec, DeletedRecord } from './records';
export { completeAgent, streamAgent, toAgentMessages } from './agent-completions';
export type { AgentMessage, AgentRequestOptions, Completion } from './agent-completions';
export { agentBody, majorVersion, normaliseAgentSettings } from './agent-body';
export type { AgentSettings } from './agent-body';
export { AgentsApi, agentData } from './agents';
export { FilesApi } from './files';
export type { UploadResult } from './files';
export { fileContent, toCsv, checkFileName, multipartBody } from './file-content';
export type { FileContent, RowFormat } from './file-content';
export { JobsApi, checkSchedule, jobDate } from './jobs';
export type { JobSpec } from './jobs';
export { ModelsApi } from './models';
export { createModelSql } from './model-statements';
export type { TrainSpec, UpdateSpec } from './model-statements';
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
export { TablesApi, storedKeys, keyText } from './tables';
export type { InsertResult } from './tables';
export { insertRows, insertStatement, insertColumn, insertValue, bindsParameters } from './table-rows';
export type { InsertRow, InsertValue } from './table-rows';
export type { CreatedTable } from './table-create';
export { ProjectsApi } from './projects';
export type { ProjectRecord, ProjectChange } from './projects';
export { ViewsApi, viewSelect } from './views';
export type { ViewRecord } from './views';
export { MLEnginesApi, checkHandler } from './ml-engines';
export type { MLEngine, MLEngineSpec, MLHandler } from './ml-engines';
export { TreeApi } from './tree';
export type { TreeItem, TreeKind } from './tree';
