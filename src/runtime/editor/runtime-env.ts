import type { Node, NodeAPI } from '../node/red';

/**
 * `${NAME}` in an editor dialog's value, resolved exactly as Node-RED resolves it in a deployed
 * node's property, so that the editor endpoints never reach a value the runtime itself would not:
 *
 * - only a property that is wholly `${NAME}` (or the old `$(NAME)`) is resolved, with the runtime's
 *   own patterns (@node-red/runtime flows/util.js, mapEnvVarProperties; the same in 3.1, 4.1, 5.0);
 * - the value comes from the runtime's own lookup, `RED.util.getSetting(node, NAME)`, asked for the
 *   deployed server node itself when the dialog edits one (its group, its flow, global environment
 *   variables, then process.env), else for the deployed `global-config` node (the global flow: the
 *   global environment variables, then process.env);
 * - that lookup ends in the runtime's `getEnvVar`, which answers nothing for a name listed in the
 *   settings' `envVarExcludes`; when neither node is deployed (nothing to ask), the same rule is
 *   applied here: process.env, less `RED.settings.envVarExcludes`;
 * - a name the runtime does not resolve (unset or excluded) leaves the text as typed, as a
 *   deployed node keeps it.
 */

const WHOLE_REFERENCE = [/^\$\{(\S+)\}$/, /^\$\((\S+)\)$/];
/** Node-RED's per-node names: only the node itself can answer them. */
const OWN_NODE_NAMES = new Set(['NR_NODE_ID', 'NR_NODE_NAME', 'NR_NODE_PATH']);

/** The variable a wholly-`${NAME}` property names, as the flow loader matches it; undefined otherwise. */
export function envReference(value: string): string | undefined {
  if (value[0] !== '$') return undefined;
  return WHOLE_REFERENCE.some((re) => re.test(value)) ? value.substring(2, value.length - 1) : undefined;
}

export interface ResolvedValue {
  value: string;
  /** Whether the value came from the environment (so it is treated as sensitive). */
  resolved: boolean;
}

export class RuntimeEnv {
  private readonly scope: Node | undefined;

  /** `editedNode`: the deployed node whose dialog is being resolved, when it is deployed. */
  constructor(
    private readonly RED: NodeAPI,
    private readonly editedNode?: Node,
  ) {
    this.scope = editedNode ?? globalConfigNode(RED);
  }

  resolve(value: string): ResolvedValue {
    const name = envReference(value);
    if (name === undefined) return { value, resolved: false };
    const found = this.lookup(name);
    return found === undefined ? { value, resolved: false } : { value: String(found), resolved: true };
  }

  private lookup(name: string): unknown {
    if (OWN_NODE_NAMES.has(name) && this.scope !== this.editedNode) return undefined;
    if (this.scope) return this.RED.util.getSetting(this.scope, name);
    const excluded = (this.RED.settings as { envVarExcludes?: unknown }).envVarExcludes;
    if (Array.isArray(excluded) && excluded.includes(name)) return undefined;
    return process.env[name];
  }
}

/** The deployed `global-config` node (Node-RED ≥ 3.1 keeps the global environment variables on it). */
function globalConfigNode(RED: NodeAPI): Node | undefined {
  let id: string | undefined;
  RED.nodes.eachNode((n) => {
    if (n.type === 'global-config') id = n.id;
  });
  return id ? (RED.nodes.getNode(id) ?? undefined) : undefined;
}
