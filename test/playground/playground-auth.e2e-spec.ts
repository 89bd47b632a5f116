import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { useBrowser } from '../support/browser';

jest.setTimeout(180_000);

const KEY = 'playground-secret-key';

describe('Playground with the API key on (issue 17: "when the server answers 401, the page asks for the API key")', () => {
  let db: TestDatabase;
  let agent: RunningApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    agent = await startSample(db.target, { apiKey: KEY });
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
  });
  const chromium = useBrowser();

  it('asks for the key on 401, keeps it in memory for the tab only, and sends it as Authorization: Bearer', async () => {
    const { page, context } = await chromium.newPage();
    const authorizations: Array<string | undefined> = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/talk') authorizations.push(r.headers().authorization);
    });
    await page.goto(`${agent.url}/`);
    // The news feed's first poll meets 401 at once: the dialog opens.
    const dialog = page.getByRole('dialog', { name: 'API key needed' });
    await dialog.waitFor();
    await dialog.getByLabel('API key').fill(KEY);
    await dialog.getByRole('button', { name: 'Use key' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('textbox', { name: 'Message' }).fill('hello with a key');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached' });
    await expect(page.locator('.msg.agent.failed').count()).resolves.toBe(0);
    expect(authorizations).toEqual([`Bearer ${KEY}`]);

    // The key reaches the news feed too: an item posted with the key shows up live.
    const posted = await fetch(`${agent.url}/news`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ type: 'note', message: 'seen with the key' }) });
    expect(posted.status).toBe(200);
    await page.locator('#news-feed .news-text', { hasText: 'seen with the key' }).waitFor();

    // Memory only: nothing stored in the origin's storage or cookies, and a reload asks again.
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(stored).not.toContain(KEY);
    expect(await context.cookies()).toEqual([]);
    await page.reload();
    await dialog.waitFor();
  });

  it("cancelling leaves the 401 on the page; a wrong key ends the turn with the server's unauthorized message", async () => {
    const { page } = await chromium.newPage();
    await page.goto(`${agent.url}/playground`);
    const dialog = page.getByRole('dialog', { name: 'API key needed' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#news-feed .error', { hasText: 'unauthorized' }).waitFor();

    await page.getByRole('textbox', { name: 'Message' }).fill('no key');
    await page.getByRole('button', { name: 'Send' }).click();
    await dialog.waitFor();
    await dialog.getByLabel('API key').fill('wrong-key');
    await dialog.getByRole('button', { name: 'Use key' }).click();
    await page.locator('.msg.agent.failed', { hasText: 'unauthorized' }).waitFor();
  });
});
