import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { ident, MindsDBError, segment } from '../shared';
import { recordNotFound } from './gone';
import { sqlOf } from './sql';

/**
 * A model's training after the statement that started it (CREATE MODEL, RETRAIN, FINETUNE through
 * ./models.ts): following it until it ends, and, when it ends in error, removing what the
 * statement made, so a failed training leaves the server as it was (or its error says what is left).
 */

type Json = Record<string, unknown>;

/** Enough of an abort signal for the wait: whether it fired, and a listener that can be removed. */
export interface AbortLike {
  readonly aborted: boolean;
  /** Calls `listener` once on abort; returns a function that removes it. */
  onAbort(listener: () => void): () => void;
}

/** Where a training run can be followed: the model and the version it creates. */
export interface TrainingRun {
  project: string;
  model: string;
  version: number;
  /**
   * What the statement made, which MindsDB keeps when its training fails (docs/real-mindsdb.md,
   * "What a failed operation leaves"): the model (a CREATE MODEL) or a new version of it (RETRAIN,
   * FINETUNE). A wait that sees the training fail removes it again. Undefined when the statement may
   * have replaced something that existed before (CREATE OR REPLACE): then it is named, not removed.
   */
  made?: 'model' | 'version';
}

export interface WaitOptions {
  /** Give up after this many ms (the model keeps training in MindsDB). */
  deadlineMs: number;
  /** First pause between polls; grows by half each time up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Called after each poll with the model's status and the seconds waited. */
  onProgress?: (status: string, seconds: number) => void;
  /** Ends the wait early (the node is closing). */
  signal?: AbortLike;
  timeoutMs?: number;
}

/** The collection of a project's models (REST). */
export function modelsPath(project: string): string {
  return `/projects/${segment(project, 'project')}/models`;
}

/** The record of one version of a model whose name is known as stored (no lookup on every poll). */
export async function trainingRecord(client: MindsDBClient, run: TrainingRun, opts?: RequestOptions): Promise<Json> {
  try {
    return await client.request<Json>(
      'GET',
      `${modelsPath(run.project)}/${segment(`${run.model}.${run.version}`, 'model name')}`,
      undefined,
      opts,
    );
  } catch (err) {
    if (!(err instanceof MindsDBError)) throw err;
    throw new MindsDBError(
      `training ${run.project}.${run.model} version ${run.version} started and goes on in MindsDB, but reading its ` +
        `record failed: ${err.message}`,
      { ...err, stored: true },
    );
  }
}

/**
 * Polls the version `run` until its status is complete or error, with growing pauses and a
 * deadline. Resolves with the model record when complete; an error status, the deadline and an
 * abort reject with an error that says so.
 */
export async function waitForTraining(client: MindsDBClient, run: TrainingRun, w: WaitOptions): Promise<Json> {
  const started = Date.now();
  let delay = Math.max(10, w.firstDelayMs ?? 1000);
  const maxDelay = Math.max(delay, w.maxDelayMs ?? 10_000);
  const label = `${run.project}.${run.model} version ${run.version}`;
  let status = 'unknown';
  for (;;) {
    if (w.signal?.aborted) throw aborted(label);
    const record = await trainingRecord(client, run, { timeoutMs: w.timeoutMs });
    status = typeof record?.status === 'string' ? record.status : 'unknown';
    const seconds = Math.round((Date.now() - started) / 1000);
    w.onProgress?.(status, seconds);
    if (status === 'complete') return record;
    if (status === 'error') {
      const why = client.redactor.text(String(record.error ?? 'no reason given'));
      const after = await discardRun(client, run, { timeoutMs: w.timeoutMs });
      throw new MindsDBError(`training ${label} failed: ${why} (${after.text})`, {
        kind: 'http',
        status: 200,
        serverMessage: why,
        method: 'GET',
        path: `${modelsPath(run.project)}/${run.model}.${run.version}`,
        leftover: after.leftover,
        // What the training made is stored only when removing it failed.
        stored: after.leftover !== undefined,
      });
    }
    const left = w.deadlineMs - (Date.now() - started);
    if (left <= 0) {
      throw new MindsDBError(
        `${label} is still "${status}" after ${seconds} s, the wait's limit; it goes on training in MindsDB`,
        { kind: 'timeout', code: 'ETIMEDOUT', stored: true },
      );
    }
    await pause(Math.min(delay, left), w.signal);
    delay = Math.min(maxDelay, Math.round(delay * 1.5));
  }
}

/**
 * Removes what a training run whose training failed had made (TrainingRun.made): MindsDB keeps a
 * model whose first training failed (status error, active), and a CREATE MODEL of that name would
 * then be refused; a RETRAIN or FINETUNE that failed leaves an inactive version in error. Says
 * what was done, or what is left and how to remove it when it cannot be removed.
 */
export async function discardRun(
  client: MindsDBClient,
  run: TrainingRun,
  opts: RequestOptions,
): Promise<{ text: string; leftover?: string[] }> {
  const p = ident(run.project, 'the project');
  const m = ident(run.model, 'the model name');
  if (run.made === 'model') {
    try {
      await client.request('DELETE', `${modelsPath(run.project)}/${segment(run.model, 'model name')}`, undefined, {
        ...opts,
        gone: recordNotFound,
      });
      return {
        text:
          `the node removed the model ${run.project}.${run.model} that this training made, so the server is as ` +
          `it was`,
      };
    } catch (err) {
      return {
        text:
          `removing the model ${run.project}.${run.model} that it made failed too (${errorText(err)}): delete it ` +
          `with the model node, or DROP MODEL ${p}.${m}`,
        leftover: [`model ${run.project}.${run.model} (status error): DROP MODEL ${p}.${m}`],
      };
    }
  }
  const v = ident(String(run.version), 'the version');
  if (run.made === 'version') {
    try {
      await sqlOf(client, { query: `DROP MODEL ${p}.${m}.${v}`, context: { db: run.project } }, opts);
      return {
        text:
          `the node removed version ${run.version} that this training made; the model's other versions are as ` +
          `they were`,
      };
    } catch (err) {
      return {
        text: `removing version ${run.version} that it made failed too (${errorText(err)}): DROP MODEL ${p}.${m}.${v}`,
        leftover: [
          `version ${run.version} of model ${run.project}.${run.model} (status error): DROP MODEL ${p}.${m}.${v}`,
        ],
      };
    }
  }
  return {
    text:
      `MindsDB keeps version ${run.version} of ${run.project}.${run.model} in error (a CREATE OR REPLACE ` +
      `replaced what was there before): DROP MODEL ${p}.${m} removes the model`,
    leftover: [`model ${run.project}.${run.model} version ${run.version} (status error): DROP MODEL ${p}.${m}`],
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function aborted(label: string): MindsDBError {
  return new MindsDBError(`stopped waiting for ${label}: the node was closed (redeploy); training goes on in MindsDB`, {
    kind: 'closed',
    stored: true,
  });
}

function pause(ms: number, signal?: AbortLike): Promise<void> {
  return new Promise((resolve) => {
    let remove = (): void => undefined;
    const timer = setTimeout(() => {
      remove();
      resolve();
    }, ms);
    if (signal)
      remove = signal.onAbort(() => {
        clearTimeout(timer);
        resolve();
      });
  });
}
