import { tmpdir } from 'node:os';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { UI_TIMEOUT, useBrowser, type WatchedPage } from '../support/browser';

// Jest ignores the e2e project's testTimeout; the browser, PGlite and a loaded machine all take their time.
jest.setTimeout(180_000);

// The README's picture is redrawn on request (`npm run screenshot`), so a plain test run leaves the tree clean.
const SCREENSHOT = process.env.UPDATE_SCREENSHOT ? join(__dirname, '../../docs/playground.png') : join(tmpdir(), `restap-playground-${process.pid}.png`);
const STREAMED_REPLY = 'The quick brown fox jumps over the lazy dog while the playground watches every word arrive.';

describe('Playground on the sample agent, in headless Chromium (issue 17)', () => {
  let llm: FakeLlm;
  let db: TestDatabase;
  let agent: RunningApp;
  beforeAll(async () => {
    llm = await startFakeLlm({ reply: STREAMED_REPLY });
    db = await createTestDatabase();
    agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'fake-model' } });
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

  it("GET / opens the playground, served with a strict Content-Security-Policy, and the page logs no console error", async () => {
    const { page, errors } = watched;
    const response = await page.goto(`${agent.url}/`);
    expect(new URL(page.url()).pathname).toBe('/playground');
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.waitForSelector('body[data-ready="true"]');
    await expect(page.locator('#agent-name').textContent()).resolves.toBe('Text Analysis Agent');
    await expect(page.locator('#doors').textContent()).resolves.toContain('RESTAP');
    await expect(page.locator('#packages li').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('.finding.ok').count()).resolves.toBe(1);
    expect(errors).toEqual([]);
  });

  it('streams the reply token by token into an aria-live transcript: at least two partial states before the end', async () => {
    const { page, errors } = watched;
    llm.configure({ reply: STREAMED_REPLY, chunkDelayMs: 120, firstChunkDelayMs: 100 });
    await expect(page.locator('#transcript').getAttribute('aria-live')).resolves.toBe('polite');
    // Record every text the agent's bubble shows, as the page renders it.
    await page.evaluate(() => {
      const states: string[] = [];
      (window as unknown as { states: string[] }).states = states;
      new MutationObserver(() => {
        const bubbles = document.querySelectorAll('.msg.agent .text');
        const text = bubbles[bubbles.length - 1]?.textContent ?? '';
        if (text && states[states.length - 1] !== text) states.push(text);
      }).observe(document.getElementById('transcript') as Node, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole('textbox', { name: 'Message' }).fill('Tell me about the fox');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'arrive.' }).waitFor();
    const states = await page.evaluate(() => (window as unknown as { states: string[] }).states);
    const partial = states.filter((s) => s !== STREAMED_REPLY && STREAMED_REPLY.startsWith(s));
    expect(partial.length).toBeGreaterThanOrEqual(2);
    expect(states[states.length - 1]).toBe(STREAMED_REPLY);
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached' });
    await expect(page.getByRole('button', { name: 'Send' }).isEnabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
  });

  it('continues the session on the next turn (the model sees the history), and "New conversation" starts another', async () => {
    const { page } = watched;
    llm.configure({ reply: 'Second answer.', chunkDelayMs: 0, firstChunkDelayMs: 0 });
    const before = llm.requests.length;
    const message = page.getByRole('textbox', { name: 'Message' });
    // Enter sends; Shift+Enter breaks the line.
    await message.fill('line one');
    await message.press('Shift+Enter');
    await message.pressSequentially('line two');
    await message.press('Enter');
    await page.locator('.msg.agent .text').last().filter({ hasText: 'Second answer.' }).waitFor();
    await expect(page.locator('.msg.user .text').last().textContent()).resolves.toBe('line one\nline two');
    const continued = llm.requests[before].body as { messages: Array<{ role: string; content: string }> };
    expect(continued.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['Tell me about the fox', STREAMED_REPLY, 'line one\nline two']));

    await page.getByRole('button', { name: 'New conversation' }).click();
    await message.fill('fresh start');
    await message.press('Enter');
    await page.locator('.msg.agent .text').last().filter({ hasText: 'Second answer.' }).waitFor();
    const fresh = llm.requests[llm.requests.length - 1].body as { messages: Array<{ content: string }> };
    expect(fresh.messages.map((m) => m.content)).not.toContain('Tell me about the fox');
  });

  it('Stop aborts the stream: the page says so, and the agent hangs up on the model', async () => {
    const { page, errors } = watched;
    llm.configure({ reply: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 150, firstChunkDelayMs: 0 });
    const before = llm.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Talk for a long time');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'word1 ' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.msg.agent').last().getByText('Stopped.').waitFor();
    await llm.waitFor(() => llm.requests.length > before && llm.requests[before].aborted, UI_TIMEOUT);
    expect(llm.requests[before].finished).toBe(false);
    await expect(page.getByRole('button', { name: 'Send' }).isEnabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
  });

  it('a news item posted over HTTP appears on the page without a reload, newest first', async () => {
    const { page, errors } = watched;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    for (const message of ['first posted elsewhere', 'second posted elsewhere']) {
      const posted = await fetch(`${agent.url}/news`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'note', from: 'e2e', message }) });
      expect(posted.status).toBe(200);
    }
    // Long-poll with `wait` when the catalog's news capability lists it, else polling with `since`.
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    const offersWait = catalog.capabilities.find((c: { id: string }) => c.id === 'news').parameters.some((p: { name: string }) => p.name === 'wait');
    await expect(page.locator('#news-mode').textContent()).resolves.toMatch(offersWait ? /long-poll, wait=\d+s/ : /polling every 2s/);
    const feed = page.locator('#news-feed .news-item');
    await feed.filter({ hasText: 'second posted elsewhere' }).waitFor();
    const texts = await page.locator('#news-feed .news-text').allTextContents();
    expect(texts.indexOf('second posted elsewhere')).toBeLessThan(texts.indexOf('first posted elsewhere'));
    expect(navigations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('the news form posts an item that the agent stores (read back over HTTP)', async () => {
    const { page } = watched;
    await page.locator('.news-post summary').click();
    const form = page.locator('#news-form');
    await form.getByLabel('Type').fill('job.note');
    await form.getByLabel('Text').fill('posted from the page');
    await form.getByRole('button', { name: 'Post news' }).click();
    await form.locator('.form-status').filter({ hasText: 'Stored as news_' }).waitFor();
    const page1 = await (await fetch(`${agent.url}/news?limit=1000`)).json();
    expect(page1.items.map((i: { message?: string }) => i.message)).toContain('posted from the page');
    await page.locator('#news-feed .news-text', { hasText: 'posted from the page' }).waitFor();
  });

  it("a capability card's form runs text.reverse and shows the formatted JSON result; an empty text is stopped in the browser", async () => {
    const { page, errors } = watched;
    const card = page.locator('#cap-text\\.reverse');
    const requestsBefore: string[] = [];
    page.on('request', (r) => requestsBefore.push(r.url()));
    await card.getByRole('button', { name: 'Run' }).click();
    await card.locator('.field-error').filter({ hasText: /required|empty/ }).waitFor();
    await expect(card.locator('.form-status').textContent()).resolves.toContain('Not sent');
    expect(requestsBefore.filter((u) => u.endsWith('/text/reverse'))).toEqual([]);

    await card.getByRole('textbox', { name: /^text/ }).fill('Hello playground');
    await card.getByRole('button', { name: 'Run' }).click();
    const result = card.locator('pre.result');
    await result.filter({ hasText: 'dnuorgyalp olleH' }).waitFor();
    const shown = JSON.parse((await result.textContent()) as string);
    expect(shown).toMatchObject({ original_text: 'Hello playground', reversed_text: 'dnuorgyalp olleH' });
    await expect(result.textContent()).resolves.toContain('\n  "'); // formatted, two-space indent
    expect(errors).toEqual([]);
    // The README's screenshot: a conversation, the news feed and a capability result, as rendered here.
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  it('the raw-frames toggle shows the SSE frames of a turn with their event names', async () => {
    const { page } = watched;
    llm.configure({ reply: 'Framed reply.', chunkDelayMs: 0 });
    await page.getByRole('checkbox', { name: 'Raw frames' }).check();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('show me frames');
    await page.getByRole('button', { name: 'Send' }).click();
    const log = page.locator('#frame-log');
    await log.locator('.frame.sse', { hasText: 'event: done' }).waitFor();
    const frames = await log.locator('.frame.sse pre').allTextContents();
    const events = frames.map((f) => /^event: (.+)$/m.exec(f)?.[1]).filter(Boolean);
    expect(events.filter((e) => e !== 'message.delta')).toEqual(['message.start', 'message.end', 'done']);
    expect(frames.filter((f) => f.includes('event: message.delta')).join('')).toMatch(/"text":"Framed "[\s\S]*"text":"reply\."/);
    await expect(log.locator('.frame.request', { hasText: 'POST /talk' }).count()).resolves.toBe(1);
    await expect(log.locator('.frame .at').first().textContent()).resolves.toMatch(/^\d+\.\d{3}s/);
  });

  it('is readable on a phone in dark mode: nothing overflows sideways, and no console error', async () => {
    const phone = await chromium.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await phone.page.goto(`${agent.url}/playground`);
    await phone.page.waitForSelector('body[data-ready="true"]');
    const { scrollWidth, innerWidth, background } = await phone.page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    expect(background).toBe('rgb(15, 18, 22)'); // the dark palette
    expect(phone.errors).toEqual([]);
  });
});
