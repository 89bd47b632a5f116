import { isRecord } from '../catalog/catalog.validator';
import { RestapError } from '../errors/restap.error';
import { toRestapError } from '../http/abort';
import { errorFromResponse, isJsonMediaType, mediaTypeOf, readJson, type Transport } from '../http/transport';
import type { TalkEvent, TalkRequest } from '../interfaces/talk.interface';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE } from '../restap.constants';
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
}

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
      yield* sseEvents(response, timeoutMs);
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

async function* sseEvents(response: Response, timeoutMs: number): AsyncGenerator<TalkEvent> {
  if (!response.body) throw new RestapError('stream_interrupted', 'The SSE response has no body', { status: response.status });
  try {
    for await (const frame of readSseFrames(response.body)) {
      const event = toTalkEvent(frame);
      yield event;
      // `done` is terminal: stop reading even if the server keeps the connection open.
      if (event.event === 'done') return;
    }
  } catch (error) {
    throw toRestapError(error, response.url, timeoutMs);
  }
  throw new RestapError('stream_interrupted', 'The stream ended before the "done" event', { status: response.status });
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
