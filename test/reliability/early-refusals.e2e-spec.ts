import { connect } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { postTalk } from '../fixtures/talk-sse';
import { postNews } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 21, items 8 and 9 — refuse before doing the work: an over-quota request is 429 before its
// body is read (a malformed one included), a body declared over the limit is 413 at once; and no
// `X-Powered-By` on RESTAP's answers (nor anywhere in the sample).
jest.setTimeout(120_000);

/**
 * Sends a request head (and `bodyStart`, if any) over a raw socket and never the rest of the body:
 * resolves with the status line and head the server answered, and how long that took.
 */
function headOnly(base: string, head: string, bodyStart = ''): Promise<{ status: number; head: string; ms: number }> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head}\r\n\r\n${bodyStart}`));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 5 s to: ${head.split('\r\n')[0]}`));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end), ms: Date.now() - started });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const request = (method: string, path: string, headers: string[]): string => [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers].join('\r\n');

describe('issue 21, items 8 and 9 — refused before the work, and nothing about the stack', () => {
  let db: TestDatabase;
  const apps: RunningApp[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await db?.drop();
  });

  describe('item 8 — the rate limit is checked before the body is read', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { restap: { rateLimit: { limit: 1, ttlMs: 60_000 } } });
      apps.push(app);
    });

    it('over quota, a malformed body is 429 too_many_requests, not 400 invalid_json (it is never parsed)', async () => {
      expect((await postNews(app.url, { type: 't' })).status).toBe(200);
      const malformed = await postNews(app.url, '{"type": ');
      expect([malformed.status, malformed.json.error]).toEqual([429, 'too_many_requests']);
      expect((await postTalk(`${app.url}/talk`, { message: 'hi' })).status).toBe(200);
      const talk = await postTalk(`${app.url}/talk`, '{"message"');
      expect([talk.status, ((await talk.json()) as { error: string }).error]).toEqual([429, 'too_many_requests']);
      expect(app.brain.calls).toBe(1);
    });

    it('over quota, a request whose body never comes is answered 429 at once, with Retry-After, and the connection closed', async () => {
      const answer = await headOnly(app.url, request('POST', '/news', ['Content-Type: application/json', 'Content-Length: 100000']));
      expect(answer.status).toBe(429);
      expect(answer.head).toMatch(/\r\nretry-after: \d+/i);
      expect(answer.head).toMatch(/\r\nconnection: close/i);
      expect(answer.ms).toBeLessThan(3_000);
    });
  });

  describe('item 8 — a declared Content-Length over limits.bodyBytes is 413 at once', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target);
      apps.push(app);
    });

    it.each(['/news', '/talk', '/NEWS'])('POST %s with Content-Length: 1048576000: 413 payload_too_large before the body arrives', async (path) => {
      const answer = await headOnly(app.url, request('POST', path, ['Content-Type: application/json', 'Content-Length: 1048576000']), '{"type":"t","message":"');
      expect(answer.status).toBe(413);
      expect(answer.head).toMatch(/\r\ncontent-type: application\/json/i);
      expect(answer.ms).toBeLessThan(3_000);
      expect(app.brain.calls).toBe(0);
    });

    it('a body within the limit is still read and answered as before', async () => {
      expect((await postNews(app.url, { type: 't', message: 'x'.repeat(500_000) })).status).toBe(200);
    });
  });

  describe('item 9 — no X-Powered-By', () => {
    it("on the module's answers (catalog, /talk, /news, errors), while the host's own routes keep the host's choice", async () => {
      const app = await startReliabilityApp(db.target);
      apps.push(app);
      const answers = [
        await fetch(`${app.url}/.well-known/restap.json`),
        await postTalk(`${app.url}/talk`, { message: 'hi' }),
        await fetch(`${app.url}/news`),
        await fetch(`${app.url}/news`, { method: 'DELETE' }),
        await postTalk(`${app.url}/talk`, '{'),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 405, 400]);
      for (const answer of answers) expect(answer.headers.get('x-powered-by')).toBeNull();
      expect((await fetch(`${app.url}/host/ping`)).headers.get('x-powered-by')).toBe('Express');
    });

    it('nowhere in the sample app, its own routes included', async () => {
      const sample = await startSample(db.target);
      apps.push(sample);
      for (const path of ['/health/live', '/.well-known/restap.json', '/news', '/no-such-route']) {
        expect((await fetch(`${sample.url}${path}`)).headers.get('x-powered-by')).toBeNull();
      }
    });
  });
});
