import { randomBytes } from 'node:crypto';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import {
  RawBody,
  inputError,
  isRawJson,
  matchName,
  ambiguousNameError,
  MindsDBError,
  plainJson,
  segment,
} from '../shared';
import { fileNotFound } from './gone';
import { hasCapitals, storedName, storedNames, withStoredName } from './names';

/** What is uploaded: the bytes, and the file name whose extension tells MindsDB the format. */
export interface FileContent {
  data: Buffer;
  /** e.g. "readings.csv"; MindsDB reads the format from the extension. */
  filename: string;
  /** Rows, when the content was built from row objects. */
  rows?: number;
}

export type RowFormat = 'csv' | 'json';

export interface UploadResult {
  uploaded: true;
  name: string;
  /** The table to query: files.<name>. */
  table: string;
  bytes: number;
  rows?: number;
  /** An existing file of that name was replaced (see FilesApi.upload). */
  replaced: boolean;
  /** The temporary copy a replace could not delete at its end (the replace itself succeeded). */
  leftover?: string;
}

/** MindsDB stores a file as files.<name>; the name is a table name, so it has no extension. */
export function checkFileName(name: string): string {
  // The server's own test (Python's Path(name).suffix): a dot that is neither first nor last.
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) {
    throw inputError(
      `the file name "${name}" has an extension: MindsDB names a file like a table (files.<name>), use ` +
        `"${name.slice(0, dot)}"`,
    );
  }
  return name;
}

/**
 * Turns msg.payload into a file: an array of row objects (written as CSV or JSON), a CSV or JSON
 * string, or a Buffer with its file name (any format MindsDB reads: csv, json, xlsx, parquet, txt,
 * pdf). Strings and rows need no file name: one is made from the table name.
 */
export function fileContent(payload: unknown, name: string, format: RowFormat, filename?: string): FileContent {
  if (Buffer.isBuffer(payload)) {
    if (!filename)
      throw inputError('msg.payload is a Buffer: set msg.filename (e.g. "readings.csv") so MindsDB knows its format');
    if (payload.length === 0) throw inputError('msg.payload is an empty Buffer: there is nothing to upload');
    return { data: payload, filename: baseName(filename) };
  }
  if (typeof payload === 'string') {
    const text = payload.trim();
    if (text === '') throw inputError('msg.payload is an empty string: there is nothing to upload');
    const isJson = text.startsWith('[') || text.startsWith('{');
    if (isJson) {
      try {
        JSON.parse(text);
      } catch {
        throw inputError('msg.payload looks like JSON (it starts with [ or {) but does not parse');
      }
    }
    return {
      data: Buffer.from(payload, 'utf8'),
      filename: filename ? baseName(filename) : `${name}.${isJson ? 'json' : 'csv'}`,
    };
  }
  if (Array.isArray(payload)) {
    if (payload.length === 0) throw inputError('msg.payload is an empty array: there are no rows to upload');
    // The one rule for values that are not plain JSON (../shared/json-value.ts), named by their place in msg.payload.
    const rows = plainJson(payload, 'msg.payload') as unknown[];
    rows.forEach((row, i) => {
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        throw inputError(
          `msg.payload[${i}] must be a row object ({column: value}), not ` +
            `${Array.isArray(row) ? 'an array' : row === null ? 'null' : typeof row}`,
        );
      }
    });
    const text = format === 'json' ? JSON.stringify(rows) : toCsv(rows as Array<Record<string, unknown>>);
    return { data: Buffer.from(text, 'utf8'), filename: `${name}.${format}`, rows: rows.length };
  }
  throw inputError(
    `msg.payload must be an array of row objects, a CSV or JSON string, or a Buffer with msg.filename, not ` +
      `${payload === null ? 'null' : typeof payload}`,
  );
}

/** The last path component of a user-given file name (MindsDB refuses names with a path). */
function baseName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  if (base === '' || base === '.' || base === '..') throw inputError(`msg.filename "${filename}" is not a file name`);
  return base;
}

/**
 * Rows as CSV (RFC 4180): the header is every column in the order first seen, a missing or null
 * value is an empty field, objects and arrays are written as JSON; a value that is not plain JSON
 * follows the one rule (../shared/json-value.ts: dates as ISO text, big integers as their digits …).
 */
export function toCsv(input: ReadonlyArray<Record<string, unknown>>, where = 'the rows'): string {
  const rows = plainJson(input, where) as ReadonlyArray<Record<string, unknown>>;
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row))
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
  }
  if (columns.length === 0) throw inputError('the rows in msg.payload have no columns');
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows)
    lines.push(columns.map((c) => csvField(cellText(Object.hasOwn(row, c) ? row[c] : undefined))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** One cell of a plain-JSON row (toCsv made it so). */
function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isRawJson(v)) return v.rawJSON;
  return JSON.stringify(v);
}

function csvField(s: string): string {
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A multipart/form-data body: text fields, then the file. */
export function multipartBody(
  fields: Record<string, string>,
  file: { field: string; filename: string; data: Buffer },
): RawBody {
  const boundary = `----mindsdb-node-red-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  const quoted = (s: string) => s.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c));
  for (const [k, v] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(k)}"\r\n\r\n${v}\r\n`, 'utf8'),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; ` +
        `filename="${quoted(file.filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      'utf8',
    ),
  );
  parts.push(file.data);
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'));
  return new RawBody(Buffer.concat(parts), `multipart/form-data; boundary=${boundary}`);
}

type Json = Record<string, unknown>;

/**
 * The files API (`/api/files/`): uploads become tables files.<name>. The upload sends only the
 * multipart fields every version reads (`file`, `source_type`, `original_file_name`): MindsDB 26
 * answers 400 to any other field.
 */
export class FilesApi {
  constructor(private readonly client: MindsDBClient) {}

  list(opts?: RequestOptions): Promise<Json[]> {
    return this.client.request<Json[]>('GET', '/files/', undefined, opts);
  }

  /**
   * Deletes a file by its name as stored: 25.14.1 deletes only by the exact stored spelling (an
   * upload of `SensorLog` is stored as `sensorlog`), 26.1.0 by any case. A name with capitals is
   * looked up first, so both versions delete and report the same file; a 400 for a lower-case
   * name (a file made by SQL keeps its capitals) is tried once more with the listed spelling.
   */
  async delete(name: string, opts?: RequestOptions): Promise<{ deleted: true; name: string }> {
    const first = hasCapitals(name) ? await storedName(this.client, { resource: 'file' }, name, opts) : name;
    try {
      return await withStoredName(
        this.client,
        { resource: 'file' },
        first,
        async (stored) => {
          await this.client.request('DELETE', `/files/${segment(stored, 'file name')}`, undefined, {
            ...opts,
            gone: fileNotFound,
          });
          return { deleted: true as const, name: stored };
        },
        { missing: isMissingFile, request: opts },
      );
    } catch (err) {
      // MindsDB answers a missing file with 400 "Error deleting file", not 404.
      if (isMissingFile(err)) {
        throw new MindsDBError(
          `file "${name}" does not exist (MindsDB answered: ${(err as MindsDBError).serverMessage})`,
          { ...(err as MindsDBError) },
        );
      }
      throw err;
    }
  }

  /**
   * Uploads `content` as files.<name>. Without `replace`, an existing name is an error. With it,
   * an existing file of that name (MindsDB compares names without case) is replaced; MindsDB has no
   * rename and no overwrite (25.14.1 and 26.1.0: PUT answers 400 "File already exists", there is
   * no download to restore from), so the old file is deleted only once the new content is known to
   * be accepted:
   *   1. the content is uploaded as a temporary file, files.<name>__replacing_<random> (lower-case,
   *      as MindsDB stores uploads): a file MindsDB refuses (format, size, a dropped connection)
   *      fails here, and files.<name> is as it was;
   *   2. files.<name> is deleted, by its stored spelling;  3. the content is uploaded again as files.<name>;
   *   4. the temporary file is deleted.
   * An error after step 1 says what was done and where the new content is. All steps share the
   * message's one deadline. The result names the file and table as MindsDB stored them: 25.14.1
   * and 26.1.0 store an upload's name lower-cased, so a name with capitals is read back from the listing.
   */
  async upload(
    name: string,
    content: FileContent,
    replace: boolean,
    maxBytes: number,
    options?: RequestOptions,
  ): Promise<UploadResult> {
    checkFileName(name);
    if (content.data.length > maxBytes) {
      throw inputError(
        `the file is ${megabytes(content.data.length)} MB, over the upload limit of ${megabytes(maxBytes)} MB set in ` +
          `the node`,
      );
    }
    const opts = this.client.withDeadline(options);
    let existing: string | undefined;
    if (replace) {
      const match = matchName(name, await storedNames(this.client, { resource: 'file' }, opts));
      if (match.found === 'ambiguous') throw ambiguousNameError('file', name, undefined, match.names);
      if (match.found !== 'none') existing = match.name;
    }
    const stored = async (replaced: boolean): Promise<UploadResult> => {
      // The file is stored by now: a failure to read its spelling back says so (msg.mindsdb.stored).
      const as = hasCapitals(name)
        ? await this.storedAfterUpload(name, opts).catch((err: unknown) => {
            throw err instanceof MindsDBError ? new MindsDBError(err.message, { ...err, stored: true }) : err;
          })
        : name;
      const result: UploadResult = {
        uploaded: true,
        name: as,
        table: `files.${as}`,
        bytes: content.data.length,
        replaced,
      };
      if (content.rows !== undefined) result.rows = content.rows;
      return result;
    };
    if (existing === undefined) {
      await this.put(name, content, opts).catch((err: unknown) => {
        throw explainUploadError(err, name);
      });
      return stored(false);
    }

    const temporary = `${name.toLowerCase()}__replacing_${randomBytes(4).toString('hex')}`;
    await this.put(temporary, content, opts).catch((err: unknown) => {
      throw halfWay(explainUploadError(err, name), `nothing was changed: files.${name} is as it was`, false);
    });
    try {
      await this.delete(existing, opts);
    } catch (err) {
      const cleaned = await this.delete(temporary, opts).then(
        () => true,
        () => false,
      );
      throw halfWay(
        err,
        `files.${name} was not replaced: deleting the old file ` +
          `failed${cleaned ? '' : `; the new content stays in files.${temporary}`}`,
        false,
      );
    }
    try {
      await this.put(name, content, opts);
    } catch (err) {
      throw halfWay(
        explainUploadError(err, name),
        `files.${name} was deleted, but uploading its new content failed; the new content is in files.${temporary}`,
      );
    }
    const result = await stored(true);
    try {
      await this.delete(temporary, opts);
    } catch {
      result.leftover = `files.${temporary}`;
    }
    return result;
  }

  /** One upload: never repeated once it may have reached the server (it may have been stored). */
  private put(name: string, content: FileContent, opts: RequestOptions): Promise<unknown> {
    const body = multipartBody(
      { source_type: 'file', original_file_name: content.filename },
      { field: 'file', filename: content.filename, data: content.data },
    );
    return this.client.request('PUT', `/files/${segment(name, 'file name')}`, body, opts);
  }

  /** The spelling MindsDB gave an upload of `name` (it is listed by then), or `name` if it lists none. */
  private async storedAfterUpload(name: string, opts?: RequestOptions): Promise<string> {
    const match = matchName(name, await storedNames(this.client, { resource: 'file' }, opts));
    return match.found === 'exact' || match.found === 'case' ? match.name : name;
  }
}

/** MindsDB answers a delete of a file it does not have (or not by that spelling) with 400 "Error deleting file". */
function isMissingFile(err: unknown): boolean {
  return err instanceof MindsDBError && fileNotFound(err);
}

/**
 * An error of a step of a multi-step operation, saying what the operation had already done; `stored`:
 * whether the new content is stored as the file, when that step's verdict does not say it (a step before the upload).
 */
function halfWay(err: unknown, done: string, stored?: boolean): unknown {
  if (!(err instanceof MindsDBError)) return err;
  return new MindsDBError(`${err.message} (${done})`, stored === undefined ? err : { ...err, stored });
}

function megabytes(n: number): string {
  return (n / 1048576).toFixed(n < 1048576 ? 2 : 1);
}

/** The server's terse 400s and 413s, said so that the user knows what to change. */
function explainUploadError(err: unknown, name: string): unknown {
  if (!(err instanceof MindsDBError)) return err;
  const server = err.serverMessage ?? '';
  if (err.status === 400 && /already exists/i.test(server)) {
    return new MindsDBError(
      `file "${name}" already exists in MindsDB: turn on "Replace an existing file" in the node, or delete it first`,
      { ...err },
    );
  }
  if (err.status === 413) {
    return new MindsDBError(
      `the server (or a proxy in front of it) refused the upload as too large (HTTP 413): ${server}`,
      { ...err },
    );
  }
  if (err.status === 400 && /extension/i.test(server)) {
    return new MindsDBError(`MindsDB refused the file name "${name}": ${server}`, { ...err });
  }
  return err;
}
