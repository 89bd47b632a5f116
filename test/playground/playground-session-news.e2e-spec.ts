import { randomBytes } from 'node:crypto';
import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { useBrowser } from '../support/browser';

jest.setTimeout(180_000);

const newSessionId = (): string => `play${randomBytes(18).toString('base64url')}`;

const post = (url: string, sessionId: string, message: string): Promise<Response> =>
  fetch(`${url}/news`, { method: 'POST', headers: { 'content-type': 'application/json', 'restap-session-id': sessionId }, body: JSON.stringify({ type: 'note', message }) });

describe('Playground news with news.scope "session" (issue 17: "session scope handled: asks for or uses the chat\'s session")', () => {
  let db: TestDatabase;
  let agent: RunningApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    agent = await startSample(db.target, { newsScope: 'session' });
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
  });
  const chromium = useBrowser();

  it("asks for a session first, then follows the chat's session: its items appear live, another session's never do", async () => {
    const { page, errors } = await chromium.newPage();
    const newsUrls: string[] = [];
    page.on('request', (r) => new URL(r.url()).pathname === '/news' && newsUrls.push(r.url()));
    await page.goto(`${agent.url}/playground`);
    await page.locator('#news-feed .note', { hasText: 'send a message first' }).waitFor();

    await page.getByRole('checkbox', { name: 'Raw frames' }).check();
    await page.getByRole('textbox', { name: 'Message' }).fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const start = page.locator('#frame-log .frame.sse pre', { hasText: 'event: message.start' });
    await start.waitFor();
    const chatSession = JSON.parse(/data: (.*)$/m.exec((await start.textContent()) as string)?.[1] as string).session_id as string;
    expect(chatSession).toMatch(/^[A-Za-z0-9._-]{16,128}$/);

    expect((await post(agent.url, newSessionId(), 'for someone else')).status).toBe(200);
    expect((await post(agent.url, chatSession, 'for this conversation')).status).toBe(200);
    await page.locator('#news-feed .news-text', { hasText: 'for this conversation' }).waitFor();
    await expect(page.locator('#news-feed .news-text', { hasText: 'for someone else' }).count()).resolves.toBe(0);
    // The session id travels in the Restap-Session-Id header, never in a URL the page builds.
    expect(newsUrls.length).toBeGreaterThan(0);
    expect(newsUrls.filter((u) => u.includes(chatSession) || u.includes('session_id'))).toEqual([]);

    // The page's own post lands in the chat's session feed.
    await page.locator('.news-post summary').click();
    await page.locator('#news-form').getByLabel('Text').fill('from the page form');
    await page.locator('#news-form').getByRole('button', { name: 'Post news' }).click();
    await page.locator('#news-feed .news-text', { hasText: 'from the page form' }).waitFor();
    const feed = await (await fetch(`${agent.url}/news`, { headers: { 'restap-session-id': chatSession } })).json();
    expect(feed.items.map((i: { message: string }) => i.message)).toEqual(['for this conversation', 'from the page form']);
    expect(errors).toEqual([]);
  });

  it('follows a pasted session id instead', async () => {
    const { page } = await chromium.newPage();
    await page.goto(`${agent.url}/playground`);
    const pasted = newSessionId();
    await page.getByLabel('Session id for news').fill(pasted);
    await page.getByLabel('Session id for news').press('Tab');
    expect((await post(agent.url, pasted, 'for the pasted session')).status).toBe(200);
    await page.locator('#news-feed .news-text', { hasText: 'for the pasted session' }).waitFor();
  });
});
