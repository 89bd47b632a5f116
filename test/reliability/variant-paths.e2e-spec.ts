import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { RestapDrain } from '../../libs/restap/src/core/lifecycle/restap-drain.service';
import { contractViolation, rawRequest, type RawAnswer } from './support/raw-http';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 21, item 1 — every path Express routes to a RESTAP handler gets exactly the front door's
// treatment. Express's defaults route /TALK, /Talk/, /NEWS and /News/ to our handlers
// (case-insensitive, optional trailing slash); the front door must match them the same way: body
// parser, size and depth limits, 415, CORS, the shutdown drain, the rate limit, no X-Powered-By.
jest.setTimeout(120_000);

const TALK = ['/talk', '/TALK', '/Talk/', '/talk/', '/tAlK'];
const NEWS = ['/news', '/NEWS', '/News/', '/news/'];
const VARIANTS: Array<[string, 'talk' | 'news']> = [...TALK.map((p) => [p, 'talk'] as [string, 'talk']), ...NEWS.map((p) => [p, 'news'] as [string, 'news'])];
const ORIGIN = 'https://app.example';
const JSON_TYPE = { 'Content-Type': 'application/json' };

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** A valid body for the route with a `data` (news) or `extra` (talk) member of the given JSON text. */
const bodyWith = (route: 'talk' | 'news', member: string): string =>
  route === 'talk' ? `{"message":"hi","extra":${member}}` : `{"type":"t","data":${member}}`;
const post = (app: ReliabilityApp, path: string, body: string, headers: Record<string, string> = JSON_TYPE): Promise<RawAnswer> =>
  rawRequest(app.url, { method: 'POST', path, headers, body });
const errorOf = (answer: RawAnswer, opts: { allow5xx?: boolean } = {}): [number, string | undefined] => {
  expect(contractViolation(answer, opts)).toBeUndefined();
  expect(answer.headers['x-powered-by']).toBeUndefined();
  return [answer.status, answer.status >= 400 ? (JSON.parse(answer.text) as { error: string }).error : undefined];
};

describe('issue 21, item 1 — variant paths get exactly the front door of the canonical ones', () => {
  let db: TestDatabase;
  const apps: ReliabilityApp[] = [];
  const start = async (...args: Parameters<typeof startReliabilityApp>): Promise<ReliabilityApp> => {
    const app = await startReliabilityApp(...args);
    apps.push(app);
    return app;
  };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await db?.drop();
  });

  describe('Express defaults (case-insensitive, optional trailing slash)', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await start(db.target, { restap: { limits: { bodyBytes: 200_000 }, cors: { origins: [ORIGIN] } } });
    });

    it.each(VARIANTS)('%s: a 10,000-deep body is 400 invalid_request, not a 500 (limits.maxJsonDepth)', async (path, route) => {
      expect(errorOf(await post(app, path, bodyWith(route, nested(10_000))))).toEqual([400, 'invalid_request']);
    });

    it.each(VARIANTS)('%s: a 200-deep body is refused past depth 64 as on the canonical path', async (path, route) => {
      const answer = await post(app, path, bodyWith(route, nested(200)));
      expect(errorOf(answer)).toEqual([400, 'invalid_request']);
      expect(answer.text).toContain('64 levels');
    });

    it.each(VARIANTS)('%s: text/plain is 415 unsupported_media_type', async (path, route) => {
      expect(errorOf(await post(app, path, bodyWith(route, '1'), { 'Content-Type': 'text/plain' }))).toEqual([415, 'unsupported_media_type']);
    });

    it.each(VARIANTS)("%s: the body limit is limits.bodyBytes (413 payload_too_large past it), not Nest's 100 KB default", async (path, route) => {
      const under = await post(app, path, bodyWith(route, JSON.stringify('x'.repeat(150_000))));
      expect(errorOf(under)).toEqual([200, undefined]);
      expect(errorOf(await post(app, path, bodyWith(route, JSON.stringify('x'.repeat(210_000)))))).toEqual([413, 'payload_too_large']);
    });

    it.each(VARIANTS)('%s: CORS preflight is answered for the listed origin only', async (path, route) => {
      const preflight = (origin: string): Promise<RawAnswer> =>
        rawRequest(app.url, { method: 'OPTIONS', path, headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
      const allowed = await preflight(ORIGIN);
      expect([allowed.status, allowed.headers['access-control-allow-origin']]).toEqual([204, ORIGIN]);
      expect(allowed.headers['access-control-allow-methods']).toBe(route === 'talk' ? 'POST' : 'GET, HEAD, POST');
      expect((await preflight('https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('the rate limit counts a route whatever the spelling of its path', () => {
    it('POST /talk, /TALK then /Talk/ share one counter; GET /news and /NEWS/ too (429 on the third)', async () => {
      const app = await start(db.target, { restap: { rateLimit: { limit: 2, ttlMs: 60_000 } } });
      const talk = ['/talk', '/TALK', '/Talk/'];
      const statuses = [];
      for (const path of talk) statuses.push(errorOf(await post(app, path, '{"message":"hi"}'))[0]);
      expect(statuses).toEqual([200, 200, 429]);
      const reads = [];
      for (const path of ['/news', '/NEWS/', '/News']) reads.push((await rawRequest(app.url, { method: 'GET', path })).status);
      expect(reads).toEqual([200, 200, 429]);
      expect(app.brain.calls).toBe(2);
    });
  });

  describe('the shutdown drain covers every spelling', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await start(db.target);
      await app.app.get(RestapDrain).beforeApplicationShutdown(); // what Nest calls first on SIGTERM
    });

    it.each(VARIANTS)('%s while draining: 503 shutting_down, and the catalog still answers', async (path, route) => {
      const answer = route === 'news' ? await rawRequest(app.url, { method: 'GET', path }) : await post(app, path, '{"message":"hi"}');
      expect(errorOf(answer, { allow5xx: true })).toEqual([503, 'shutting_down']);
      expect((await rawRequest(app.url, { method: 'GET', path: '/.well-known/restap.json' })).status).toBe(200);
      expect(app.brain.calls).toBe(0);
    });
  });

  describe("a host whose router is case-sensitive and strict: the module matches as that router does", () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      const server = express();
      server.set('case sensitive routing', true);
      server.set('strict routing', true);
      app = await start(db.target, { adapter: new ExpressAdapter(server) });
    });

    it('/TALK and /NEWS are not RESTAP routes there: the host answers (404), the handler never runs', async () => {
      for (const path of ['/TALK', '/NEWS']) {
        const answer = await post(app, path, '{"message":"hi","type":"t"}', { 'Content-Type': 'text/plain' });
        expect(answer.status).toBe(404);
      }
      expect(app.brain.calls).toBe(0);
    });

    it('/talk/ is below /talk there: 404 not_found in the module shape; /talk itself answers', async () => {
      expect(errorOf(await post(app, '/talk/', '{"message":"hi"}'))).toEqual([404, 'not_found']);
      expect(app.brain.calls).toBe(0);
      expect(errorOf(await post(app, '/talk', '{"message":"hi"}'))).toEqual([200, undefined]);
    });
  });
});
