import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { UI_TIMEOUT, useBrowser, type WatchedPage } from '../support/browser';

// Jest ignores the e2e project's testTimeout; the browser, PGlite and a loaded machine all take their time.
jest.setTimeout(180_000);

describe('issue 37, item 4: the playground on an agent with resumable streams (talk.resume), in headless Chromium', () => {
  let llm: FakeLlm;
  let db: TestDatabase;
  let agent: RunningApp;
  beforeAll(async () => {
    llm = await startFakeLlm({ reply: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 150 });
    db = await createTestDatabase();
    agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'fake-model' }, resume: true });
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    await llm?.close();
  });
  const chromium = useBrowser();
  let watched: WatchedPage;
  beforeAll(async () => {
    watched = await chromium.newPage();
  });

  it('Stop still stops the turn although a client leaving no longer does: the page sends DELETE (session in the header, not the URL) and the agent hangs up on the model', async () => {
    const { page, errors } = watched;
    const deletes: Array<{ url: string; session: string | undefined }> = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push({ url: request.url(), session: request.headers()['restap-session-id'] });
    });
    await page.goto(`${agent.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    const before = llm.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Talk for a long time');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'word1 ' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.msg.agent').last().getByText('Stopped.').waitFor();
    await llm.waitFor(() => llm.requests.length > before && llm.requests[before].aborted, UI_TIMEOUT);
    expect(llm.requests[before].finished).toBe(false);
    expect(deletes).toHaveLength(1);
    expect(deletes[0].url).toMatch(new RegExp(`^${agent.url}/talk/msg_[A-Za-z0-9_-]+$`));
    expect(deletes[0].session).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
    expect(deletes[0].url).not.toContain(deletes[0].session as string);
    expect(errors).toEqual([]);
  });
});
