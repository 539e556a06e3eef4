import type { Exchange, Exchanger } from '../exchange';
import { MindsDBError, type Redactor } from '../shared';
import { JsonAnswerParser, JsonLinesParser, SqlResultStream } from '../answers';
import {
  checkSqlAnswer,
  nativeQueryRefusal,
  sqlBody,
  supportsJsonLines,
  type SqlAnswer,
  type SqlRequest,
} from './sql-answer';

/** Where an SQL statement's one outcome goes; it must not throw. */
export type SqlDone = (err: MindsDBError | null, answer?: SqlAnswer) => void;

interface SqlOptions {
  timeoutMs?: number;
  deadlineAt?: number;
  repeat?: Exchange['repeat'];
  flowControl?: boolean;
}

type MakeExchange = (method: string, path: string, text: string | undefined, opts: SqlOptions | undefined) => Exchange;

/**
 * POST {prefix}/sql/query, whole (`run`, every sql node's per-message path) or streamed
 * (`stream`). A native query first learns the server's version (see nativeQueryRefusal).
 */
export class SqlCalls {
  /** The last SQL body sent (see sqlText). */
  private last: { query: string; db: string | undefined; text: string } | undefined;

  constructor(
    private readonly exchanger: Exchanger,
    private readonly path: string,
    /** The status route's path, which a native query's version comes from. */
    private readonly statusPath: string,
    private readonly redactor: Redactor,
    private readonly maxBytes: number,
    private readonly exchangeOf: MakeExchange,
    private readonly serverVersion: (deadlineAt: number) => Promise<string>,
  ) {}

  /**
   * Runs one statement, `done` called once with the answer or the error: plain calls from here to
   * the answer (Exchanger.send). Only a native query waits for the server's version first; the
   * plain one goes straight out.
   */
  run(req: SqlRequest, opts: SqlOptions | undefined, done: SqlDone): void {
    let text: string;
    try {
      text = this.sqlText(req);
    } catch (err) {
      done(err as MindsDBError);
      return;
    }
    const exchange = this.exchangeOf('POST', this.path, text, opts);
    if (req.native)
      this.checkNative(exchange.deadlineAt).then(
        () => this.send(exchange, done),
        (err: unknown) => done(err as MindsDBError),
      );
    else this.send(exchange, done);
  }

  /**
   * Runs one statement and reads its answer as it arrives (see SqlResultStream). MindsDB ≥ 26.1 is
   * asked for `response_format: "jsonlines"`; older servers send their usual JSON body, which is
   * parsed incrementally. The request's deadline covers everything until the answer started (an
   * error answer's body included); after that, each wait for data has the same limit. The size
   * limit bounds one line (jsonlines) or one row (JSON body) instead of the whole answer.
   */
  async stream(req: SqlRequest, opts: SqlOptions | undefined): Promise<SqlResultStream> {
    const body = sqlBody(req);
    const exchange = this.exchangeOf('POST', this.path, JSON.stringify(body), opts);
    if (req.native) await this.checkNative(exchange.deadlineAt);
    // A server whose version cannot be learnt gets the request every version understands.
    const version = await this.serverVersion(exchange.deadlineAt).catch(() => undefined);
    if (supportsJsonLines(version)) {
      body.response_format = 'jsonlines';
      exchange.body = JSON.stringify(body);
    }
    const res = await this.exchanger.open(exchange, { paced: true, parkable: opts?.flowControl === true });
    const jsonLines = String(res.headers['content-type'] ?? '').includes('jsonlines');
    const parser = jsonLines
      ? new JsonLinesParser(this.path, this.maxBytes, this.redactor)
      : new JsonAnswerParser(this.path, this.maxBytes);
    const chunks = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const source = {
      next: () => chunks.next(),
      destroy: (err?: Error) => {
        res.body.destroy(err);
      },
    };
    const stream = new SqlResultStream(source, parser, exchange.timeoutMs, this.path, this.redactor, res.hold);
    try {
      await stream.open();
    } catch (err) {
      stream.close();
      throw err;
    }
    return stream;
  }

  private send(exchange: Exchange, done: SqlDone): void {
    this.exchanger.send(exchange, (err, value) => {
      if (err) {
        done(err);
        return;
      }
      let answer: SqlAnswer;
      try {
        answer = checkSqlAnswer(value, this.redactor, this.path);
      } catch (e) {
        done(e as MindsDBError);
        return;
      }
      done(null, answer);
    });
  }

  /**
   * Refuses a native query before it is sent to a server that cannot run it (nativeQueryRefusal):
   * a server before 26.0.1 would silently parse it as MindsDB SQL instead. A server whose
   * version cannot be learnt is not guessed at: the query fails with the reason.
   */
  private async checkNative(deadlineAt: number): Promise<void> {
    let version: string;
    try {
      version = await this.serverVersion(deadlineAt);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const status = this.statusPath;
      throw new MindsDBError(
        `a native query needs to know the MindsDB version first, and ${status} did not say: ${why}`,
        { kind: err instanceof MindsDBError ? err.kind : 'invalid-response', method: 'GET', path: status },
      );
    }
    const refusal = nativeQueryRefusal(version);
    if (refusal) throw new MindsDBError(refusal, { kind: 'unsupported', method: 'POST', path: this.path });
  }

  /**
   * The JSON text of an SQL request's body. A node with a fixed query sends the same text with
   * every message (no parameters, the same database): it is made once and kept, one entry.
   */
  private sqlText(req: SqlRequest): string {
    const db = req.context && Object.keys(req.context).length === 1 ? req.context.db : undefined;
    // A native query's body differs in a flag the key does not hold: never kept.
    const cacheable = !req.native && req.params === undefined && (req.context === undefined || typeof db === 'string');
    const last = this.last;
    if (cacheable && last && last.query === req.query && last.db === db) return last.text;
    const text = JSON.stringify(sqlBody(req));
    if (cacheable) this.last = { query: req.query, db: db as string | undefined, text };
    return text;
  }
}
