import { inputError } from './errors';

/**
 * The one rule for a message value that goes to MindsDB: in a request body (predict rows, bound SQL
 * parameters, settings, knowledge-base rows …), in SQL text (USING values, ./sql-text.ts), as an
 * inserted value (resources/tables.ts) or in an uploaded file (resources/files.ts). Every writer
 * passes the value through `plainJson` first; what it gives back is plain JSON that JSON.stringify
 * writes as MindsDB reads it back, and what cannot be written so is refused with an input error
 * that names the value (its path in the message) and why. What JavaScript's own conversion would
 * do instead (measured against 25.14.1 and 26.1.0, docs/real-mindsdb.md, "Values"):
 *
 *   a Date                 its ISO 8601 text, the instant MindsDB stores (an invalid Date: refused)
 *                          (JSON.stringify: the same text, but `null` for an invalid Date)
 *   a bigint               a number: exact digits up to the 64-bit integer range, which MindsDB binds
 *                          and stores exactly; beyond it refused (MindsDB reads a float and loses
 *                          digits) (JSON.stringify: throws)
 *   -0                     0: MindsDB reads -0.0 back as 0 (the same as JSON.stringify)
 *   NaN, ±Infinity         refused (JSON.stringify: null, a silent no value)
 *   undefined              left out of an object; null in an array, keeping the positions (as
 *                          JSON.stringify); a top-level undefined stays undefined (no value)
 *   Buffer, typed arrays,  refused: MindsDB's JSON has no bytes (a base64 text would be stored as
 *   ArrayBuffer            that text) (JSON.stringify: {"type":"Buffer","data":[…]} or {"0":…})
 *   Map, Set               refused, saying how to convert (JSON.stringify: {}, the entries lost)
 *   other class instances  refused: a RegExp, an Error, a boxed primitive, a class of the flow's own
 *                          (JSON.stringify: its own enumerable fields, or its toJSON)
 *   symbols, functions     refused (JSON.stringify: left out, or null in an array)
 *   a cycle                refused, naming where it closes (JSON.stringify: throws)
 *   broken Unicode text    refused (a lone surrogate: no database stores it)
 *
 * Objects and arrays from a Node-RED function node come from another realm (their prototypes are
 * not this one's): they are told apart by their root prototype and their tag, never by instanceof.
 * A value that needs no change is given back as it is (no copy).
 */

/** What JSON.rawJSON makes (Node 22+): a number written with exactly these digits. */
export interface RawJson {
  readonly rawJSON: string;
}
const RAW = JSON as unknown as { rawJSON(text: string): RawJson; isRawJSON(v: unknown): v is RawJson };

/** Whether a value is a number `plainJson` wrote with its exact digits (a bigint beyond 2^53). */
export function isRawJson(v: unknown): v is RawJson {
  return typeof RAW.isRawJSON === 'function' && RAW.isRawJSON(v);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MAX_DEPTH = 100;
const LONE_SURROGATE = /\p{Cs}/u;

/** The value as plain JSON by the one rule above, or an input error naming `where` (e.g. "msg.payload"). */
export function plainJson(value: unknown, where: string): unknown {
  return write(value, where, [], 0);
}

/** Where a value is: the caller's name for the top, then the keys down to it (made into text only for an error). */
type Path = string | { readonly up: Path; readonly key: string | number };

function pathText(path: Path): string {
  return typeof path === 'string' ? path : pathOf(pathText(path.up), path.key);
}

/** JSON text of `value` by the one rule (a top-level undefined is refused: there is nothing to send). */
export function jsonText(value: unknown, where: string): string {
  const plain = plainJson(value, where);
  if (plain === undefined) throw inputError(`${where} has no value to send`);
  return JSON.stringify(plain);
}

/** `where` followed by a key: `.name`, or `["a b"]` for a key that is not a name. */
export function pathOf(where: string, key: string | number): string {
  if (typeof key === 'number') return `${where}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${where}.${key}` : `${where}[${JSON.stringify(key)}]`;
}

function write(v: unknown, path: Path, ancestors: object[], depth: number): unknown {
  switch (typeof v) {
    case 'string':
      if (LONE_SURROGATE.test(v))
        throw inputError(`${pathText(path)} is not well-formed Unicode text (a lone surrogate): no database stores it`);
      return v;
    case 'number':
      if (!Number.isFinite(v))
        throw inputError(
          `${pathText(path)} is ${v}, not a number MindsDB can store (JSON has none; JavaScript would send null): ` +
            `send null for no value`,
        );
      return Object.is(v, -0) ? 0 : v;
    case 'boolean':
    case 'undefined':
      return v;
    case 'bigint':
      return bigint(v, path);
    case 'symbol':
    case 'function':
      throw inputError(
        `${pathText(path)} is a ${typeof v}, which has no JSON form (JavaScript would drop it silently): send text, ` +
          `a number, a boolean, null, an object or an array`,
      );
    default:
      break;
  }
  if (v === null || isRawJson(v)) return v;
  const obj = v as object;
  if (depth >= MAX_DEPTH) throw inputError(`${pathText(path)} is nested more than ${MAX_DEPTH} levels deep`);
  if (ancestors.includes(obj))
    throw inputError(`${pathText(path)} refers back to an object that contains it (a cycle): JSON cannot write it`);
  const tag = Object.prototype.toString.call(obj);
  if (tag === '[object Date]') {
    const time = (obj as Date).getTime();
    if (Number.isNaN(time)) throw inputError(`${pathText(path)} is an invalid Date`);
    return (obj as Date).toISOString();
  }
  if (Array.isArray(obj)) return writeArray(obj, path, ancestors, depth);
  if (
    Buffer.isBuffer(obj) ||
    ArrayBuffer.isView(obj) ||
    tag === '[object ArrayBuffer]' ||
    tag === '[object SharedArrayBuffer]'
  ) {
    throw inputError(
      `${pathText(path)} is binary data (${tag.slice(8, -1)}): MindsDB's JSON has no bytes, and a base64 text would ` +
        `be stored as that text; send text (e.g. buffer.toString('utf8')), or upload it with the file node`,
    );
  }
  if (tag === '[object Map]')
    throw inputError(
      `${pathText(path)} is a Map, which JSON would write as {} (its entries lost): convert it first, e.g. ` +
        `Object.fromEntries(map)`,
    );
  if (tag === '[object Set]')
    throw inputError(
      `${pathText(path)} is a Set, which JSON would write as {} (its members lost): convert it first, e.g. [...set]`,
    );
  if (!isRootPrototype(Object.getPrototypeOf(obj))) {
    const name = (obj as { constructor?: { name?: unknown } }).constructor?.name;
    throw inputError(
      `${pathText(path)} is an instance of ${typeof name === 'string' && name ? name : tag.slice(8, -1)}, not plain ` +
        `JSON: convert it to text, a number, or a plain object first`,
    );
  }
  return writeObject(obj as Record<string, unknown>, path, ancestors, depth);
}

/** A prototype with no prototype of its own: Object.prototype of any realm, or none (Object.create(null)). */
function isRootPrototype(proto: unknown): boolean {
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function bigint(v: bigint, path: Path): unknown {
  if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  if (v < INT64_MIN || v > INT64_MAX) {
    throw inputError(
      `${pathText(path)} is the integer ${v}, beyond the 64-bit range MindsDB binds exactly (it would read a float ` +
        `and lose digits): send it as text`,
    );
  }
  return RAW.rawJSON(v.toString());
}

function writeArray(list: unknown[], path: Path, ancestors: object[], depth: number): unknown[] {
  ancestors.push(list);
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    // A hole or undefined keeps its place as null, as JSON.stringify writes it.
    const w = item === undefined ? null : write(item, { up: path, key: i }, ancestors, depth + 1);
    if (out === undefined && (w !== item || !(i in list))) out = list.slice(0, i);
    if (out !== undefined) out.push(w);
  }
  ancestors.pop();
  return out ?? list;
}

function writeObject(
  obj: Record<string, unknown>,
  path: Path,
  ancestors: object[],
  depth: number,
): Record<string, unknown> {
  ancestors.push(obj);
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = obj[key];
    const w = write(item, { up: path, key }, ancestors, depth + 1);
    if (out === undefined && w !== item) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = obj[keys[j]];
    }
    if (out !== undefined && w !== undefined)
      Object.defineProperty(out, key, { value: w, enumerable: true, writable: true, configurable: true });
  }
  ancestors.pop();
  // undefined values stay in an unchanged object: JSON.stringify leaves them out as the rule does.
  return out ?? obj;
}
