import { connect } from 'node:net';
import type { RestapModuleOptions } from 'nestjs-restap';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { postNews } from '../fixtures/news-http';
import { RestapDrain } from '../../libs/restap/src/core/lifecycle/restap-drain.service';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';
import { fetchFromAnotherProcess, type FetchOutcome } from './support/other-process-fetch';

// Issue 32, item 7 — an oversize body gets a readable answer. A refusal written before the body is
// read (413 from Content-Length, 415, 429, 503) used to close the socket with the upload unread:
// the kernel's reset reached Node's fetch (undici, our client's transport) as EPIPE instead of the
// 413 JSON. Now the connection closes lingering, as nginx does, within bounds.
jest.setTimeout(180_000);

const TEN_MB = 10 * 1024 * 1024;
const TRIES = 4;

/** The outcomes, each as `status error_code` or the fetch failure. */
const summary = (outcomes: FetchOutcome[]): string[] =>
  outcomes.map((o) => (o.error ? `failed: ${o.error}` : `${o.status} ${(JSON.parse(o.body ?? '{}') as { error?: string }).error}`));

/**
 * Sends a request head over a raw socket that does not end its side when the server does (a client
 * still writing), then `feed` writes the body. Resolves with when the answer's head came and when
 * the server closed the connection (a reset or error on our writes, or the socket closed), ms after
 * the head was sent.
 */
function uploadUntilCut(base: string, head: string, feed: (write: (chunk: Buffer) => boolean) => void): Promise<{ answer: string; answeredMs: number; cutMs: number; error?: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true }, () => {
      socket.write(`${head}\r\n\r\n`);
      feed((chunk) => !socket.destroyed && socket.write(chunk, () => undefined));
    });
    let received = '';
    let answeredMs = -1;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after 20 s: ${received.slice(0, 200)}`));
    }, 20_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (answeredMs < 0 && received.includes('\r\n\r\n')) answeredMs = Date.now() - started;
    });
    const cut = (error?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: received, answeredMs, cutMs: Date.now() - started, ...(error ? { error: `${(error as NodeJS.ErrnoException).code}` } : {}) });
    };
    socket.on('error', cut);
    socket.on('close', () => cut());
  });
}

/** Sends only a request head over a raw socket; resolves with the whole answer (head and body) and how long it took. */
function answerToHead(base: string, head: string): Promise<{ answer: string; ms: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head}\r\n\r\n`));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no whole answer within 5 s: ${received.slice(0, 200)}`));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1] ?? NaN);
      if (end < 0 || received.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: received, ms: Date.now() - started });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

const postHead = (path: string, length: number): string =>
  [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${length}`].join('\r\n');

describe('issue 32, item 7 — an oversize body gets a readable answer (lingering close)', () => {
  let db: TestDatabase;
  const apps: ReliabilityApp[] = [];
  const start = async (restap: Partial<RestapModuleOptions> = {}): Promise<ReliabilityApp> => {
    const app = await startReliabilityApp(db.target, { restap: { mcp: { enabled: true }, a2a: { enabled: true }, ...restap } });
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

  describe('Node fetch, from another process, of a 10 MB body reads the refusal', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await start();
    });

    it.each(['/talk', '/news', '/mcp', '/a2a'])('POST %s: 413 payload_too_large JSON, every time', async (path) => {
      const outcomes = await fetchFromAnotherProcess(`${app.url}${path}`, TEN_MB, { tries: TRIES });
      expect(summary(outcomes)).toEqual(Array(TRIES).fill('413 payload_too_large'));
      expect(JSON.parse(outcomes[0].body ?? '')).toEqual({ error: 'payload_too_large', message: 'The request body is larger than the 1048576 bytes allowed.' });
    });

    it.each(['/talk', '/news'])('POST %s as text/plain: 415 unsupported_media_type JSON, every time', async (path) => {
      const outcomes = await fetchFromAnotherProcess(`${app.url}${path}`, TEN_MB, { contentType: 'text/plain', tries: TRIES });
      expect(summary(outcomes)).toEqual(Array(TRIES).fill('415 unsupported_media_type'));
    });

    it('on /mcp and /a2a, a body whose Content-Length is over the limit is refused before it is sent (it used to be read whole first)', async () => {
      for (const path of ['/mcp', '/a2a']) {
        const { answer, ms } = await answerToHead(app.url, postHead(path, 1_048_576_000));
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer).toMatch(/\r\nconnection: close\r\n/i);
        expect(answer).toContain('{"error":"payload_too_large"');
        expect(ms).toBeLessThan(3_000);
      }
    });
  });

  it('over the rate limit, a 10 MB body gets its 429 too_many_requests JSON', async () => {
    const app = await start({ rateLimit: { limit: 1, ttlMs: 60_000 } });
    expect((await postNews(app.url, { type: 't' })).status).toBe(200);
    const outcomes = await fetchFromAnotherProcess(`${app.url}/news`, TEN_MB, { tries: TRIES });
    expect(summary(outcomes)).toEqual(Array(TRIES).fill('429 too_many_requests'));
  });

  it('while shutting down, a 10 MB body gets its 503 shutting_down JSON', async () => {
    const app = await start();
    await app.app.get(RestapDrain).beforeApplicationShutdown(); // no open turn: draining from now on
    for (const path of ['/talk', '/news']) {
      const outcomes = await fetchFromAnotherProcess(`${app.url}${path}`, TEN_MB, { tries: TRIES });
      expect(summary(outcomes)).toEqual(Array(TRIES).fill('503 shutting_down'));
    }
  });

  describe('the lingering close is bounded (limits.lingeringCloseMs, limits.lingeringCloseBytes)', () => {
    it('a client trickling its body after the 413 is cut off lingeringCloseMs after the answer, not at once and not never', async () => {
      const app = await start({ limits: { lingeringCloseMs: 1_000 } });
      let trickle: NodeJS.Timeout | undefined;
      const result = await uploadUntilCut(app.url, postHead('/talk', 100 * 1024 * 1024), (write) => {
        trickle = setInterval(() => write(Buffer.alloc(100, 0x61)), 50);
      });
      clearInterval(trickle);
      expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(result.answeredMs).toBeLessThan(1_000);
      const lingered = result.cutMs - result.answeredMs;
      expect(lingered).toBeGreaterThanOrEqual(700);
      expect(lingered).toBeLessThan(3_000);
    });

    it('a client sending fast is cut off (its writes fail) once lingeringCloseBytes were dropped, long before lingeringCloseMs', async () => {
      const app = await start({ limits: { lingeringCloseBytes: 1024 * 1024 } });
      const body = Buffer.alloc(64 * 1024 * 1024, 0x61);
      const result = await uploadUntilCut(app.url, postHead('/news', body.length), (write) => void write(body));
      expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(result.error).toMatch(/EPIPE|ECONNRESET/);
      expect(result.cutMs).toBeLessThan(5_000);
    });

    it('a body that fits is read and answered as before', async () => {
      const app = await start({ limits: { lingeringCloseMs: 1_000, lingeringCloseBytes: 1024 * 1024 } });
      const answer = await postNews(app.url, { type: 't', message: 'x'.repeat(500_000) });
      expect(answer.status).toBe(200);
    });
  });
});
