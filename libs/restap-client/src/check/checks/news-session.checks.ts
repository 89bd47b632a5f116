import { CONTENT_TYPE_JSON, ERROR_INVALID_SESSION_ID, ERROR_MISSING_SESSION_ID, SESSION_ID_HEADER } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { describe, expect400 } from '../check.probe';
import { newsReadScoped, newsWriteScoped } from '../check.predicates';
import type { CheckDefinition } from '../check.types';
import { isRecord } from '../../catalog/catalog.validator';
import { firstPage, postNews, postProbeItem } from './news.probes';
import { BAD_SESSION_IDS } from './sessions.checks';

const MISSING_RULE =
  'A server that requires it MUST (a) declare the requirement in its discovery document (see Discovery), and (b) respond 400 {"error":"missing_session_id"} when it is omitted.';

/** Spec, "Relation to /news": session-scoped feeds, tested only when the catalog declares them. */
export const newsSessionChecks: CheckDefinition[] = [
  {
    id: 'news-session.missing-id-get',
    level: 'MUST',
    group: 'news-session',
    title: 'GET news without session_id is 400 missing_session_id',
    spec: MISSING_RULE,
    when: 'GET news declares sessions.required',
    applies: newsReadScoped,
    async run(ctx: CheckContext) {
      const probe = await ctx.request({ method: 'GET', endpoint: ctx.newsReadEndpoint(), headers: { Accept: CONTENT_TYPE_JSON } });
      expect400(ctx, probe, ERROR_MISSING_SESSION_ID, 'GET news without session_id');
    },
  },
  {
    id: 'news-session.missing-id-post',
    level: 'MUST',
    group: 'news-session',
    title: 'POST news without session_id is 400 missing_session_id',
    spec: MISSING_RULE,
    when: 'POST news declares sessions.required',
    applies: newsWriteScoped,
    async run(ctx: CheckContext) {
      const probe = await postNews(ctx, { Accept: CONTENT_TYPE_JSON }, 'conformance probe (no session)');
      expect400(ctx, probe, ERROR_MISSING_SESSION_ID, 'POST news without session_id');
    },
  },
  {
    id: 'news-session.invalid-id',
    level: 'MUST',
    group: 'news-session',
    title: 'GET news with a malformed session_id is 400 invalid_session_id',
    spec: 'A server that receives a session_id outside these bounds MUST reject the request with 400 {"error":"invalid_session_id"}',
    when: 'GET news declares sessions.required',
    applies: newsReadScoped,
    async run(ctx: CheckContext) {
      const probe = await ctx.request({
        method: 'GET',
        endpoint: ctx.newsReadEndpoint(),
        headers: { Accept: CONTENT_TYPE_JSON, [SESSION_ID_HEADER]: BAD_SESSION_IDS.short },
      });
      expect400(ctx, probe, ERROR_INVALID_SESSION_ID);
    },
  },
  {
    id: 'news-session.header-accepted',
    level: 'SHOULD',
    group: 'news-session',
    title: 'the Restap-Session-Id header is accepted on GET news',
    spec: 'A server that scopes /news by session SHOULD also accept the session_id from a request header — the RECOMMENDED header name is Restap-Session-Id',
    when: 'GET news declares sessions.required',
    applies: newsReadScoped,
    async run(ctx: CheckContext) {
      // On a scoped feed the shared first page is exactly this request: the session in Restap-Session-Id.
      const probe = await firstPage(ctx);
      ctx.expect(probe.status === 200, `GET news with Restap-Session-Id: ${describe(probe)}`);
    },
  },
  {
    id: 'news-session.header-precedence',
    level: 'SHOULD',
    group: 'news-session',
    title: 'the header wins over a session_id query parameter',
    spec: 'When a server accepts both, the header takes precedence over a query parameter.',
    when: 'GET news declares sessions.required',
    applies: newsReadScoped,
    async run(ctx: CheckContext) {
      // Header = the checker's session (which holds the probe item), query = another valid session:
      // the answer must be the header's feed. A malformed query value would test validation instead.
      const other = crypto.randomUUID();
      const { nonce } = ctx.newsWrite ? await postProbeItem(ctx) : { nonce: undefined };
      const probe = await ctx.request({
        method: 'GET',
        endpoint: ctx.newsReadEndpoint(),
        query: { session_id: other },
        headers: { Accept: CONTENT_TYPE_JSON, [SESSION_ID_HEADER]: await ctx.sessionForNews() },
      });
      ctx.expect(probe.status === 200, `header session + another session_id in the query: ${describe(probe)}`);
      if (nonce === undefined) return 'accepted (no posted item to tell the feeds apart)';
      const items = isRecord(probe.json) && Array.isArray(probe.json.items) ? (probe.json.items as unknown[]) : [];
      const found = items.some((i) => isRecord(i) && typeof i.message === 'string' && i.message.includes(nonce));
      ctx.expect(found, "the answer is not the header session's feed (the probe item posted there is missing)");
    },
  },
];
