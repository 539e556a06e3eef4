import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { inputError, MindsDBError, segment } from '../shared';
import { ResourcesApi } from './records';
import { withStoredName } from './names';

/** What a job is made of; the server's own field names. */
export interface JobSpec {
  query: string;
  /** `every <n> <minute|hour|day|week|month>`; null runs the job once. */
  schedule_str: string | null;
  /** "YYYY-MM-DD HH:MM:SS" in the server's local time, or null (now). */
  start_at: string | null;
  /** "YYYY-MM-DD HH:MM:SS", or null (no end); ignored by the server without a schedule. */
  end_at: string | null;
  /** A condition: the job runs only when this query returns rows. */
  if_query: string | null;
}

const PERIODS = 'minute|minutes|min|hour|hours|day|days|week|weeks|month|months';
const SCHEDULE = new RegExp(`^every\\s+(\\d+\\s+)?(${PERIODS})$`, 'i');

/** The schedules MindsDB's job scheduler understands (checked here, so a typo fails before the request). */
export function checkSchedule(schedule: string): string {
  const s = schedule.trim().replace(/\s+/g, ' ');
  if (!SCHEDULE.test(s)) {
    throw inputError(
      `the job schedule "${schedule}" is not one MindsDB understands: use "every <number> ` +
        `<minute|hour|day|week|month>" (e.g. "every 1 day", "every 30 minutes", "every hour")`,
    );
  }
  return s.toLowerCase();
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A job's start or end as the server parses it ("%Y-%m-%d %H:%M:%S" or "%Y-%m-%d" or "now").
 * A Date or a number (epoch ms) is written in UTC; a string in ISO form loses its "T" and any
 * fraction; a string with a time zone is converted to UTC. MindsDB compares with its own local clock.
 */
export function jobDate(value: unknown, what: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number' && Number.isFinite(value)) date = new Date(value);
  else if (typeof value === 'string') {
    const s = value.trim();
    if (/^now$/i.test(s)) return 'now';
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
    const local = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?$/.exec(s);
    if (local) return `${local[1]} ${local[2]}${local[3] ?? ':00'}`;
    if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(s)) date = new Date(s);
  }
  if (!date || Number.isNaN(date.getTime())) {
    throw inputError(
      `the job's ${what} must be a date ("2026-01-31", "2026-01-31 08:00:00", an ISO time, a Date or epoch ms), not ` +
        `${JSON.stringify(value) ?? typeof value}`,
    );
  }
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

/**
 * Jobs: list, get, create and delete through the RESOURCES table; history has its own route.
 * Create always sends start_at and end_at, null when not set: every version answers 500 when
 * either key is missing.
 */
export class JobsApi {
  private readonly resources: ResourcesApi;

  constructor(private readonly client: MindsDBClient) {
    this.resources = new ResourcesApi(client);
  }

  list(project: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('job', 'list', { project }, opts);
  }

  get(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('job', 'get', { project, name }, opts);
  }

  create(project: string, name: string, spec: JobSpec, opts?: RequestOptions): Promise<unknown> {
    if (typeof spec.query !== 'string' || spec.query.trim() === '')
      throw inputError('no job query: set it in the node or in msg.payload.query');
    const job: Record<string, unknown> = { query: spec.query, start_at: spec.start_at, end_at: spec.end_at };
    if (spec.schedule_str) job.schedule_str = checkSchedule(spec.schedule_str);
    if (spec.if_query) job.if_query = spec.if_query;
    return this.resources.run('job', 'create', { project, name, payload: job }, opts).catch((err: unknown) => {
      throw explain(
        err,
        /already exists/i,
        `job "${name}" already exists in project "${project}": delete it first, or use another name`,
      );
    });
  }

  delete(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return this.resources.run('job', 'delete', { project, name }, opts).catch((err: unknown) => {
      throw explain(err, /does not exist/i, `job "${name}" does not exist in project "${project}"`);
    });
  }

  history(project: string, name: string, opts?: RequestOptions): Promise<unknown> {
    return withStoredName(
      this.client,
      { resource: 'job', project },
      name,
      (stored) =>
        this.client.request(
          'GET',
          `/projects/${segment(project, 'project')}/jobs/${segment(stored, 'job name')}/history`,
          undefined,
          opts,
        ),
      { request: opts },
    );
  }
}

/** MindsDB answers a duplicate job and a missing one with HTTP 500 and its exception's name; say what it means. */
function explain(err: unknown, pattern: RegExp, text: string): unknown {
  if (err instanceof MindsDBError && err.status === 500 && pattern.test(err.serverMessage ?? '')) {
    return new MindsDBError(`${text} (MindsDB answered: ${err.serverMessage})`, { ...err });
  }
  return err;
}
