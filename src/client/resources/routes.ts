import { segment } from '../shared';

/**
 * MindsDB's REST routes that are not one resource's own, below the API prefix: the one place
 * besides the resource modules that writes a REST path (the architecture test holds it). The
 * connection (client/connection) gets the routes it needs itself from here, through MindsDBClient.
 */
export const SERVER_ROUTES = {
  /** GET: version and auth state, public on every version. */
  status: '/status',
  /** POST: a session login (login mode). */
  login: '/login',
  /** GET: 200 when ready, 503 while a model trains; the health watcher's probe. */
  readiness: '/util/readiness',
  /** POST: one SQL statement. */
  sql: '/sql/query',
} as const;

/** A model's record (GET) and its predictions (POST …/predict). */
export function modelPath(project: string, model: string): string {
  return `/projects/${segment(project, 'project')}/models/${segment(model, 'model')}`;
}
