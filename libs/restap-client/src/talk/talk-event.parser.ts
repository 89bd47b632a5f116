import type { EventSourceMessage } from 'eventsource-parser';
import { isRecord } from '../catalog/catalog.validator';
import { RestapError } from '../errors/restap.error';
import type { TalkEvent } from '../interfaces/talk.interface';
import { SSE_OPTIONAL_EVENTS } from '../restap.constants';

const PRESENTATIONAL = new Set<string>(SSE_OPTIONAL_EVENTS);

/**
 * Turns one SSE frame into a typed event. The required events are checked strictly because the
 * reply is assembled from them; anything else is passed through, never fatal (spec: clients
 * "MUST safely ignore any they do not recognize").
 */
export function toTalkEvent(frame: EventSourceMessage): TalkEvent {
  let data: unknown = frame.data;
  try {
    data = JSON.parse(frame.data) as unknown;
  } catch {
    // Keep the raw text: only the required events need JSON, and they are checked below.
  }
  const payload = isRecord(data) ? data : undefined;
  const name = frame.event ?? (typeof payload?.event === 'string' ? payload.event : 'message');
  const invalid = (why: string): RestapError =>
    new RestapError('invalid_event', `Malformed "${name}" event (${why}): ${frame.data}`, { details: frame });

  switch (name) {
    case 'message.start':
    case 'message.end':
      if (typeof payload?.id !== 'string') throw invalid('missing string "id"');
      return { ...payload, event: name, id: payload.id };
    case 'message.delta':
      if (typeof payload?.id !== 'string' || typeof payload.text !== 'string') throw invalid('needs string "id" and "text"');
      return { ...payload, event: name, id: payload.id, text: payload.text };
    case 'error':
      // A server error must reach the user even if its payload is odd, so fall back to the raw text.
      return { ...payload, event: 'error', message: typeof payload?.message === 'string' ? payload.message : frame.data };
    case 'done':
      return { ...payload, event: 'done' };
    default:
      if (PRESENTATIONAL.has(name) && payload) return { ...payload, event: name } as TalkEvent;
      return { event: 'unknown', name, data };
  }
}

/** Session id carried by message.start or done, if any. */
export function sessionIdOf(event: TalkEvent): string | undefined {
  if (event.event !== 'message.start' && event.event !== 'done') return undefined;
  return typeof event.session_id === 'string' ? event.session_id : undefined;
}
