import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Yields SSE frames from a response body as soon as each one is complete, so callers can render
 * deltas live. Comments (heartbeats) are dropped by the parser. Leaving the loop early cancels the
 * body, which closes the connection instead of leaking it.
 */
export async function* readSseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // `stream: true` keeps a multi-byte character split across chunks intact.
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift() as EventSourceMessage;
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
