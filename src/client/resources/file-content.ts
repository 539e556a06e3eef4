import { randomBytes } from 'node:crypto';
import { RawBody, inputError, isRawJson, plainJson } from '../shared';

/**
 * What the file node uploads, made from msg.payload: rows as CSV or JSON text, or the bytes of a
 * Buffer; its name checked as MindsDB takes it; the multipart body it goes in. Pure: no request.
 */

/** What is uploaded: the bytes, and the file name whose extension tells MindsDB the format. */
export interface FileContent {
  data: Buffer;
  /** e.g. "readings.csv"; MindsDB reads the format from the extension. */
  filename: string;
  /** Rows, when the content was built from row objects. */
  rows?: number;
}

export type RowFormat = 'csv' | 'json';

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
