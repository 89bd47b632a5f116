import type { EventSourceMessage } from 'eventsource-parser';
import { isRecord } from '../../catalog/catalog.validator';
import { CONTENT_TYPE_SSE } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { parseJson } from '../check.probe';

/** Skip reason of the rules that inspect the shared stream when there was none. */
export const NO_SSE_RESPONSE = 'no SSE response to inspect (see negotiation.streams-when-advertised)';

/** One frame with its JSON payload (undefined when the data is not a JSON object). */
export interface ParsedFrame {
  name: string;
  payload?: Record<string, unknown>;
}

/**
 * The frames of the shared `Accept: text/event-stream` exchange. When that exchange was not a
 * stream the SSE rules cannot be judged: they skip, and negotiation.streams-when-advertised
 * reports the real failure once. Parsed once per run, for every rule that reads them.
 */
export function streamedFrames(ctx: CheckContext): Promise<ParsedFrame[]> {
  return ctx.once('sse:frames', async () => {
    const probe = await ctx.talkOnce(CONTENT_TYPE_SSE);
    if (probe.type !== CONTENT_TYPE_SSE || !probe.frames) ctx.skip(NO_SSE_RESPONSE);
    return probe.frames.map(parseFrame);
  });
}

function parseFrame(frame: EventSourceMessage): ParsedFrame {
  const payload = parseJson(frame.data);
  return { name: frame.event ?? '', payload: isRecord(payload) ? payload : undefined };
}
