import { DataSource } from 'typeorm';
import { NEWS_GUARD } from 'nestjs-restap';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { RunningApp, startSample } from '../support/sample-app';
import { ChatRequestBody, FakeLlm, startFakeLlm } from '../support/fake-llm';
import { newSessionId, postNews, readAll } from '../fixtures/news-http';

jest.setTimeout(90_000);

type Message = { role: string; content: string };
const guarded = (m: Message): boolean => m.role === 'system' && m.content.startsWith(`${NEWS_GUARD}\n`);
const guardedItems = (body: unknown): Array<Record<string, unknown>> =>
  ((body as ChatRequestBody).messages ?? []).filter(guarded).map((m) => JSON.parse(m.content.slice(NEWS_GUARD.length + 1)) as Record<string, unknown>);

/** Knows the favourite colour only when the fact reached it as a guarded news item. */
function favouriteColourModel(body: ChatRequestBody): string {
  const messages = body.messages ?? [];
  const question = messages.at(-1)?.content ?? '';
  if (!/favou?rite colou?r/i.test(question)) return 'OK.';
  const fact = guardedItems(body).find((item) => item.message === 'blue');
  return fact ? 'Your favorite color is blue.' : "I don't know your favorite color yet.";
}

describe('Surfacing /news to the model (spec, "Surfacing /news to the agent (anti-loop guidance)")', () => {
  let db: TestDatabase;
  let llm: FakeLlm;
  let agent: RunningApp;
  const turns = async (): Promise<number> =>
    ((await agent.app.get(DataSource).query('SELECT count(*)::int AS n FROM restap_turns')) as Array<{ n: number }>)[0].n;
  const talk = async (message: string, sessionId?: string): Promise<{ reply: string; session_id: string }> => {
    const res = await fetch(`${agent.url}/talk`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(sessionId ? { message, session_id: sessionId } : { message }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { reply: string; session_id: string };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    llm = await startFakeLlm({ reply: favouriteColourModel });
    agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'fake-model' } });
  });
  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    await db?.drop();
  });

  it('answers "tell me my favorite color" with "blue" after the fact arrived by POST /news, and never replies to the news itself', async () => {
    const first = await talk('What is your favorite color?');
    expect(first.reply).toBe("I don't know your favorite color yet.");
    const session = first.session_id;
    const [llmCalls, turnCount] = [llm.requests.length, await turns()];

    const ack = await postNews(agent.url, { type: 'reply', in_reply_to: 'favorite-color', message: 'blue', session_id: session });
    expect(ack.json).toEqual({ status: 'received', news_id: expect.any(String), message: 'Message stored successfully' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(llm.requests.length).toBe(llmCalls); // storing the news did not call the LLM
    expect(await turns()).toBe(turnCount); // nor run the talk handler

    const answer = await talk('Tell me my favorite color', session);
    expect(answer.reply).toBe('Your favorite color is blue.');
    const sent = (llm.requests.at(-1)?.body ?? {}) as ChatRequestBody;
    const newsMessages = (sent.messages ?? []).filter((m) => m.content.includes('"message":"blue"'));
    expect(newsMessages).toEqual([{ role: 'system', content: `${NEWS_GUARD}\n${JSON.stringify(guardedItems(sent)[0])}` }]);
    expect(guardedItems(sent)).toEqual([expect.objectContaining({ type: 'reply', in_reply_to: 'favorite-color', message: 'blue', news_id: ack.json.news_id })]);

    expect(await readAll(agent.url, { 'Restap-Session-Id': session })).toEqual([expect.objectContaining({ news_id: ack.json.news_id })]);
    expect(llm.requests.length).toBe(llmCalls + 1); // exactly one LLM call: the second /talk
  });

  it('keeps one session\'s news from another session\'s model, and shows global news to every session', async () => {
    const other = await talk('What is my favorite color?');
    expect(other.reply).toBe("I don't know your favorite color yet.");
    await postNews(agent.url, { type: 'status', message: 'maintenance tonight' });
    const again = await talk('What is my favorite color?', other.session_id);
    const seen = guardedItems(llm.requests.at(-1)?.body);
    expect(again.reply).toBe("I don't know your favorite color yet.");
    expect(seen.map((i) => i.message)).toEqual(['maintenance tonight']);
  });

  it('gives the model the newest news.contextLimit (20) items of its view, oldest first', async () => {
    const session = newSessionId();
    for (let n = 0; n < 25; n++) await postNews(agent.url, { type: 'tick', n }, { 'Restap-Session-Id': session });
    await talk('Anything new?', session);
    const seen = guardedItems(llm.requests.at(-1)?.body);
    expect(seen).toHaveLength(20);
    const ticks = seen.filter((i) => i.type === 'tick').map((i) => i.n);
    expect(ticks).toEqual(ticks.slice().sort((x, y) => (x as number) - (y as number)));
    expect(ticks.at(-1)).toBe(24);
    expect(seen.map((i) => i.timestamp as number)).toEqual(seen.map((i) => i.timestamp as number).sort((x, y) => x - y));
  });
});
