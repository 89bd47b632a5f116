import { randomUUID } from 'node:crypto';
import { useTestDatabase } from '../support/test-database';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';

jest.setTimeout(90_000);

const send = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
  });

describe('A2A door: the host\'s guards and the module\'s rate limit apply to the endpoint, as on /talk', () => {
  const db = useTestDatabase();

  describe('a host-wide guard (APP_GUARD)', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { hostGuard: true, restap: { a2a: { enabled: true } } });
    });
    afterAll(() => app?.close());

    it('refusing gives 403 forbidden before the SDK or the handler runs; the card stays public', async () => {
      const refused = await send(app.url, { 'X-Host-Block': '1' });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: 'forbidden', message: expect.any(String) });
      expect(app.brain.calls).toBe(0);
      expect((await fetch(`${app.url}/.well-known/agent-card.json`, { headers: { 'X-Host-Block': '1' } })).status).toBe(200);
      expect((await send(app.url)).status).toBe(200);
      expect(app.brain.calls).toBe(1);
    });
  });

  describe('the rateLimit option', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { restap: { a2a: { enabled: true }, rateLimit: { limit: 2, ttlMs: 60_000 } } });
    });
    afterAll(() => app?.close());

    it('past it: 429 too_many_requests with Retry-After, before the body is read or the handler called', async () => {
      expect([(await send(app.url)).status, (await send(app.url)).status]).toEqual([200, 200]);
      const limited = await send(app.url);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await limited.json()).toEqual({ error: 'too_many_requests', message: expect.any(String) });
      expect(app.brain.calls).toBe(2);
    });
  });
});
