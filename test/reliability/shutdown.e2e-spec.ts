import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, usingServer, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { eventsOnly, openTalkStream, postTalk, type SseFrame } from '../fixtures/talk-sse';
import { getNews } from '../fixtures/news-http';
import { startChildAgent, type ChildAgent } from './support/child-agent';

// Issue 6, item 5 — graceful shutdown: on SIGTERM stop accepting new work (503 while draining), let
// running streams finish within the grace period, then end them with error + done, close the
// database pool, exit 0. The sample runs in its own process and gets a real SIGTERM.
jest.setTimeout(120_000);

const GRACE_MS = 3000;
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const lastUserMessage = (body: { messages?: Array<{ role: string; content: string }> }): string =>
  [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';

describe('issue 6, item 5 — graceful shutdown with open streams', () => {
  let db: TestDatabase;
  let llm: FakeLlm;
  let agent: ChildAgent | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    // 'short' ends in ~1 s (inside the grace period), 'long' would take ~30 s.
    llm = await startFakeLlm({ reply: (body) => (lastUserMessage(body) === 'short' ? words(8) : words(200)), chunkDelayMs: 150 });
  });
  afterAll(async () => {
    agent?.kill();
    await llm?.close();
    await db?.drop();
  });

  it('SIGTERM: 503 shutting_down for new /talk and /news, discovery answers, a short stream completes, a long one ends with error + done after the grace period, exit code 0', async () => {
    agent = await startChildAgent({
      ...(db.url ? { DATABASE_URL: db.url } : { RESTAP_DATA_DIR: 'memory://' }),
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      RESTAP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      RESTAP_RATE_LIMIT: '0',
    });
    const long = await openTalkStream(`${agent.url}/talk`, { message: 'long' });
    const short = await openTalkStream(`${agent.url}/talk`, { message: 'short' });
    const longStart = await long.next();
    const shortStart = await short.next();
    expect([longStart?.event, shortStart?.event]).toEqual(['message.start', 'message.start']);

    const signalled = Date.now();
    agent.process.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));

    const talk = await postTalk(`${agent.url}/talk`, { message: 'new work' });
    expect([talk.status, talk.headers.get('retry-after'), (await talk.json()).error]).toEqual([503, '1', 'shutting_down']);
    const news = await getNews(agent.url);
    expect([news.status, news.json.error]).toEqual([503, 'shutting_down']);
    expect((await fetch(`${agent.url}/.well-known/restap.json`)).status).toBe(200);

    const shortFrames = eventsOnly(await short.rest());
    expect(shortFrames.map((f) => f.event).slice(-2)).toEqual(['message.end', 'done']);
    expect(shortFrames.some((f) => f.event === 'error')).toBe(false);

    const longFrames: SseFrame[] = eventsOnly(await long.rest());
    const endedAfter = Date.now() - signalled;
    expect(longFrames.map((f) => f.event).slice(-2)).toEqual(['error', 'done']);
    expect(longFrames.at(-2)?.data).toMatchObject({ error: 'shutting_down' });
    expect(longFrames.at(-1)?.data).toMatchObject({ session_id: longStart?.data?.session_id });
    expect(endedAfter).toBeGreaterThanOrEqual(GRACE_MS - 200);
    expect(endedAfter).toBeLessThan(GRACE_MS + 4000);

    const { code, signal } = await agent.exited(15_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(agent.output()).toMatch(/waiting up to 3000 ms for 2 open \/talk turn/);
    expect(agent.output()).toMatch(/ending 1 \/talk turn\(s\) still open/);

    if (usingServer()) {
      // Both turns were stored before the pool closed: the cut one as 'error', the finished one 'complete'.
      const client = new Client({ connectionString: db.url });
      await client.connect();
      try {
        const status = async (frame: SseFrame | undefined): Promise<string[]> => {
          const keyHash = createHash('sha256').update(String(frame?.data?.session_id), 'utf8').digest();
          const rows = await client.query(`SELECT t.role, t.status FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 ORDER BY t.id`, [keyHash]);
          return rows.rows.map((r: { role: string; status: string }) => `${r.role}:${r.status}`);
        };
        expect(await status(longStart)).toEqual(['user:complete', 'assistant:error']);
        expect(await status(shortStart)).toEqual(['user:complete', 'assistant:complete']);
        const open = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
        expect(open.rows[0].n).toBe(0); // the agent's pool is closed
      } finally {
        await client.end();
      }
    }
  });
});
