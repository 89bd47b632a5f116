import { sessionRequired } from '../../catalog/catalog.lookup';
import { isRecord } from '../../catalog/catalog.validator';
import { CONTENT_TYPE_JSON, IDEMPOTENCY_KEY_HEADER, SESSION_ID_HEADER } from '../../restap.constants';
import type { CheckContext } from '../check.context';
import { describe, type Probe } from '../check.probe';

/** Most pages read while scanning a feed, so a huge feed cannot keep the checker busy forever. */
const MAX_PAGES = 50;

/** Headers for a news request: the session header only where the catalog requires one. */
export async function newsHeaders(ctx: CheckContext, direction: 'read' | 'write', accept = CONTENT_TYPE_JSON): Promise<Record<string, string>> {
  const capability = direction === 'read' ? ctx.newsRead : ctx.newsWrite;
  const headers: Record<string, string> = { Accept: accept };
  if (sessionRequired(capability)) headers[SESSION_ID_HEADER] = await ctx.sessionForNews();
  return headers;
}

/** POSTs a checker item (`type: restap.check`) with exactly these headers. */
export function postNews(ctx: CheckContext, headers: Record<string, string>, message: string): Promise<Probe> {
  return ctx.request({ method: 'POST', endpoint: ctx.newsWriteEndpoint(), headers, body: { type: 'restap.check', from: 'restap-check', message } });
}

/** The item the checker posts (once per run), marked with a nonce so it can be found again. */
export function postProbeItem(ctx: CheckContext): Promise<{ probe: Probe; nonce: string }> {
  return ctx.once('news:post', async () => {
    const nonce = crypto.randomUUID();
    const probe = await postNews(ctx, { ...(await newsHeaders(ctx, 'write')), [IDEMPOTENCY_KEY_HEADER]: nonce }, `conformance probe ${nonce}`);
    return { probe, nonce };
  });
}

/** GET news once (the shared first page). */
export function firstPage(ctx: CheckContext): Promise<Probe> {
  return ctx.once('news:get', async () =>
    ctx.request({ method: 'GET', endpoint: ctx.newsReadEndpoint(), headers: await newsHeaders(ctx, 'read') }));
}

/** Reads the feed to its end (following has_more), after the probe item was posted. */
export function wholeFeed(ctx: CheckContext): Promise<Record<string, unknown>[]> {
  return ctx.once('news:scan', async () => {
    if (ctx.newsWrite) await postProbeItem(ctx);
    const items: Record<string, unknown>[] = [];
    let since: number | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const probe = await ctx.request({
        method: 'GET',
        endpoint: ctx.newsReadEndpoint(),
        query: { since },
        headers: await newsHeaders(ctx, 'read'),
      });
      if (probe.status !== 200 || !isRecord(probe.json) || !Array.isArray(probe.json.items)) {
        ctx.skip(`GET news did not return a page: ${describe(probe)}`);
      }
      const pageItems = (probe.json.items as unknown[]).filter(isRecord);
      items.push(...pageItems);
      const newest = Math.max(...pageItems.map((i) => (typeof i.timestamp === 'number' ? i.timestamp : -Infinity)));
      if (probe.json.has_more !== true || !Number.isFinite(newest) || (since !== undefined && newest <= since)) break;
      since = newest;
    }
    return items;
  });
}
