import type { Page, Request as PlaywrightRequest } from 'playwright-core';
import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { readAll } from '../fixtures/news-http';
import { useBrowser } from '../support/browser';
import { reversingModel } from '../support/reversing-model';

// Issue 35, item 6 — the playground shows a pending approval as a card (capability, arguments,
// Approve / Deny); the click answers in the same session and the turn resumes. The sample with
// RESTAP_REQUIRE_APPROVAL=text.reverse, a fake model that asks for text.reverse; each real run of
// text.reverse publishes one job.completed news item, so the feed counts the runs.
jest.setTimeout(180_000);


/** A POST /talk the page sent: its URL and JSON body. */
interface SentTalk {
  url: string;
  body: { message?: string; session_id?: string; approval?: { id: string; decision: string } };
}

describe('issue 35, item 6: the playground asks a person with an approval card (headless Chromium, RESTAP_REQUIRE_APPROVAL=text.reverse)', () => {
  let llm: FakeLlm;
  let db: TestDatabase;
  let agent: RunningApp;
  beforeAll(async () => {
    llm = await startFakeLlm({ respond: reversingModel });
    db = await createTestDatabase();
    // Resumable streams on, as the sample has them: a reload during a turn resumes it.
    agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'fake-model' }, requireApproval: ['text.reverse'], resume: true });
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    await llm?.close();
  });
  const chromium = useBrowser();

  /** Runs of text.reverse so far: each real run publishes one job.completed item. */
  const runs = async (): Promise<number> => (await readAll(agent.url)).filter((i) => i.type === 'job.completed').length;

  /** Opens the playground, recording the POST /talk bodies the page sends. */
  async function open(): Promise<{ page: Page; errors: string[]; talks: SentTalk[] }> {
    const { page, errors } = await chromium.newPage();
    const talks: SentTalk[] = [];
    page.on('request', (request: PlaywrightRequest) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/talk') talks.push({ url: request.url(), body: request.postDataJSON() as SentTalk['body'] });
    });
    await page.goto(`${agent.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, errors, talks };
  }

  async function say(page: Page, text: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  it('approval.required appears as a card with the capability, its arguments and Approve / Deny; the call has not run', async () => {
    const { page, errors } = await open();
    const before = await runs();
    await say(page, "reverse 'hello world'");
    const card = page.getByRole('region', { name: 'Approval needed' });
    await card.waitFor();
    await expectCard(card, 'text.reverse', { text: 'hello world' });
    // The question is the buttons' description: a screen reader says what Approve approves.
    await expectDescribed(card);
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(await card.getByRole('button', { name: 'Deny' }).isEnabled()).toBe(true);
    expect(await runs()).toBe(before);
    expect(errors).toEqual([]);
  });

  it('click Approve → the same session answers {approval: {id, decision: "approve"}}, the stream shows the tool step and the result; the capability ran once', async () => {
    const { page, errors, talks } = await open();
    const before = await runs();
    await say(page, "reverse 'hello world'");
    const card = page.getByRole('region', { name: 'Approval needed' });
    await card.waitFor();
    const id = await card.getAttribute('data-approval-id');
    expect(id).toMatch(/^apr_[A-Za-z0-9_-]{32}$/);

    await card.getByRole('button', { name: 'Approve' }).click();
    const answer = page.locator('.msg.agent').last();
    await answer.locator('.text').filter({ hasText: 'Reversed: dlrow olleh' }).waitFor();
    // The tool step of the approved call, framed by tool.start / tool.end (naming the approval).
    const step = answer.locator('details.tool');
    await step.locator('summary').filter({ hasText: 'Tool: text_reverse ✓' }).waitFor();
    expect(await step.locator('.tool-output').textContent()).toContain('"decision": "approved"');
    await card.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
    expect(await card.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);

    expect(talks).toHaveLength(2);
    const [asked, answered] = talks;
    expect(asked.body.session_id).toBeUndefined();
    expect(answered.body).toEqual({ message: 'Approve', session_id: expect.stringMatching(/^[A-Za-z0-9._-]{16,128}$/), approval: { id, decision: 'approve' } });
    // Secrets stay out of URLs: neither the session nor the approval id rides in one.
    for (const sent of talks) expect(sent.url).toBe(`${agent.url}/talk`);
    expect(await runs()).toBe(before + 1);
    expect(errors).toEqual([]);
  });

  it('click Deny → the turn resumes with the denial, the model says so, and the capability never ran', async () => {
    const { page, errors, talks } = await open();
    const before = await runs();
    await say(page, "reverse 'do not'");
    const card = page.getByRole('region', { name: 'Approval needed' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'The call did not run: Error 403 approval_denied' }).waitFor();
    await card.getByRole('status').filter({ hasText: 'Denied' }).waitFor();
    expect(talks.at(-1)?.body.approval).toEqual({ id: await card.getAttribute('data-approval-id'), decision: 'deny' });
    expect(await runs()).toBe(before);
    expect(errors).toEqual([]);
  });

  it('a reload while the approval waits shows the card again in the same session; Approve then runs the call once', async () => {
    const { page, errors, talks } = await open();
    const before = await runs();
    await say(page, "reverse 'after reload'");
    await page.getByRole('region', { name: 'Approval needed' }).waitFor();
    const session = (await page.evaluate(() => JSON.parse(sessionStorage.getItem('restap-playground-approvals') ?? 'null')?.sessionId as string | undefined));
    expect(session).toMatch(/^[A-Za-z0-9._-]{16,128}$/);

    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    const card = page.getByRole('region', { name: 'Approval needed' });
    await card.waitFor();
    await expectCard(card, 'text.reverse', { text: 'after reload' });
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'Reversed: daoler retfa' }).waitFor();
    expect(talks.at(-1)?.body).toMatchObject({ session_id: session, approval: { decision: 'approve' } });
    expect(await runs()).toBe(before + 1);
    // Answered: nothing is kept for the next reload.
    expect(await page.evaluate(() => sessionStorage.getItem('restap-playground-approvals'))).toBeNull();
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a reload while the turn still runs resumes its stream, and the approval.required it then sends shows the card; Approve runs the call once', async () => {
    const { page, errors, talks } = await open();
    const before = await runs();
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/talk\/msg_/.test(request.url())) resumes.push(request.url());
    });
    // The model takes its time to ask for the call: the reload lands before approval.required.
    llm.configure({ firstChunkDelayMs: 2500 });
    try {
      await say(page, "reverse 'mid turn'");
      await page.waitForFunction(() => sessionStorage.getItem('restap-playground-turn') !== null);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      const card = page.getByRole('region', { name: 'Approval needed' });
      await card.waitFor();
      expect(resumes).toHaveLength(1);
      await expectCard(card, 'text.reverse', { text: 'mid turn' });
      llm.configure({ firstChunkDelayMs: 0 });
      await card.getByRole('button', { name: 'Approve' }).click();
      await page.locator('.msg.agent .text').last().filter({ hasText: 'Reversed: nrut dim' }).waitFor();
      expect(talks.at(-1)?.body.approval).toEqual({ id: await card.getAttribute('data-approval-id'), decision: 'approve' });
      expect(await runs()).toBe(before + 1);
      expect(errors).toEqual([]);
    } finally {
      llm.configure({ firstChunkDelayMs: 0 });
    }
  });

  it('an answer the agent refuses (already decided, by a typed "approve") says why on the card and runs nothing more', async () => {
    const { page, errors } = await open();
    const before = await runs();
    await say(page, "reverse 'typed'");
    const card = page.getByRole('region', { name: 'Approval needed' });
    await card.waitFor();
    // A plain "approve" answers the one pending approval too.
    await say(page, 'approve');
    await page.locator('.msg.agent .text').last().filter({ hasText: 'Reversed: depyt' }).waitFor();
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByRole('status').filter({ hasText: 'approval_already_decided' }).waitFor();
    expect(await card.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await runs()).toBe(before + 1);
    // The refusal is shown where it belongs; nothing failed in the page itself.
    expect(errors.filter((e) => !e.includes('409'))).toEqual([]);
  });
});

async function expectCard(card: ReturnType<Page['getByRole']>, capability: string, args: Record<string, unknown>): Promise<void> {
  expect(await card.locator('dd code').textContent()).toBe(capability);
  expect(JSON.parse((await card.locator('.approval-args').textContent()) ?? 'null')).toEqual(args);
  expect(await card.locator('.question').textContent()).toContain(capability);
}

async function expectDescribed(card: ReturnType<Page['getByRole']>): Promise<void> {
  const question = await card.locator('.question').getAttribute('id');
  expect(question).toBeTruthy();
  expect(await card.getByRole('button', { name: 'Approve' }).getAttribute('aria-describedby')).toBe(question);
  expect(await card.getByRole('button', { name: 'Deny' }).getAttribute('aria-describedby')).toBe(question);
}
