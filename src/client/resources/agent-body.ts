import { inputError, isPlainObject as isObject } from '../shared';

/**
 * Agent settings as users give them, into the body the server's version accepts. One shape in:
 * the LLM either at the top level (`model_name`, `provider`, `api_key`, `base_url`, as 25.x
 * documents it) or nested (`model: {provider, model_name, api_key, base_url, …}`, as 26.x does),
 * or both when they agree. Two shapes out, decided from the real servers (docs/real-mindsdb.md):
 *
 * - 25.x: top-level `model_name` + `provider`; every other LLM setting (api_key, base_url,
 *   temperature …) in `params`, where 25.x's agent reads them. A chatbot on the agent needs the
 *   top-level `model_name`, so a nested `model` is never sent to 25.x.
 * - 26.x: `model: {…}` with every LLM setting; `params` may hold only timeout and mode (the server
 *   rejects any other key, and answers a create with a misleading 404); skills are gone.
 * `data: {knowledge_bases, tables}` goes at the top level on both (25.x makes it the agent's SQL
 * skill; ./agents.ts checks it first); a mode other than text is refused on 25.x, which has none.
 */

const MODEL_KEYS = ['provider', 'model_name', 'api_key', 'base_url'] as const;
/** What 26.x's AgentParams allows; prompt_template, model and data are sent at the top level. */
const PARAMS_26 = ['timeout', 'mode'];
const LIFTED = ['prompt_template', 'data'];
const SKILL_KEYS = ['skills', 'skills_to_add', 'skills_to_remove'];
const MODES_26 = ['text', 'sql'];

type Json = Record<string, unknown>;

export interface AgentSettings {
  /** The LLM: provider, model_name, api_key, base_url and any other model setting. */
  model: Json;
  /** Everything that is neither the model nor params (prompt_template, data, skills …). */
  rest: Json;
  params: Json;
}

/** The major version number of "26.1.0" (NaN when it is not a version). */
export function majorVersion(version: string): number {
  return Number(/^(\d+)\./.exec(version)?.[1] ?? NaN);
}

/** Reads either shape; two different values for one model setting are an input error. */
export function normaliseAgentSettings(payload: Json | undefined): AgentSettings {
  const rest: Json = { ...(payload ?? {}) };
  const model: Json = {};
  const params: Json = {};
  const setModel = (key: string, value: unknown, where: string) => {
    if (value === undefined) return;
    if (model[key] !== undefined && JSON.stringify(model[key]) !== JSON.stringify(value)) {
      throw inputError(
        `the agent's ${key} is given twice with different values (${where} and elsewhere): give it once, either at ` +
          `the top level or in model: {…}`,
      );
    }
    model[key] = value;
  };

  const nested = rest.model;
  delete rest.model;
  if (typeof nested === 'string') setModel('model_name', nested, 'model');
  else if (isObject(nested)) for (const [k, v] of Object.entries(nested)) setModel(k, v, `model.${k}`);
  else if (nested !== undefined && nested !== null)
    throw inputError("the agent's model must be an object {provider, model_name, api_key, base_url} or a model name");

  for (const key of MODEL_KEYS) {
    setModel(key, rest[key], key);
    delete rest[key];
  }

  if (rest.params !== undefined && rest.params !== null && !isObject(rest.params))
    throw inputError("the agent's params must be an object");
  for (const [k, v] of Object.entries(isObject(rest.params) ? rest.params : {})) {
    // A settings object read back from either version may carry these inside params.
    if (k === 'model' && isObject(v)) for (const [mk, mv] of Object.entries(v)) setModel(mk, mv, `params.model.${mk}`);
    else if (LIFTED.includes(k) && rest[k] === undefined) rest[k] = v;
    else if (k === 'api_key' || k === 'base_url') setModel(k, v, `params.${k}`);
    else params[k] = v;
  }
  delete rest.params;
  return { model, rest, params };
}

/**
 * The `agent` object to send for create or update to a server of `version`. Throws an input error,
 * before anything is sent, for what that version would reject.
 */
export function agentBody(version: string, payload: Json | undefined): Json {
  const { model, rest, params } = normaliseAgentSettings(payload);
  const major = majorVersion(version);
  if (major >= 26) {
    const skills = SKILL_KEYS.filter((k) => rest[k] !== undefined);
    if (skills.length) {
      throw inputError(
        `MindsDB ${version} has no skills (removed in 26.0), so ${skills.join(' and ')} cannot be sent: give the ` +
          `agent its tables and knowledge bases as data: {tables: […], knowledge_bases: […]} instead`,
      );
    }
    const refused = Object.keys(params).filter((k) => !PARAMS_26.includes(k));
    if (refused.length) {
      throw inputError(
        `MindsDB ${version} accepts only timeout and mode in an agent's params (got ${refused.join(', ')}): put LLM ` +
          `settings such as temperature in model: {provider, model_name, api_key, base_url, …} and prompt_template ` +
          `or data at the top level`,
      );
    }
    if (params.mode !== undefined && !MODES_26.includes(String(params.mode))) {
      throw inputError(
        `MindsDB ${version} accepts an agent mode of "text" or "sql" only (got ${JSON.stringify(params.mode)})`,
      );
    }
    const body: Json = { ...rest };
    if (Object.keys(model).length) body.model = model;
    if (Object.keys(params).length) body.params = params;
    return body;
  }
  // 25.x has no modes: it stores a mode and ignores it (its agents answer in text).
  if (params.mode !== undefined && params.mode !== 'text') {
    throw inputError(
      `MindsDB ${version} agents have no mode (modes came with 26.0; a 25.x agent answers in text), so mode ` +
        `${JSON.stringify(params.mode)} cannot be set: leave it out, or read a query's rows with the sql node`,
    );
  }
  delete params.mode;
  const mixed = ['skills_to_add', 'skills_to_remove'].filter((k) => rest[k] !== undefined);
  if (rest.data !== undefined && mixed.length) {
    throw inputError(
      `MindsDB ${version} cannot take data together with ${mixed.join(' and ')} (it answers 400): data becomes the ` +
        `agent's SQL skill, so give the knowledge bases and tables in data alone`,
    );
  }
  const body: Json = { ...rest };
  const { provider, model_name: modelName, ...llmSettings } = model;
  if (modelName !== undefined) body.model_name = modelName;
  if (provider !== undefined) body.provider = provider;
  const allParams = { ...params, ...llmSettings };
  if (Object.keys(allParams).length) body.params = allParams;
  return body;
}
