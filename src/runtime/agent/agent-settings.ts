import { inputError, isPlainObject } from '../../client';
import type { AgentNodeConfig } from '../../schema';

type Json = Record<string, unknown>;

const listOf = (text: string): string[] | undefined => {
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
};

/**
 * The agent node's Knowledge bases, Tables and Mode put into the settings of a create or update:
 * each field the node fills wins, and msg.payload's `data.knowledge_bases`, `data.tables` and
 * `params.mode` fill what it leaves blank. The client checks the result (../../client: AgentsApi).
 */
export function withNodeData(config: AgentNodeConfig, settings: Json | undefined): Json | undefined {
  const knowledgeBases = listOf(config.knowledgeBases);
  const tables = listOf(config.tables);
  const mode = config.mode === 'default' ? undefined : config.mode;
  if (!knowledgeBases && !tables && !mode) return settings;
  const out: Json = { ...(settings ?? {}) };
  if (knowledgeBases || tables) {
    if (out.data !== undefined && !isPlainObject(out.data))
      throw inputError("msg.payload.data must be an object {knowledge_bases, tables} (the node's lists fill it)");
    out.data = {
      ...(out.data as Json | undefined),
      ...(knowledgeBases ? { knowledge_bases: knowledgeBases } : {}),
      ...(tables ? { tables } : {}),
    };
  }
  if (mode) {
    if (out.params !== undefined && !isPlainObject(out.params))
      throw inputError("msg.payload.params must be an object (the node's Mode goes in it)");
    out.params = { ...(out.params as Json | undefined), mode };
  }
  return out;
}
