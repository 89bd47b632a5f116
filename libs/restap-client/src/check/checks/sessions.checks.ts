import { isRecord } from '../../catalog/catalog.validator';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE, ERROR_INVALID_SESSION_ID, SESSION_ID_PATTERN } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { describe, errorCodeOf, expect400, type Probe } from '../check.probe';
import { streams, talkSessions } from '../check.predicates';
import type { CheckDefinition } from '../check.types';
import { estimateEntropyBits, MIN_ESTIMATED_BITS } from '../session-entropy';
import { streamedFrames } from './sse.probes';

const FORMAT_RULE =
  'It MUST match ^[A-Za-z0-9._-]{16,128}$ — URL‑safe characters, 16 to 128 bytes. A server that receives a session_id outside these bounds MUST reject the request with 400 {"error":"invalid_session_id"}';

/** Ids just outside the pattern: one too short, one too long, one with forbidden characters. */
export const BAD_SESSION_IDS = {
  short: 'abcdefghijklmno', // 15
  long: 'a'.repeat(129),
  chars: 'bad session id!!', // 16, with spaces and "!"
} as const;

/** Ids just inside the pattern, which no server may reject. */
const EDGE_SESSION_IDS = ['Ab3._-Ab3._-Ab3.', 'Q7.z_9-K'.repeat(16)];

/** The session_id a fresh JSON turn minted (fails the rule when there is none). */
async function mintedJson(ctx: CheckContext, accept = CONTENT_TYPE_JSON): Promise<string> {
  const probe = await ctx.talkOnce(accept);
  if (probe.status !== 200 || !isRecord(probe.json)) ctx.skip(`no JSON reply to inspect (${describe(probe)})`);
  const id = probe.json.session_id;
  ctx.expect(typeof id === 'string', `sessions are advertised but the JSON reply has no session_id: ${describe(probe)}`);
  return id;
}

function expectInvalidSessionId(ctx: CheckContext, probe: Probe, what: string): string {
  expect400(ctx, probe, ERROR_INVALID_SESSION_ID, what);
  return '400 invalid_session_id';
}

function rejects(id: keyof typeof BAD_SESSION_IDS, title: string): CheckDefinition {
  return {
    id: `sessions.rejects-${id === 'chars' ? 'bad-chars' : `${id}-id`}`,
    level: 'MUST',
    group: 'sessions',
    title,
    spec: FORMAT_RULE,
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      const probe = await ctx.postTalk(CONTENT_TYPE_JSON, { sessionId: BAD_SESSION_IDS[id] });
      return expectInvalidSessionId(ctx, probe, `session_id ${JSON.stringify(BAD_SESSION_IDS[id].slice(0, 20))}`);
    },
  };
}

/** Spec, "Sessions (optional)". */
export const sessionsChecks: CheckDefinition[] = [
  {
    id: 'sessions.minted-in-json',
    level: 'MUST',
    group: 'sessions',
    title: 'a minted session_id is returned in the JSON body',
    spec: 'If the client omits it, the server MAY mint one. When it does, it MUST return the session_id so the client can continue: in the JSON TalkResponse body',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      await mintedJson(ctx);
    },
  },
  {
    id: 'sessions.minted-pattern',
    level: 'MUST',
    group: 'sessions',
    title: 'minted session_id matches ^[A-Za-z0-9._-]{16,128}$',
    spec: 'It MUST match ^[A-Za-z0-9._-]{16,128}$ — URL‑safe characters, 16 to 128 bytes.',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      const id = await mintedJson(ctx);
      ctx.expect(SESSION_ID_PATTERN.test(id), `minted id of ${id.length} characters does not match the pattern`);
      return `${id.length} characters`;
    },
  },
  {
    id: 'sessions.minted-unguessable',
    level: 'MUST',
    group: 'sessions',
    title: 'minted session_ids look random (≥122 bits, heuristic)',
    spec: 'A client‑generated session_id SHOULD carry at least 122 bits of entropy; one that a server mints MUST.',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      const first = await mintedJson(ctx);
      const second = await mintedJson(ctx, '*/*');
      ctx.expect(first !== second, 'two fresh conversations were given the same session_id');
      const bits = Math.min(estimateEntropyBits(first, second), estimateEntropyBits(second, first));
      ctx.expect(bits >= MIN_ESTIMATED_BITS, `about ${Math.round(bits)} random bits visible; 122 are required`);
      return `~${Math.round(bits)} bits`;
    },
  },
  {
    id: 'sessions.minted-in-sse',
    level: 'MUST',
    group: 'sessions',
    title: 'message.start and done carry the minted session_id',
    spec: 'When it does, it MUST return the session_id … in the SSE message.start event and the done event when streaming.',
    when: 'sessions and streaming advertised',
    applies: (catalog) => talkSessions(catalog) && streams(catalog),
    async run(ctx: CheckContext) {
      const frames = await streamedFrames(ctx);
      const sessionOf = (name: string): unknown => frames.find((f) => f.name === name)?.payload?.session_id;
      const start = sessionOf('message.start');
      const done = sessionOf('done');
      ctx.expect(typeof start === 'string', 'message.start has no session_id');
      ctx.expect(typeof done === 'string', 'done has no session_id');
      ctx.expect(start === done, 'message.start and done carry different session_ids');
      ctx.expect(SESSION_ID_PATTERN.test(start), 'the streamed session_id does not match the pattern');
    },
  },
  {
    id: 'sessions.echo-continues',
    level: 'MUST',
    group: 'sessions',
    title: 'echoing the returned session_id continues the thread',
    spec: 'The client echoes the returned session_id back on its next POST /talk turn.',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      const id = await mintedJson(ctx);
      const probe = await ctx.postTalk(CONTENT_TYPE_JSON, { sessionId: id, message: 'Say hello again' });
      ctx.expect(probe.status === 200 && isRecord(probe.json), `echoing the session_id failed: ${describe(probe)}`);
      const returned = probe.json.session_id;
      ctx.expect(returned === undefined || returned === id, 'the server answered with a different session_id');
    },
  },
  {
    id: 'sessions.accepts-any-valid-id',
    level: 'MUST',
    group: 'sessions',
    title: 'ids of 16 and 128 allowed characters are not rejected',
    spec: 'Servers MUST NOT impose a stricter shape (for example, requiring a specific UUID layout) — any value within these bounds is valid.',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      for (const id of EDGE_SESSION_IDS) {
        const probe = await ctx.postTalk(CONTENT_TYPE_JSON, { sessionId: id });
        ctx.expect(errorCodeOf(probe) !== ERROR_INVALID_SESSION_ID && probe.status < 500,
          `a valid ${id.length}-character session_id was refused: ${describe(probe)}`);
      }
    },
  },
  rejects('short', 'a 15-character session_id is 400 invalid_session_id'),
  rejects('long', 'a 129-character session_id is 400 invalid_session_id'),
  rejects('chars', 'a session_id with spaces or "!" is 400 invalid_session_id'),
  {
    id: 'sessions.rejects-in-sse',
    level: 'MUST',
    group: 'sessions',
    title: 'an invalid session_id is the same 400 when streaming is requested',
    spec: 'MUST return that same error regardless of transport (JSON and SSE alike).',
    when: 'sessions and streaming advertised',
    applies: (catalog) => talkSessions(catalog) && streams(catalog),
    async run(ctx: CheckContext) {
      const probe = await ctx.postTalk(CONTENT_TYPE_SSE, { sessionId: BAD_SESSION_IDS.short });
      return expectInvalidSessionId(ctx, probe, 'Accept text/event-stream with a 15-character session_id');
    },
  },
  {
    id: 'sessions.header-on-talk',
    level: 'SHOULD',
    group: 'sessions',
    title: 'talk reads the Restap-Session-Id header',
    spec: 'the RECOMMENDED header name is Restap-Session-Id — so clients can keep it out of the query string. (Request headers apply to every method …)',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      const probe = await ctx.postTalk(CONTENT_TYPE_JSON, { headerSessionId: BAD_SESSION_IDS.short });
      return expectInvalidSessionId(ctx, probe, 'an invalid id in Restap-Session-Id');
    },
  },
  {
    id: 'sessions.not-logged',
    level: 'MUST',
    group: 'sessions',
    title: 'session_id is kept out of shared logs',
    spec: 'A session_id MUST be treated as a secret: servers MUST NOT write it to shared logs',
    when: 'sessions advertised',
    applies: talkSessions,
    async run(ctx: CheckContext) {
      ctx.skip('not observable over HTTP: review the server');
    },
  },
];
