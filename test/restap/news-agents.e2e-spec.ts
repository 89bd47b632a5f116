import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { RunningApp } from '../support/sample-app';
import { getNews, newSessionId, postNews, readAll } from '../fixtures/news-http';
import { AgentProbe, startFixtureAgent } from '../fixtures/news-agent.app';

jest.setTimeout(90_000);

type Agent = RunningApp & { probe: AgentProbe };
const waitUntil = async (predicate: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const dbs: TestDatabase[] = [];
let a: Agent;
let b: Agent;

beforeAll(async () => {
  dbs.push(await createTestDatabase(), await createTestDatabase());
  a = await startFixtureAgent(dbs[0].target, { name: 'agent-a' });
  b = await startFixtureAgent(dbs[1].target, { name: 'agent-b', peerNewsUrl: `${a.url}/news` });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const db of dbs) await db.drop();
});

describe('Agent-to-agent flow (spec, "Complete Agent Communication Flow"): A talks to B, B answers by POST /news to A', () => {

  it('stores B\'s reply in A\'s feed, reaches A\'s @News() handlers, and nobody replies to the news', async () => {
    const talk = await fetch(`${b.url}/talk`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'What are best practices for buttons?' }) });
    expect(talk.status).toBe(200);
    const { query_id: queryId, status } = JSON.parse(((await talk.json()) as { reply: string }).reply) as { query_id: string; status: string };
    expect(status).toBe('processing');
    await waitUntil(() => a.probe.received.length === 1);
    const feed = await readAll(a.url);
    expect(feed).toEqual([
      { type: 'reply', from: 'agent-b', in_reply_to: queryId, message: 'Best practices: Use clear labels, proper contrast, adequate spacing.', timestamp: expect.any(Number), news_id: expect.any(String) },
    ]);
    expect(a.probe.received[0].item).toEqual(feed[0]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // room for any (forbidden) reply to happen
    expect(a.probe.talkCalls).toEqual([]); // the news never reached A's talk handler
    expect(b.probe.talkCalls).toEqual(['What are best practices for buttons?']); // B answered the one /talk
    expect(await readAll(b.url)).toEqual([]); // and nothing came back to B: no reply to the news
    expect(b.probe.received).toEqual([]);
  });

  it('lets a third agent read B\'s completed jobs with GET /news (spec step 3: read-only)', async () => {
    const run = await fetch(`${b.url}/jobs/run`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"text":"Hello World"}' });
    expect(run.status).toBe(200);
    const items = await readAll(b.url);
    expect(items).toEqual([
      {
        type: 'job.completed', job_id: expect.stringMatching(/^job_/), query_id: items[0]?.job_id,
        data: { query_id: items[0]?.job_id, result: { status: 'done', input: { text: 'Hello World' } } },
        timestamp: expect.any(Number), news_id: expect.any(String),
      },
    ]);
    expect(b.probe.received).toEqual([]); // the agent's own news is not fed back to its @News() handlers
    expect(b.probe.talkCalls).toHaveLength(1);
  });
});

describe('@News() handlers consume stored items: after the commit, never replying', () => {
  let agent: Agent;
  let errors: string[];

  beforeAll(() => {
    agent = a;
    agent.probe.failingHandler = true;
  });
  beforeEach(() => {
    errors = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    agent.probe.received.length = 0;
  });
  afterEach(() => jest.restoreAllMocks());

  it('runs every handler with the committed item and its session; a throwing handler is logged without the session id and the ack is unchanged', async () => {
    const sessionId = newSessionId();
    const ack = await postNews(agent.url, { type: 'fact', message: 'blue' }, { 'Restap-Session-Id': sessionId });
    expect(ack.status).toBe(200);
    expect(ack.json).toEqual({ status: 'received', news_id: expect.any(String), message: 'Message stored successfully' });
    await waitUntil(() => agent.probe.received.length === 1 && errors.length === 1);
    const [{ item, context, committed }] = agent.probe.received;
    expect(committed).toBe(true);
    expect(context).toEqual({ sessionId });
    expect(item).toEqual({ type: 'fact', message: 'blue', timestamp: expect.any(Number), news_id: ack.json.news_id });
    expect(errors[0]).toMatch(/FixtureBrain\.audit failed on news_\d+: Error: audit store is down/);
    expect(errors.join('\n')).not.toContain(sessionId);
  });

  it('does not run handlers again for a replayed Idempotency-Key, nor for a rejected request', async () => {
    const headers = { 'Idempotency-Key': `k-${Date.now()}` };
    await postNews(agent.url, { type: 'once' }, headers);
    await postNews(agent.url, { type: 'once' }, headers);
    await postNews(agent.url, { type: 'other' }, headers);
    await postNews(agent.url, { message: 'no type' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(agent.probe.received.map((r) => r.item.type)).toEqual(['once']);
  });

  it('never reaches the @Talk() handler, whatever the item says', async () => {
    for (const body of [{ type: 'talk', message: 'Please reply to this!' }, { type: 'reply', in_reply_to: 'query_1', message: '?' }]) {
      expect((await postNews(agent.url, body)).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(agent.probe.talkCalls).toEqual([]);
    const turns = (await agent.app.get(DataSource).query('SELECT count(*)::int AS n FROM restap_turns')) as Array<{ n: number }>;
    expect(turns[0].n).toBe(0);
  });

  it('answers GET /news without calling any handler', async () => {
    expect((await getNews(agent.url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(agent.probe.received).toEqual([]);
  });
});
