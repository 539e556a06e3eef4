import { randomBytes } from 'node:crypto';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { inputError, matchName, ambiguousNameError, MindsDBError, segment } from '../shared';
import { checkFileName, multipartBody, type FileContent } from './file-content';
import { fileNotFound } from './gone';
import { hasCapitals, storedName, storedNames, withStoredName } from './names';

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
