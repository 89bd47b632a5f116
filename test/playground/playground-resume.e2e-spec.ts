import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
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

  /** The whole reply the fake model streams: word0 … word{n-1}. */
  const fullReply = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

  it('issue 37, item 5: the network drops mid-answer and comes back → the page resumes (GET {talk}/{message_id}, session header, Last-Event-ID) and shows the full reply exactly once', async () => {
    llm.configure({ reply: fullReply(60), chunkDelayMs: 100 });
    const { page, context, errors } = await chromium.newPage();
    const resumes: Array<{ url: string; session: string | undefined; lastEventId: string | undefined }> = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/talk\/msg_/.test(request.url())) {
        resumes.push({ url: request.url(), session: request.headers()['restap-session-id'], lastEventId: request.headers()['last-event-id'] });
      }
    });
    await page.goto(`${agent.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByRole('textbox', { name: 'Message' }).fill('Talk for a while');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.locator('.msg.agent .text').last();
    await reply.filter({ hasText: 'word5 ' }).waitFor();
    // The running turn is kept for a reload: message id and last event id.
    const kept = JSON.parse((await page.evaluate(() => sessionStorage.getItem('restap-playground-turn'))) ?? 'null');
    expect(kept.messageId).toMatch(/^msg_/);
    expect(kept.lastEventId).toBeGreaterThan(1);

    await context.setOffline(true);
    await page.locator('.msg.agent .resume-note').last().filter({ hasText: 'resuming' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await context.setOffline(false);

    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await reply.textContent()).toBe(fullReply(60));
    await expect(page.locator('.msg.agent.failed').count()).resolves.toBe(0);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    const last = resumes[resumes.length - 1];
    expect(last.url).toBe(`${agent.url}/talk/${kept.messageId}`);
    expect(last.session).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
    expect(last.url).not.toContain(last.session as string);
    expect(Number(last.lastEventId)).toBeGreaterThanOrEqual(kept.lastEventId);
    // The turn is over: nothing (and no session_id) is left in sessionStorage.
    expect(await page.evaluate(() => sessionStorage.getItem('restap-playground-turn'))).toBeNull();
    expect(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|network/i.test(e))).toEqual([]);
  });

  it('issue 37, item 5: a reload mid-answer → the page resumes the unfinished turn from sessionStorage and the reply completes', async () => {
    llm.configure({ reply: fullReply(60), chunkDelayMs: 100 });
    const { page, errors } = await chromium.newPage();
    await page.goto(`${agent.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    const before = llm.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Talk, then I reload');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'word5 ' }).waitFor();
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    // The question is shown again, and the agent's reply is picked up and completes.
    await page.locator('.msg.user .text', { hasText: 'Talk, then I reload' }).waitFor();
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await page.locator('.msg.agent .text').last().textContent()).toBe(fullReply(60));
    await expect(page.locator('.msg.agent.failed').count()).resolves.toBe(0);
    // One model call: the reload did not ask again, and leaving did not stop the turn.
    expect(llm.requests.length).toBe(before + 1);
    expect(llm.requests[before].finished).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('restap-playground-turn'))).toBeNull();
    // The session goes on: the next message continues the same session.
    await expect(page.locator('#session-label').textContent()).resolves.toBe('Continuing a session');
    expect(errors).toEqual([]);
  });

  it('issue 37, item 5: the connection is cut under the page (a TCP proxy resets every socket mid-answer) → the page resumes and the full reply appears once', async () => {
    llm.configure({ reply: fullReply(60), chunkDelayMs: 100 });
    // A loopback TCP proxy in front of the agent: cutting it is a real network drop (the fetch fails), not an offline event.
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(new URL(agent.url).port), '127.0.0.1');
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const gone = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', gone).on('close', gone);
      upstream.on('error', gone).on('close', gone);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const { page } = await chromium.newPage();
      let resumed = 0;
      page.on('request', (request) => {
        if (request.method() === 'GET' && /\/talk\/msg_/.test(request.url())) resumed++;
      });
      await page.goto(`${base}/playground`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.getByRole('textbox', { name: 'Message' }).fill('Talk through a flaky link');
      await page.getByRole('button', { name: 'Send' }).click();
      const reply = page.locator('.msg.agent .text').last();
      await reply.filter({ hasText: 'word5 ' }).waitFor();
      for (const socket of sockets) socket.resetAndDestroy();
      await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached', timeout: 60_000 });
      expect(await reply.textContent()).toBe(fullReply(60));
      await expect(page.locator('.msg.agent.failed').count()).resolves.toBe(0);
      expect(resumed).toBeGreaterThanOrEqual(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
