import { isRecord } from '../../catalog/catalog.validator';
import { ACCEPT_STREAM_OR_JSON, CONTENT_TYPE_JSON, CONTENT_TYPE_SSE } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { describe, type Probe } from '../check.probe';
import { hasTalk, streams } from '../check.predicates';
import type { CheckDefinition } from '../check.types';

/** Asserts a complete JSON talk reply: 200, application/json, string `reply`. */
function expectJsonReply(ctx: CheckContext, probe: Probe, accept: string): string {
  ctx.expect(probe.status === 200, `Accept "${accept}": expected 200, got ${describe(probe)}`);
  ctx.expect(probe.type === CONTENT_TYPE_JSON, `Accept "${accept}": expected application/json, got ${describe(probe)}`);
  ctx.expect(isRecord(probe.json) && typeof probe.json.reply === 'string', `Accept "${accept}": no string "reply" in ${describe(probe)}`);
  return `reply ${JSON.stringify(probe.json.reply.slice(0, 40))}`;
}

/** Spec, "Talk" and "Content negotiation". */
export const talkChecks: CheckDefinition[] = [
  {
    id: 'talk.json-reply',
    level: 'MUST',
    group: 'talk',
    title: 'POST talk {message} with Accept application/json returns a JSON reply',
    spec: 'application/json — Client wants a complete JSON response (the default, unchanged) — Return a normal complete JSON body',
    when: 'talk advertised',
    applies: hasTalk,
    async run(ctx: CheckContext) {
      return expectJsonReply(ctx, await ctx.talkOnce(CONTENT_TYPE_JSON), CONTENT_TYPE_JSON);
    },
  },
  {
    id: 'talk.default-is-json',
    level: 'MUST',
    group: 'talk',
    title: 'Accept */* (and no Accept) returns JSON, never a stream',
    spec: 'The default (no Accept header, */*, or application/json) is a complete JSON response. Streaming must be requested explicitly by listing text/event-stream in Accept.',
    when: 'talk advertised',
    applies: hasTalk,
    async run(ctx: CheckContext) {
      // fetch() always sends "Accept: */*" when none is set, so */* also stands for "no Accept".
      return expectJsonReply(ctx, await ctx.talkOnce('*/*'), '*/*');
    },
  },
  {
    id: 'talk.rejects-missing-message',
    level: 'SHOULD',
    group: 'talk',
    title: 'a body without message is a 4xx, not a reply or a 5xx',
    spec: 'Validate input data on both client and server (Security)',
    when: 'talk advertised',
    applies: hasTalk,
    async run(ctx: CheckContext) {
      const probe = await ctx.request({ method: 'POST', endpoint: ctx.talkEndpoint(), headers: { Accept: CONTENT_TYPE_JSON }, body: {} });
      ctx.expect(probe.status >= 400 && probe.status < 500, `expected 4xx, got ${describe(probe)}`);
      return `${probe.status}`;
    },
  },
  {
    id: 'negotiation.streams-when-advertised',
    level: 'MUST',
    group: 'negotiation',
    title: 'Accept text/event-stream gets an SSE stream when streaming is advertised',
    spec: 'text/event-stream — Client wants a streaming SSE response — Stream SSE if supported; otherwise 406 Not Acceptable',
    when: 'streaming advertised',
    applies: streams,
    async run(ctx: CheckContext) {
      const probe = await ctx.talkOnce(CONTENT_TYPE_SSE);
      ctx.expect(probe.status === 200 && probe.type === CONTENT_TYPE_SSE, `streaming is advertised but the answer was ${describe(probe)}`);
    },
  },
  {
    id: 'negotiation.406-without-streaming',
    level: 'MUST',
    group: 'negotiation',
    title: 'Accept text/event-stream alone gets 406 when streaming is not offered',
    spec: 'If streaming is requested but unsupported, the server MAY return application/json when the client also accepts it; otherwise it MUST return 406 Not Acceptable.',
    when: 'talk advertised without streaming',
    applies: (catalog) => hasTalk(catalog) && !streams(catalog),
    async run(ctx: CheckContext) {
      const probe = await ctx.talkOnce(CONTENT_TYPE_SSE);
      if (probe.type === CONTENT_TYPE_SSE && probe.status === 200) return 'streams although the catalog does not advertise it';
      ctx.expect(probe.status === 406, `expected 406, got ${describe(probe)}`);
    },
  },
  {
    id: 'negotiation.fallback-never-406',
    level: 'MUST',
    group: 'negotiation',
    title: 'Accept "text/event-stream, application/json" is never 406',
    spec: 'text/event-stream, application/json — Client prefers streaming but accepts JSON fallback — Stream SSE if supported, else return application/json',
    when: 'talk advertised',
    applies: hasTalk,
    async run(ctx: CheckContext) {
      const probe = await ctx.talkOnce(ACCEPT_STREAM_OR_JSON);
      ctx.expect(probe.status !== 406, 'answered 406 although application/json was acceptable');
      if (probe.type === CONTENT_TYPE_SSE) {
        ctx.expect(probe.status === 200, `SSE with status ${probe.status}`);
        return 'streamed';
      }
      expectJsonReply(ctx, probe, ACCEPT_STREAM_OR_JSON);
      return 'JSON';
    },
  },
];
