import { CONTENT_TYPE_SSE, SSE_REQUIRED_EVENTS } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { streams } from '../check.predicates';
import type { CheckDefinition } from '../check.types';
import { NO_SSE_RESPONSE, streamedFrames } from './sse.probes';

const CORE = new Set<string>(SSE_REQUIRED_EVENTS);

/** `message.start → message.delta ×7 → done`: runs of one event collapsed so details stay short. */
function summarise(names: string[]): string {
  const runs: string[] = [];
  for (let i = 0; i < names.length; ) {
    let j = i;
    while (j < names.length && names[j] === names[i]) j++;
    runs.push(j - i > 1 ? `${names[i]} ×${j - i}` : names[i]);
    i = j;
  }
  return runs.join(' → ') || '(no events)';
}

/** Spec, "SSE event vocabulary for /talk" and "SSE wire format". */
export const sseChecks: CheckDefinition[] = [
  {
    id: 'sse.frame-format',
    level: 'MUST',
    group: 'sse',
    title: 'every frame has an event name and a JSON object in data',
    spec: 'A streaming /talk response is a sequence of SSE frames. Each frame has an event: name and a data: line carrying a JSON object.',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const list = await streamedFrames(ctx);
      const bad = list.flatMap((f, i) => (f.name && f.payload ? [] : [`#${i + 1} ${f.name || '(no event:)'}`]));
      ctx.expect(bad.length === 0, `malformed frames: ${bad.join(', ')}`);
      return `${list.length} frames`;
    },
  },
  {
    id: 'sse.event-field',
    level: 'SHOULD',
    group: 'sse',
    title: 'data carries an "event" field equal to the event name',
    spec: 'event: message.start / data: {"event":"message.start","id":"msg_1"} (SSE wire format)',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const bad = (await streamedFrames(ctx)).filter((f) => f.payload && f.payload.event !== f.name);
      ctx.expect(bad.length === 0, `mismatched "event" field in ${bad.map((f) => f.name).join(', ')}`);
    },
  },
  {
    id: 'sse.event-order',
    level: 'MUST',
    group: 'sse',
    title: 'message.start → message.delta+ → message.end → done, done last',
    spec: 'A minimal exchange emits message.start → one or more message.delta → message.end → done.',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const list = await streamedFrames(ctx);
      const error = list.find((f) => f.name === 'error');
      ctx.expect(!error, `the stream reported an error: ${JSON.stringify(error?.payload?.message ?? '')}`);
      const core = list.filter((f) => CORE.has(f.name)).map((f) => f.name);
      const shape = core.map((n) => ({ 'message.start': 'S', 'message.delta': 'D', 'message.end': 'E', done: 'F' })[n] ?? '?').join('');
      ctx.expect(/^SD+EF$/.test(shape), `event order was ${summarise(core)}`);
      ctx.expect(list[list.length - 1]?.name === 'done', `"${list[list.length - 1]?.name}" came after done`);
      return summarise(core);
    },
  },
  {
    id: 'sse.single-message-id',
    level: 'MUST',
    group: 'sse',
    title: 'start, deltas and end carry one string message id',
    spec: 'message.start { "id": "<message id>" } · message.delta { "id": "<message id>", "text": "<chunk>" } · message.end { "id": "<message id>" }',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const ids = (await streamedFrames(ctx)).filter((f) => f.name.startsWith('message.')).map((f) => f.payload?.id);
      ctx.expect(ids.length > 0 && ids.every((id) => typeof id === 'string'), 'a message.* event has no string "id"');
      ctx.expect(new Set(ids).size === 1, `ids differ: ${[...new Set(ids)].join(', ')}`);
      return `id ${String(ids[0])}`;
    },
  },
  {
    id: 'sse.delta-text',
    level: 'MUST',
    group: 'sse',
    title: 'every message.delta carries string text',
    spec: 'message.delta — A partial text chunk to append — { "id": "<message id>", "text": "<chunk>" }',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const deltas = (await streamedFrames(ctx)).filter((f) => f.name === 'message.delta');
      ctx.expect(deltas.every((f) => typeof f.payload?.text === 'string'), 'a message.delta has no string "text"');
      return `${deltas.length} deltas`;
    },
  },
  {
    id: 'sse.no-cache',
    level: 'SHOULD',
    group: 'sse',
    title: 'the stream is sent with Cache-Control: no-cache',
    spec: 'HTTP/1.1 200 OK / Content-Type: text/event-stream / Cache-Control: no-cache (concrete example exchange)',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const probe = await ctx.talkOnce(CONTENT_TYPE_SSE);
      if (probe.type !== CONTENT_TYPE_SSE) ctx.skip(NO_SSE_RESPONSE);
      const value = probe.headers.get('cache-control') ?? '';
      ctx.expect(/no-cache|no-store/.test(value), `Cache-Control is "${value}"`);
    },
  },
];
