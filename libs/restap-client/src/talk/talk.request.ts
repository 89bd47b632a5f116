import { isRecord } from '../catalog/catalog.validator';
import { RestapError } from '../errors/restap.error';
import { sleep, toRestapError } from '../http/abort';
import { errorFromResponse, isJsonMediaType, mediaTypeOf, readJson, type Transport } from '../http/transport';
import type { TalkEvent, TalkRequest } from '../interfaces/talk.interface';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE, LAST_EVENT_ID_HEADER, SESSION_ID_HEADER } from '../restap.constants';
import { readSseFrames } from './sse.reader';
import { toTalkEvent } from './talk-event.parser';
import type { TalkStreamSource, TalkTransportKind } from './talk.stream';

/** Everything needed to send one /talk turn. */
export interface TalkPlan {
  transport: Transport;
  endpoint: string;
  body: TalkRequest;
  headers: Record<string, string>;
  /** Accept header of the first attempt. */
  accept: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Resumes a dropped SSE stream (nestjs-restap's `x-restap-resume` extension, when the catalog
   * declares it): `endpoint` is its URL template (`/talk/{message_id}`).
   */
  resume?: { endpoint: string; attempts: number; backoffMs: number };
}

/** What a stream has shown so far: enough to ask for the rest of it. */
interface StreamState {
  lastEventId?: string;
  messageId?: string;
  sessionId?: string;
}

/** Failures of the connection, not of the turn: the stream can be picked up where it broke. */
const RESUMABLE = new Set(['network_error', 'stream_interrupted']);
/** Longest wait between two resume attempts, ms. */
const MAX_BACKOFF_MS = 8_000;

/**
 * Sends a /talk turn and turns whatever comes back into talk events: SSE frames as they arrive,
 * or synthetic start/delta/end/done events from a JSON body. A 406 to a stream request is retried
 * once asking for JSON (spec: a server without streaming MAY answer 406 to text/event-stream).
 */
export function openTalk(plan: TalkPlan): TalkStreamSource {
  let kind: TalkTransportKind | undefined;
  const timeoutMs = plan.timeoutMs ?? plan.transport.timeoutMs;

  async function* events(): AsyncGenerator<TalkEvent> {
    const send = (accept: string): Promise<Response> =>
      plan.transport.send({
        method: 'POST',
        endpoint: plan.endpoint,
        body: plan.body,
        headers: { ...plan.headers, Accept: accept },
        signal: plan.signal,
        timeoutMs,
      });
    let response = await send(plan.accept);
    if (response.status === 406 && plan.accept !== CONTENT_TYPE_JSON) {
      await response.body?.cancel().catch(() => undefined);
      response = await send(CONTENT_TYPE_JSON);
    }
    if (!response.ok) throw await errorFromResponse(response);
    const type = mediaTypeOf(response);
    if (type === CONTENT_TYPE_SSE) {
      kind = 'sse';
      const state: StreamState = { sessionId: plan.body.session_id };
      try {
        yield* sseEvents(response, timeoutMs, state);
      } catch (error) {
        if (!canResume(plan, state, error)) throw error;
        yield* resumeEvents(plan, state, timeoutMs, error);
      }
    } else if (isJsonMediaType(type)) {
      kind = 'json';
      yield* jsonEvents(await readJson(response, timeoutMs));
    } else {
      await response.body?.cancel().catch(() => undefined);
      throw new RestapError('unexpected_content_type', `/talk answered "${type || 'no Content-Type'}"; expected JSON or SSE`, {
        status: response.status,
      });
    }
  }

  return { events: events(), transport: () => kind };
}

async function* sseEvents(response: Response, timeoutMs: number, state?: StreamState): AsyncGenerator<TalkEvent> {
  if (!response.body) throw new RestapError('stream_interrupted', 'The SSE response has no body', { status: response.status });
  try {
    for await (const frame of readSseFrames(response.body)) {
      if (state && frame.id) {
        // A resumed stream starts after the last id seen; never hand a frame over twice.
        if (state.lastEventId !== undefined && /^\d+$/.test(frame.id) && Number(frame.id) <= Number(state.lastEventId)) continue;
        state.lastEventId = frame.id;
      }
      const event = toTalkEvent(frame);
      if (state && event.event === 'message.start') {
        state.messageId ??= event.id || undefined;
        if (typeof event.session_id === 'string') state.sessionId = event.session_id;
      }
      yield event;
      // `done` is terminal: stop reading even if the server keeps the connection open.
      if (event.event === 'done') return;
    }
  } catch (error) {
    throw toRestapError(error, response.url, timeoutMs);
  }
  throw new RestapError('stream_interrupted', 'The stream ended before the "done" event', { status: response.status });
}

/** A stream that broke off can be resumed when the server declared how and told us the turn's message id and session. */
function canResume(plan: TalkPlan, state: StreamState, error: unknown): boolean {
  return Boolean(
    plan.resume &&
      plan.resume.attempts > 0 &&
      !plan.signal?.aborted &&
      state.messageId &&
      state.sessionId &&
      state.lastEventId &&
      error instanceof RestapError &&
      RESUMABLE.has(error.code),
  );
}

/**
 * Asks for the rest of a dropped stream (`GET` on the resume endpoint with the session in
 * `Restap-Session-Id` and `Last-Event-ID`), with exponential backoff, until `done` or the attempts
 * run out. An answer that says the turn cannot be resumed (4xx) ends it with that error; a stream
 * that breaks again after some progress starts the count afresh.
 */
async function* resumeEvents(plan: TalkPlan, state: StreamState, timeoutMs: number, failure: unknown): AsyncGenerator<TalkEvent> {
  const resume = plan.resume as NonNullable<TalkPlan['resume']>;
  let lastError = failure;
  for (let attempt = 1; attempt <= resume.attempts; attempt++) {
    await sleep(Math.min(resume.backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS), plan.signal).catch(() => {
      throw lastError;
    });
    let response: Response;
    try {
      response = await plan.transport.send({
        method: 'GET',
        endpoint: resume.endpoint.replace('{message_id}', encodeURIComponent(state.messageId as string)),
        headers: { ...plan.headers, Accept: CONTENT_TYPE_SSE, [SESSION_ID_HEADER]: state.sessionId as string, [LAST_EVENT_ID_HEADER]: state.lastEventId as string },
        signal: plan.signal,
        timeoutMs,
      });
    } catch (error) {
      if (!(error instanceof RestapError) || !RESUMABLE.has(error.code)) throw error;
      lastError = error;
      continue;
    }
    if (!response.ok) {
      const error = await errorFromResponse(response);
      if (response.status < 500 && response.status !== 429) throw error;
      lastError = error;
      continue;
    }
    if (mediaTypeOf(response) !== CONTENT_TYPE_SSE) {
      await response.body?.cancel().catch(() => undefined);
      throw new RestapError('unexpected_content_type', 'A resumed /talk stream did not answer with SSE', { status: response.status });
    }
    const before = state.lastEventId;
    try {
      yield* sseEvents(response, timeoutMs, state);
      return;
    } catch (error) {
      if (!(error instanceof RestapError) || !RESUMABLE.has(error.code) || plan.signal?.aborted) throw error;
      lastError = error;
      if (state.lastEventId !== before) attempt = 0;
    }
  }
  throw lastError;
}

/**
 * The JSON fallback, replayed as the same events a streaming server would have sent. The message
 * id is the body's `message_id` / `id`, or `''` when the server gave none.
 */
async function* jsonEvents(body: unknown): AsyncGenerator<TalkEvent> {
  if (!isRecord(body) || typeof body.reply !== 'string') {
    throw new RestapError('invalid_response', '/talk answered JSON without a string "reply"', { details: body });
  }
  const id = typeof body.message_id === 'string' ? body.message_id : typeof body.id === 'string' ? body.id : '';
  const session = typeof body.session_id === 'string' ? { session_id: body.session_id } : {};
  yield { event: 'message.start', id, ...session };
  yield { event: 'message.delta', id, text: body.reply };
  yield { event: 'message.end', id };
  yield { event: 'done', ...session };
}
