import { majorVersion } from './agent-body';
import type { RequestOptions } from '../connection';
import type { MindsDBClient } from './client';
import { inputError, MindsDBError, segment } from '../shared';
import { SseParser } from '../answers';
import { withStoredName } from './names';

/** The message format every MindsDB version reads (26.x also takes role/content). */
export interface AgentMessage {
  question: string;
  answer: string | null;
}

/**
 * How a question is asked: the request's options, and a signal that stops a streamed answer (the
 * node's msg.reset): the stream is closed at once, its connection freed, and the call rejects with
 * the signal's reason. An answer that is not streamed cannot be taken back once asked; the caller
 * drops it when it comes.
 */
export interface AgentRequestOptions extends RequestOptions {
  signal?: AbortSignal;
}

export interface Completion {
  /** The agent's final answer. */
  answer: string;
  /** The server's whole answer (non-streaming), or the list of streamed chunks. */
  response: unknown;
}

/**
 * A question string, or a conversation as {question, answer} pairs or {role, content} messages,
 * into the {question, answer} list the server reads: the last question is the one being asked.
 */
export function toAgentMessages(payload: unknown): AgentMessage[] {
  if (typeof payload === 'string') {
    if (payload.trim() === '') throw inputError('the question in msg.payload is empty');
    return [{ question: payload, answer: null }];
  }
  if (!Array.isArray(payload) || payload.length === 0) {
    throw inputError(
      'msg.payload must be a question (string) or an array of {question, answer} or {role, content} messages',
    );
  }
  const out: AgentMessage[] = [];
  for (const [i, m] of payload.entries()) {
    if (typeof m !== 'object' || m === null) throw inputError(`msg.payload[${i}] must be a message object`);
    const msg = m as Record<string, unknown>;
    if (typeof msg.question === 'string') {
      out.push({ question: msg.question, answer: typeof msg.answer === 'string' ? msg.answer : null });
    } else if (typeof msg.role === 'string' && typeof msg.content === 'string') {
      if (msg.role === 'user') out.push({ question: msg.content, answer: null });
      else if (msg.role === 'assistant' && out.length > 0 && out[out.length - 1].answer === null)
        out[out.length - 1].answer = msg.content;
      // system and other roles have no place in MindsDB's question/answer format
    } else {
      throw inputError(`msg.payload[${i}] needs a "question", or a "role" and "content"`);
    }
  }
  if (out.length === 0) throw inputError('msg.payload has no question in it');
  out[out.length - 1].answer = null;
  return out;
}

const completionsPath = (project: string, agent: string) =>
  `/projects/${segment(project, 'project')}/agents/${segment(agent, 'agent')}/completions`;

/**
 * Asks an agent and returns its final answer. A completion that may have reached the server is
 * never repeated, even with Retry POST on (each one may be a billed LLM call): a provider error or
 * any other answer is reported as it is. Only what cannot have started it is sent again: a
 * connection that was never made, and a 429 or 503 (the server refused it; Retry-After honoured). Only when the server
 * has no plain completions route at all (404 without a JSON body, or 405) is the question asked once through the
 * streaming route instead.
 */
export function completeAgent(
  client: MindsDBClient,
  project: string,
  agent: string,
  messages: AgentMessage[],
  options?: AgentRequestOptions,
): Promise<Completion> {
  // One deadline for the lookup and the question; the agent as MindsDB stored its name: its 404
  // comes before any LLM call, so asking again under the stored name is free.
  const { signal, ...request } = options ?? {};
  const opts = client.withDeadline(request);
  return withStoredName(
    client,
    { resource: 'agent', project },
    agent,
    (name) => completeAs(client, project, name, messages, opts, signal),
    { request: opts },
  );
}

async function completeAs(
  client: MindsDBClient,
  project: string,
  agent: string,
  messages: AgentMessage[],
  opts: RequestOptions,
  signal?: AbortSignal,
): Promise<Completion> {
  // MindsDB 26.1.0's plain endpoint fails every answered completion (500 KeyError 'trace_id'
  // after the LLM has answered); its stream works, so 26.x is asked there, once. An unknown
  // version keeps the plain endpoint.
  const version = await client.serverVersion(opts).catch(() => '');
  if (majorVersion(version) >= 26) return streamAs(client, project, agent, messages, () => undefined, opts, signal);
  let response: { message?: { content?: unknown } };
  try {
    response = await client.request<{ message?: { content?: unknown } }>(
      'POST',
      completionsPath(project, agent),
      { messages },
      { ...opts, repeat: 'never' },
    );
  } catch (err) {
    if (err instanceof MindsDBError && err.kind === 'unsupported') {
      return streamAs(client, project, agent, messages, () => undefined, opts, signal);
    }
    throw err;
  }
  const content = response?.message?.content;
  if (typeof content !== 'string') {
    throw new MindsDBError('unexpected answer from the agent: no message.content', {
      kind: 'invalid-response',
      method: 'POST',
      path: completionsPath(project, agent),
    });
  }
  return { answer: content, response };
}

/**
 * Streams an agent's answer (server-sent events) and calls `onChunk` for each event. The final
 * answer is `output` (MindsDB 25) or the text/content of a `type: "data"` chunk (26); the
 * stream ends at the first `type: "end"`; an in-band error ends it with an error.
 */
export function streamAgent(
  client: MindsDBClient,
  project: string,
  agent: string,
  messages: AgentMessage[],
  onChunk: (chunk: Record<string, unknown>) => void,
  options?: AgentRequestOptions,
): Promise<Completion> {
  // A missing agent is a 404 before the stream opens (no chunk sent yet), so asking again is safe.
  const { signal, ...opts } = options ?? {};
  return withStoredName(
    client,
    { resource: 'agent', project },
    agent,
    (name) => streamAs(client, project, name, messages, onChunk, opts, signal),
    { request: opts },
  );
}

async function streamAs(
  client: MindsDBClient,
  project: string,
  agent: string,
  messages: AgentMessage[],
  onChunk: (chunk: Record<string, unknown>) => void,
  opts?: RequestOptions,
  signal?: AbortSignal,
): Promise<Completion> {
  const path = `${completionsPath(project, agent)}/stream`;
  // Never repeated once it may have reached the server, whatever Retry POST says (see above).
  const res = await client.stream('POST', path, { messages }, { ...opts, repeat: 'never' });
  // Stopped while the answer was on its way, or later: the body is destroyed, which ends the read
  // below with the signal's reason, and release() frees the connection.
  const stop = (): void => {
    (res.body as { destroy?(err?: Error): void }).destroy?.(signal?.reason as Error);
  };
  if (signal?.aborted) {
    res.release();
    throw signal.reason;
  }
  signal?.addEventListener('abort', stop, { once: true });
  // One event is at most the server node's Max response; the whole stream is under the deadline.
  const parser = new SseParser(client.maxResponseBytes, path);
  // One decoder for the whole stream: a multi-byte character split across network chunks is
  // completed by the next chunk instead of becoming U+FFFD in each half.
  const decoder = new TextDecoder('utf-8');
  const chunks: Array<Record<string, unknown>> = [];
  let answer: string | undefined;
  try {
    for await (const piece of res.body as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(piece, { stream: true }))) {
        // Events already read are not handed on after a stop.
        if (signal?.aborted) throw signal.reason;
        if (event.type === 'end') return finish(answer, chunks, path);
        if (event.type === 'error' || (event.error !== undefined && event.type === undefined)) {
          const text = client.redactor.text(String(event.content ?? event.error ?? 'unknown error'));
          throw new MindsDBError(`the agent failed: ${text}`, {
            kind: 'http',
            status: 200,
            serverMessage: text,
            method: 'POST',
            path,
          });
        }
        chunks.push(event);
        onChunk(event);
        if (typeof event.output === 'string') answer = event.output;
        else if (event.type === 'data') {
          const text =
            typeof event.text === 'string' ? event.text : typeof event.content === 'string' ? event.content : undefined;
          if (text !== undefined) answer = text;
        }
      }
    }
    if (signal?.aborted) throw signal.reason;
    return finish(answer, chunks, path);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof MindsDBError) throw err;
    throw new MindsDBError(`the agent's answer stream broke off: ${err instanceof Error ? err.message : String(err)}`, {
      kind: 'network',
      method: 'POST',
      path,
    });
  } finally {
    signal?.removeEventListener('abort', stop);
    res.release();
  }
}

function finish(answer: string | undefined, chunks: Array<Record<string, unknown>>, path: string): Completion {
  if (answer === undefined) {
    throw new MindsDBError("the agent's stream ended without an answer", {
      kind: 'invalid-response',
      method: 'POST',
      path,
    });
  }
  return { answer, response: chunks };
}
