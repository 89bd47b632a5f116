import { isRecord } from '../../catalog/catalog.validator';
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE, ERROR_MISSING_SESSION_ID } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { describe, errorCodeOf } from '../check.probe';
import { hasNewsRead, hasNewsWrite, newsReadScoped } from '../check.predicates';
import type { CheckDefinition } from '../check.types';
import { firstPage, newsHeaders, postNews, postProbeItem, wholeFeed } from './news.probes';

const NEVER_STREAMS = 'Only POST /talk may stream its response (optional, via SSE). /news never triggers a reply and never streams.';

/** Spec, "The /news Endpoint" and "Key Difference: /talk vs /news". */
export const newsChecks: CheckDefinition[] = [
  {
    id: 'news.get-shape',
    level: 'MUST',
    group: 'news',
    title: 'GET news returns {items: [], timestamp}',
    spec: 'GET /news - Poll for updates (read-only; no reply) … Returns any completed jobs or status updates: { "items": [...], "timestamp": 1703012350000 }',
    when: 'GET news advertised',
    applies: hasNewsRead,
    async run(ctx: CheckContext) {
      const probe = await firstPage(ctx);
      ctx.expect(probe.status === 200 && probe.type === CONTENT_TYPE_JSON, `expected 200 application/json, got ${describe(probe)}`);
      ctx.expect(isRecord(probe.json) && Array.isArray(probe.json.items), 'no "items" array');
      ctx.expect(typeof probe.json.timestamp === 'number', 'no numeric "timestamp"');
      return `${probe.json.items.length} items`;
    },
  },
  {
    id: 'news.items-shape',
    level: 'SHOULD',
    group: 'news',
    title: 'items carry type and numeric timestamp; has_more is boolean',
    spec: '{ "type": "job.completed", "timestamp": 1703012345000, … } (End to End Example Flow)',
    when: 'GET news advertised',
    applies: hasNewsRead,
    async run(ctx: CheckContext) {
      const probe = await firstPage(ctx);
      if (!isRecord(probe.json) || !Array.isArray(probe.json.items)) ctx.skip('no page to inspect (see news.get-shape)');
      const hasMore = probe.json.has_more;
      ctx.expect(hasMore === undefined || typeof hasMore === 'boolean', `has_more is ${JSON.stringify(hasMore)}`);
      const bad = (probe.json.items as unknown[]).filter((i) => !isRecord(i) || typeof i.type !== 'string' || typeof i.timestamp !== 'number');
      ctx.expect(bad.length === 0, `${bad.length} items lack a string type or numeric timestamp`);
    },
  },
  {
    id: 'news.post-acknowledged',
    level: 'MUST',
    group: 'news',
    title: 'POST news stores the item and acknowledges with JSON',
    spec: 'POST /news - Write messages/replies (the agent may act on them, but never replies)',
    when: 'POST news advertised',
    applies: hasNewsWrite,
    async run(ctx: CheckContext) {
      const { probe } = await postProbeItem(ctx);
      ctx.expect(probe.status >= 200 && probe.status < 300, `expected 2xx, got ${describe(probe)}`);
      ctx.expect(isRecord(probe.json), `the acknowledgement is not a JSON object: ${describe(probe)}`);
      return `${probe.status} ${JSON.stringify(probe.json).slice(0, 60)}`;
    },
  },
  {
    id: 'news.post-no-reply',
    level: 'MUST',
    group: 'news',
    title: 'POST news answers an acknowledgement, never a reply',
    spec: 'The one thing it must never do is send a reply, because a reply could re-trigger another agent and create an endless loop.',
    when: 'POST news advertised',
    applies: hasNewsWrite,
    async run(ctx: CheckContext) {
      const { probe } = await postProbeItem(ctx);
      if (!isRecord(probe.json)) ctx.skip('no acknowledgement to inspect (see news.post-acknowledged)');
      ctx.expect(!('reply' in probe.json), 'the acknowledgement carries a "reply" field');
    },
  },
  {
    id: 'news.post-visible',
    level: 'SHOULD',
    group: 'news',
    title: 'a posted item can be read back with GET news',
    spec: 'Store messages/replies; the agent may read or act on them … GET /news - Read what\'s already happened',
    when: 'GET and POST news advertised',
    applies: (catalog) => hasNewsRead(catalog) && hasNewsWrite(catalog),
    async run(ctx: CheckContext) {
      const { nonce } = await postProbeItem(ctx);
      const found = (await wholeFeed(ctx)).some((i) => typeof i.message === 'string' && i.message.includes(nonce));
      ctx.expect(found, 'the posted probe item is not in the feed');
    },
  },
  {
    id: 'news.since-exclusive',
    level: 'MUST',
    group: 'news',
    title: 'since=T returns only items newer than T',
    spec: 'Supports since parameter: GET /news?since=1703012345000 to get only new items',
    when: 'GET news advertised',
    applies: hasNewsRead,
    async run(ctx: CheckContext) {
      const stamps = (await wholeFeed(ctx)).map((i) => i.timestamp).filter((t): t is number => typeof t === 'number');
      if (stamps.length === 0) ctx.skip('the feed is empty: nothing to filter');
      const newest = Math.max(...stamps);
      const read = async (since: number) => {
        const probe = await ctx.request({ method: 'GET', endpoint: ctx.newsReadEndpoint(), query: { since }, headers: await newsHeaders(ctx, 'read') });
        ctx.expect(isRecord(probe.json) && Array.isArray(probe.json.items), `since=${since}: ${describe(probe)}`);
        return (probe.json.items as unknown[]).filter(isRecord).map((i) => i.timestamp);
      };
      const after = await read(newest);
      ctx.expect(after.every((t) => typeof t === 'number' && t > newest), `since=${newest} returned items not newer than ${newest}`);
      const before = await read(newest - 1);
      ctx.expect(before.includes(newest), `since=${newest - 1} did not return the item at ${newest}`);
      return `since=${newest} → ${after.length} items, since=${newest - 1} → ${before.length}`;
    },
  },
  {
    id: 'news.get-not-streamed',
    level: 'MUST',
    group: 'news',
    title: 'GET news with Accept text/event-stream is not streamed',
    spec: NEVER_STREAMS,
    when: 'GET news advertised',
    applies: hasNewsRead,
    async run(ctx: CheckContext) {
      const probe = await ctx.request({ method: 'GET', endpoint: ctx.newsReadEndpoint(), headers: await newsHeaders(ctx, 'read', CONTENT_TYPE_SSE) });
      ctx.expect(probe.type !== CONTENT_TYPE_SSE, 'GET news answered text/event-stream');
      return `${probe.status} ${probe.type || ''}`.trim();
    },
  },
  {
    id: 'news.post-not-streamed',
    level: 'MUST',
    group: 'news',
    title: 'POST news with Accept text/event-stream is not streamed',
    spec: NEVER_STREAMS,
    when: 'POST news advertised',
    applies: hasNewsWrite,
    async run(ctx: CheckContext) {
      const probe = await postNews(ctx, await newsHeaders(ctx, 'write', CONTENT_TYPE_SSE), 'conformance probe (stream request)');
      ctx.expect(probe.type !== CONTENT_TYPE_SSE, 'POST news answered text/event-stream');
      return `${probe.status} ${probe.type || ''}`.trim();
    },
  },
  {
    id: 'news.global-without-session',
    level: 'SHOULD',
    group: 'news',
    title: 'a global feed is readable without session_id',
    spec: 'Servers whose news is global to the agent SHOULD accept /news without a session_id.',
    when: 'GET news advertised and not session-scoped',
    applies: (catalog) => hasNewsRead(catalog) && !newsReadScoped(catalog),
    async run(ctx: CheckContext) {
      const probe = await firstPage(ctx);
      ctx.expect(probe.status === 200, `GET news without session_id: ${describe(probe)}`);
    },
  },
  {
    id: 'news.requirement-declared',
    level: 'MUST',
    group: 'news',
    title: 'a session requirement on news is declared in the catalog',
    spec: 'A server that requires it MUST (a) declare the requirement in its discovery document',
    when: 'GET news advertised and not session-scoped',
    applies: (catalog) => hasNewsRead(catalog) && !newsReadScoped(catalog),
    async run(ctx: CheckContext) {
      const probe = await firstPage(ctx);
      ctx.expect(errorCodeOf(probe) !== ERROR_MISSING_SESSION_ID, 'GET news demands a session_id the catalog does not declare (sessions.required)');
    },
  },
  {
    id: 'news.guard-wrapping',
    level: 'SHOULD',
    group: 'news',
    title: 'news surfaced to the model is wrapped as informational-only',
    spec: 'when an implementation surfaces a /news item into the agent\'s context, it SHOULD wrap the item with an automated, system-level instruction that marks it as informational-only',
    when: 'POST news advertised',
    applies: hasNewsWrite,
    async run(ctx: CheckContext) {
      ctx.skip('not observable over HTTP: review the server');
    },
  },
];
