import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RestapException } from 'nestjs-restap';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { postTalk } from '../fixtures/talk-sse';
import { getNews, postNews } from '../fixtures/news-http';
import { HostBlockGuard, startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 6, item 8 (auth hooks) and item 4 (CORS off unless configured, never * on session-scoped /news).
jest.setTimeout(60_000);

const TOKEN = Symbol('TOKEN');
const order: string[] = [];

/** An options guard with a dependency: resolved from the host's providers. */
@Injectable()
class TokenGuard implements CanActivate {
  constructor(@Inject(TOKEN) private readonly token: string) {}
  canActivate(context: ExecutionContext): boolean {
    order.push('options');
    if (context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-token'] === this.token) return true;
    throw new RestapException(401, 'unauthorized', 'Send X-Token.');
  }
}

/** An options guard the host does not register: created by the module. Refuses with `X-Deny`. */
@Injectable()
class DenyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-deny'] === undefined;
  }
}

/** A host-wide guard that records that it ran. */
@Injectable()
class RecordingHostGuard extends HostBlockGuard {
  override canActivate(context: ExecutionContext): boolean {
    order.push('host');
    return super.canActivate(context);
  }
}

describe('issue 6 — auth hooks and CORS', () => {
  let db: TestDatabase;
  const apps: Array<{ close(): Promise<void> }> = [];
  async function keep<T extends { close(): Promise<void> }>(app: Promise<T>): Promise<T> {
    const started = await app;
    apps.push(started);
    return started;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  describe("item 8 — the host's global guards and the guards option", () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await keep(
        startReliabilityApp(db.target, {
          restap: { guards: [TokenGuard, DenyGuard] },
          providers: [{ provide: TOKEN, useValue: 's3cret' }, TokenGuard, { provide: APP_GUARD, useClass: RecordingHostGuard }],
        }),
      );
    });

    it("a host global guard (APP_GUARD) refuses /talk and /news with 403 forbidden in the module's shape", async () => {
      const talk = await postTalk(`${app.url}/talk`, { message: 'hi' }, { 'X-Host-Block': '1', 'X-Token': 's3cret' });
      expect([talk.status, await talk.json()]).toEqual([403, { error: 'forbidden', message: expect.any(String) }]);
      const news = await getNews(app.url, {}, { 'X-Host-Block': '1', 'X-Token': 's3cret' });
      expect([news.status, news.json.error]).toEqual([403, 'forbidden']);
      expect(app.brain.calls).toBe(0);
    });

    it('options.guards run after the host guards, with their own dependencies; their errors keep the shape', async () => {
      order.length = 0;
      const missing = await postTalk(`${app.url}/talk`, { message: 'hi' });
      expect([missing.status, await missing.json()]).toEqual([401, { error: 'unauthorized', message: 'Send X-Token.' }]);
      expect(order).toEqual(['host', 'options']);
      const denied = await postNews(app.url, { type: 't' }, { 'X-Token': 's3cret', 'X-Deny': '1' });
      expect([denied.status, denied.json.error]).toEqual([403, 'forbidden']);
      const ok = await postTalk(`${app.url}/talk`, { message: 'hi' }, { 'X-Token': 's3cret' });
      expect(ok.status).toBe(200);
      expect(app.brain.calls).toBe(1);
    });

    it('the catalog stays public', async () => {
      expect((await fetch(`${app.url}/.well-known/restap.json`)).status).toBe(200);
    });
  });

  describe('item 8 — the sample: optional API key (RESTAP_API_KEY), off by default', () => {
    let keyed: RunningApp;
    let open: RunningApp;
    beforeAll(async () => {
      keyed = await keep(startSample(db.target, { bench: true, apiKey: 'k-123' }));
      open = await keep(startSample(db.target, { bench: true }));
    });

    it('with a key: /talk, /news and the text capabilities need it (Bearer or X-API-Key); 401 in the shape with WWW-Authenticate', async () => {
      const without = await postTalk(`${keyed.url}/talk`, { message: 'hi' });
      expect([without.status, without.headers.get('www-authenticate'), (await without.json()).error]).toEqual([401, 'Bearer realm="restap"', 'unauthorized']);
      expect((await postTalk(`${keyed.url}/talk`, { message: 'hi' }, { Authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await postTalk(`${keyed.url}/talk`, { message: 'hi' }, { Authorization: 'Bearer k-123' })).status).toBe(200);
      expect((await getNews(keyed.url, {}, { 'X-API-Key': 'k-123' })).status).toBe(200);
      expect((await getNews(keyed.url)).status).toBe(401);
      const echo = (headers: Record<string, string>) =>
        fetch(`${keyed.url}/text/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{"text":"a"}' });
      expect([(await echo({})).status, (await echo({ 'X-API-Key': 'k-123' })).status]).toEqual([401, 200]);
    });

    it('the catalog and the health checks stay public (and out of the catalog); without a key nothing is guarded', async () => {
      const catalog = await fetch(`${keyed.url}/.well-known/restap.json`);
      expect(catalog.status).toBe(200);
      const endpoints = ((await catalog.json()) as { capabilities: Array<{ endpoint: string }> }).capabilities.map((c) => c.endpoint);
      expect(endpoints.filter((e) => e.startsWith('/health'))).toEqual([]);
      expect((await fetch(`${keyed.url}/health/ready`)).status).toBe(200);
      expect((await fetch(`${keyed.url}/health/live`)).status).toBe(200);
      expect((await postTalk(`${open.url}/talk`, { message: 'hi' })).status).toBe(200);
    });
  });

  describe('item 4 — CORS is off unless configured, and never * on session-scoped /news', () => {
    const origin = 'https://app.example';
    const preflight = (url: string) => fetch(url, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });

    it('by default no route sends Access-Control-Allow-Origin', async () => {
      const app = await keep(startReliabilityApp(db.target));
      for (const path of ['/.well-known/restap.json', '/news']) {
        expect((await fetch(`${app.url}${path}`, { headers: { Origin: origin } })).headers.get('access-control-allow-origin')).toBeNull();
      }
      expect((await postTalk(`${app.url}/talk`, { message: 'hi' }, { Origin: origin })).headers.get('access-control-allow-origin')).toBeNull();
      expect((await preflight(`${app.url}/talk`)).headers.get('access-control-allow-origin')).toBeNull();
    });

    it('cors.origins: listed origins are echoed (Vary: Origin) and preflights answered; others get nothing', async () => {
      const app = await keep(startReliabilityApp(db.target, { restap: { cors: { origins: [origin] } } }));
      const catalog = await fetch(`${app.url}/.well-known/restap.json`, { headers: { Origin: origin } });
      expect([catalog.status, catalog.headers.get('access-control-allow-origin')]).toEqual([200, origin]);
      const allowed = await fetch(`${app.url}/news`, { headers: { Origin: origin } });
      expect([allowed.headers.get('access-control-allow-origin'), allowed.headers.get('vary')]).toEqual([origin, expect.stringContaining('Origin')]);
      expect((await fetch(`${app.url}/news`, { headers: { Origin: 'https://evil.example' } })).headers.get('access-control-allow-origin')).toBeNull();
      const pre = await preflight(`${app.url}/talk`);
      expect([pre.status, pre.headers.get('access-control-allow-methods'), pre.headers.get('access-control-allow-headers')]).toEqual([204, 'POST', expect.stringContaining('Restap-Session-Id')]);
    });

    it("session-scoped /news never answers *, even when the host enables CORS for every origin", async () => {
      const app = await keep(startReliabilityApp(db.target, { restap: { news: { scope: 'session' } }, configure: (a) => a.enableCors() }));
      const session = { Origin: origin, 'Restap-Session-Id': 'cors-session-0123456789abcdef' };
      const news = await fetch(`${app.url}/news`, { headers: session });
      expect([news.status, news.headers.get('access-control-allow-origin')]).toEqual([200, null]);
      expect((await preflight(`${app.url}/news`)).headers.get('access-control-allow-origin')).toBeNull();
      expect((await fetch(`${app.url}/host/ping`, { headers: { Origin: origin } })).headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});
