import { invalid } from './sql-answer';

/** What the connection asks of the server once and keeps: its version. */

/**
 * The server's MindsDB version ("26.1.0"), from the public /status, asked once and kept: the
 * agent node sends a different body to 25.x and 26.x, the SQL stream asks 26.1+ for jsonlines. A
 * failed lookup is not kept, and a connection failure forgets the version (`forget`), because
 * the server that comes back may be another one.
 */
export class VersionCache {
  private version: Promise<string> | undefined;

  constructor(
    private readonly lookup: (timeoutMs?: number) => Promise<{ mindsdb_version?: unknown }>,
    private readonly path: string,
  ) {}

  /** The version; a lookup it has to make gets `timeoutMs` (the first asker's time budget). */
  get(timeoutMs?: number): Promise<string> {
    if (!this.version) {
      const p = this.lookup(timeoutMs).then((s) => {
        if (typeof s.mindsdb_version !== 'string' || !/^\d+\./.test(s.mindsdb_version)) {
          throw invalid('GET', this.path, 'a mindsdb_version such as "26.1.0"', s.mindsdb_version);
        }
        return s.mindsdb_version;
      });
      p.catch(() => {
        if (this.version === p) this.version = undefined;
      });
      this.version = p;
    }
    return this.version;
  }

  forget(): void {
    this.version = undefined;
  }
}
