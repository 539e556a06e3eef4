import fs from 'node:fs';
import path from 'node:path';
import {
  isPlainObject,
  MindsDBError,
  ServerUnreachableError,
  type HealthView,
  type MindsDBErrorKind,
} from '../../client';
import type { NodeStatus } from '../node/red';

/** The values a status template takes: `__count__` in the catalogue is `values.count`. */
export type StatusValues = Readonly<Record<string, string | number>>;

/**
 * Every kind of MindsDBError has a status text of its own (`status.errors.<kind>`), but 'http' (see
 * below). A record, not a list, so that a new kind does not compile until it has its text here.
 */
const ERROR_KIND_TEXTS: Readonly<Record<Exclude<MindsDBErrorKind, 'http'>, true>> = {
  sql: true,
  auth: true,
  unsupported: true,
  network: true,
  timeout: true,
  'invalid-response': true,
  'too-large': true,
  redirect: true,
  'queue-full': true,
  closed: true,
  reset: true,
  input: true,
};
const ERROR_KINDS = Object.keys(ERROR_KIND_TEXTS);
/**
 * The server's health as every node shows it (runtime/status/health-ring.ts), with the backlog of
 * an outbox: the same six texts in every node type's catalogue. The ones with a backlog come first
 * in the catalogues, so that the editor (which takes the first template that matches) never reads
 * "…since 14:02:07, 12 kept" as the shorter "…since __since__".
 */
const HEALTH_TEXTS = [
  'serverUp',
  'serverBusy',
  'serverDown',
  'serverUpKept',
  'serverBusyKept',
  'serverDownKept',
] as const;
/**
 * A shared state store's health (health-ring.ts), in the catalogues of the node types that keep
 * state (read when a catalogue has them): the ring says when the store went away.
 */
const STORE_TEXTS = ['storeDownKept', 'storeDown'] as const;
/** A raw error text in the ring is cut here (Node-RED shows about 20 characters well). */
const MAX_RAW_TEXT = 32;
const PLACEHOLDER = /__(\w+?)__/g;

type Template = { key: string; parts: string[]; names: string[] };

/**
 * The status ring texts of one node type, taken from its en-US message catalogue
 * (nodes/locales/en-US/<type>.json, section "status"), so that the editor shows them in the
 * user's language while logs and msg.error stay English:
 *
 * - a text without values is sent as its catalogue key ("mindsdb-sql.status.requesting"): the
 *   editor translates a status text that is a key of the node's catalogue itself, as it does for
 *   Node-RED's core nodes ("node-red:common.status.connected");
 * - a text with values ("__count__ rows") is sent in English with the values filled in ("42
 *   rows"), because Node-RED translates only a whole key and passes no values. The shared editor
 *   script (resources/mindsdb-editor.js) matches such a text against the same en-US templates and
 *   shows the editor language's template with the same values ("42 Zeilen", "42 行").
 *
 * `names` are the texts a node uses; a name missing from the catalogue fails when the node type
 * registers (and so in every test that loads it), not when a message first needs it.
 */
export class StatusTexts<Name extends string> {
  private readonly templates = new Map<string, Template>();

  constructor(
    readonly type: string,
    names: readonly Name[],
    catalogue: unknown = readCatalogue(type),
  ) {
    const section = statusSection(type, catalogue);
    for (const name of [...names, ...HEALTH_TEXTS, ...ERROR_KINDS.map((k) => `errors.${k}`), 'errors.error']) {
      const text = name.split('.').reduce<unknown>((o, k) => (isPlainObject(o) ? o[k] : undefined), section);
      if (typeof text !== 'string')
        throw new Error(`${type}: no status text "${name}" in nodes/locales/en-US/${type}.json`);
      this.templates.set(name, compile(`${type}.status.${name}`, text));
    }
    for (const name of STORE_TEXTS) {
      const text = section[name];
      if (typeof text === 'string') this.templates.set(name, compile(`${type}.status.${name}`, text));
    }
  }

  /** Working (blue dot): "requesting", "streaming: 120 rows". */
  busy(name: Name, values?: StatusValues): NodeStatus {
    return { fill: 'blue', shape: 'dot', text: this.text(name, values) };
  }

  /** Done (green dot): "42 rows". */
  ok(name: Name, values?: StatusValues): NodeStatus {
    return { fill: 'green', shape: 'dot', text: this.text(name, values) };
  }

  /** Waiting on something else (yellow ring): a queue, a training run. */
  waiting(name: Name, values?: StatusValues): NodeStatus {
    return { fill: 'yellow', shape: 'ring', text: this.text(name, values) };
  }

  /**
   * The server's health, with an outbox's backlog (`kept` messages): a green ring while MindsDB
   * answers, yellow while it says it is busy, red while it is unreachable, with the time it went
   * away. Rings, not dots: a Status node tells them from a node's own work by the shape.
   */
  health(view: HealthView, kept = 0): NodeStatus | undefined {
    const k = kept > 0 ? 'Kept' : '';
    const values = { count: kept, since: view.since === undefined ? '' : sinceText(view.since) };
    switch (view.state) {
      case 'reachable':
        return { fill: 'green', shape: 'ring', text: this.text(`serverUp${k}`, values) };
      case 'busy':
        return { fill: 'yellow', shape: 'ring', text: this.text(`serverBusy${k}`, values) };
      case 'unreachable':
        return { fill: 'red', shape: 'ring', text: this.text(`serverDown${k}`, values) };
      default:
        return undefined; // nothing answered yet: nothing to say
    }
  }

  /** A shared state store that stopped answering: a red ring, since when (with the outbox's backlog). */
  storeHealth(view: { state: string; since?: number }, kept = 0): NodeStatus | undefined {
    if (view.state !== 'unreachable') return undefined;
    const name = kept > 0 ? 'storeDownKept' : 'storeDown';
    if (!this.templates.has(name)) return undefined;
    const since = view.since === undefined ? '' : sinceText(view.since);
    return { fill: 'red', shape: 'ring', text: this.text(name, { count: kept, since }) };
  }

  /**
   * The red ring of a failed message. "HTTP 404" and a network code (ECONNREFUSED) read the same
   * in every language and go as they are; every other kind is a catalogue key.
   */
  error(err: Error): NodeStatus {
    if (err instanceof ServerUnreachableError)
      return this.health({ state: 'unreachable', since: err.since }) as NodeStatus;
    let text: string;
    if (err instanceof MindsDBError && err.kind === 'http') text = raw(`HTTP ${err.status ?? ''}`.trim());
    else if (err instanceof MindsDBError && err.kind === 'network' && err.code !== undefined)
      text = raw(String(err.code));
    else {
      // Never throws: a ring that cannot be labelled must not cost the message its outcome.
      const name = err instanceof MindsDBError ? `errors.${err.kind}` : 'errors.error';
      text = this.text(this.templates.has(name) ? name : 'errors.error');
    }
    return { fill: 'red', shape: 'ring', text };
  }

  /** The key of a text without values; the English text of one with values. */
  private text(name: string, values?: StatusValues): string {
    const t = this.templates.get(name);
    if (!t) throw new Error(`${this.type}: unknown status text "${name}"`);
    if (t.names.length === 0) return t.key;
    let out = t.parts[0];
    for (let i = 0; i < t.names.length; i++) out += String(values?.[t.names[i]] ?? '') + t.parts[i + 1];
    return out;
  }
}

/** When the server went away, as the status says it: the time of day, with the date when not today. */
export function sinceText(at: number, now = Date.now()): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return d.toDateString() === new Date(now).toDateString()
    ? time
    : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

function compile(key: string, text: string): Template {
  const parts: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, m.index));
    names.push(m[1]);
    last = (m.index ?? 0) + m[0].length;
  }
  parts.push(text.slice(last));
  return { key, parts, names };
}

function raw(text: string): string {
  return text.length > MAX_RAW_TEXT ? `${text.slice(0, MAX_RAW_TEXT - 1)}…` : text;
}

/** The en-US catalogue beside the compiled node files (nodes/runtime/status/ → nodes/locales/en-US/). */
function readCatalogue(type: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'locales', 'en-US', `${type}.json`), 'utf8'));
}

function statusSection(type: string, catalogue: unknown): Record<string, unknown> {
  const section = isPlainObject(catalogue) && isPlainObject(catalogue[type]) ? catalogue[type].status : undefined;
  if (!isPlainObject(section)) throw new Error(`${type}: nodes/locales/en-US/${type}.json has no "status" section`);
  return section;
}
