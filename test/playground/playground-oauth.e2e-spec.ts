import type { Page, Request as BrowserRequest } from 'playwright-core';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import type { RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-provider';
import { useBrowser } from '../support/browser';
import { freePort } from '../support/free-port';

jest.setTimeout(180_000);

const PLAYGROUND_CLIENT = 'restap-playground';
const REPLY = 'Signed-in reply from the agent.';

/** Every request the page sends: its URL and Authorization header. */
function recordRequests(page: Page): Array<{ url: URL; authorization?: string }> {
  const seen: Array<{ url: URL; authorization?: string }> = [];
  page.on('request', (r: BrowserRequest) => seen.push({ url: new URL(r.url()), authorization: r.headers().authorization }));
  return seen;
}

/**
 * `leave` sends the page to the authorization server; then its development login (when there is
 * no session yet) and consent (when something new is asked for) pages, as many as it shows (none
 * when it sends the browser straight back), until the browser is back on `back`.
 */
async function throughAuthorizationServer(page: Page, issuer: string, back: string, login: string, leave: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForURL((url) => url.origin === issuer || (url.href.startsWith(back) && url.searchParams.has('code'))), leave()]);
  for (let hop = 0; hop < 6; hop++) {
    await page.waitForURL((url) => url.href.startsWith(back) || url.pathname.startsWith('/interaction/'));
    if (page.url().startsWith(back)) return;
    const here = page.url();
    if (await page.locator('input[name="login"]').count()) {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await Promise.all([page.waitForURL((url) => url.href !== here), page.getByRole('button', { name: 'Sign-in' }).click()]);
    } else {
      await Promise.all([page.waitForURL((url) => url.href !== here), page.getByRole('button', { name: 'Continue' }).click()]);
    }
  }
  throw new Error(`still at the authorization server: ${page.url()}`);
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}

/**
 * Issue 34, item 6 (and the follow-up brief): the playground signs a person in with the
 * authorization code flow + PKCE against a real authorization server (oidc-provider, its
 * development login and consent pages driven in Chromium), found through the catalog's
 * io.restap/oauth entry → the protected resource metadata → the server's metadata; or takes a
 * pasted token. The token rides on every request the page makes to the agent, and nowhere else.
 */
describe('Playground sign-in with OAuth 2.1 (issue 34: authorization code + PKCE, pasted token)', () => {
  let as: LocalAuthorizationServer;
  let llm: FakeLlm;
  let db: TestDatabase;
  let agent: RunningApp;
  let resource: string;

  beforeAll(async () => {
    const port = await freePort();
    resource = `http://127.0.0.1:${port}`;
    as = await startAuthorizationServer([
      // The playground as a public client: PKCE, no secret, redirect back to its page.
      { client_id: PLAYGROUND_CLIENT, grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [`${resource}/playground`], token_endpoint_auth_method: 'none', scope: 'text:reverse text:echo' },
    ]);
    llm = await startFakeLlm({ reply: REPLY });
    db = await createTestDatabase();
    const app = await createSampleApp(
      { database: db.target, newsScope: 'global', oauth: { issuer: as.issuer, audience: resource, playgroundClientId: PLAYGROUND_CLIENT, scopesSupported: ['text:echo'] }, llm: { baseUrl: llm.baseUrl, model: 'fake-model' }, resume: true },
      { logger: false },
    );
    await app.listen(port, '127.0.0.1');
    agent = { app, url: resource, close: () => app.close() };
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    await as?.stop();
    await llm?.close();
  });
  const chromium = useBrowser();

  it("the page's CSP lets it reach the authorization server (connect-src) and nothing else new; the page names the playground's client", async () => {
    const res = await fetch(`${resource}/playground`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`connect-src 'self' ${as.issuer} ${resource};`);
    expect(csp).toContain("script-src 'self';");
    expect(await res.text()).toContain(`<meta name="restap-oauth-client" content="${PLAYGROUND_CLIENT}">`);
  });

  it('signs in through the real authorization code + PKCE flow (catalog → metadata → issuer, login and consent pages), then talks, reads news and runs a capability with the token', async () => {
    const { page, context, errors } = await chromium.newPage();
    const requests = recordRequests(page);
    await page.goto(`${resource}/playground`);
    // The first news poll meets 401: the page asks, and offers the sign-in the catalog declares.
    const dialog = page.getByRole('dialog', { name: 'Sign-in needed' });
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain(`${resource}/`);
    await dialog.getByRole('button', { name: 'Sign in' }).click();

    // oidc-provider's development login, then its consent page, in the same tab.
    await page.waitForURL((url) => url.origin === as.issuer && url.pathname.startsWith('/interaction/'));
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    // Back on the playground: the code is exchanged and taken off the address bar.
    await page.waitForURL((url) => url.origin === resource && url.pathname === '/playground');
    await page.waitForSelector('body[data-ready="true"]');
    expect(page.url()).toBe(`${resource}/playground`);
    await page.locator('#auth-status', { hasText: `Signed in with ${new URL(as.issuer).host}` }).waitFor();

    // The authorization request carried PKCE S256, the resource and the metadata's scopes (here auth.oauth.scopesSupported: text:echo; text:reverse comes by step-up).
    const authorize = requests.find((r) => r.url.origin === as.issuer && r.url.searchParams.get('response_type') === 'code')!.url.searchParams;
    expect(Object.fromEntries(authorize)).toMatchObject({ client_id: PLAYGROUND_CLIENT, redirect_uri: `${resource}/playground`, code_challenge_method: 'S256', resource: `${resource}/`, scope: 'text:echo' });
    expect(authorize.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Talk with the token.
    await page.getByRole('textbox', { name: 'Message' }).fill('hello as ada');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text', { hasText: REPLY }).waitFor();
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached' });
    const talk = requests.find((r) => r.url.origin === resource && r.url.pathname === '/talk')!;
    const token = /^Bearer (.+)$/.exec(talk.authorization ?? '')?.[1] as string;
    expect(claimsOf(token)).toMatchObject({ sub: 'ada', aud: `${resource}/`, client_id: PLAYGROUND_CLIENT, iss: as.issuer });

    // A capability (one that needs no scope; text.reverse's step-up has its own test).
    const card = page.locator('#cap-text\\.echo');
    await card.getByRole('textbox', { name: /^text/ }).fill('ada lovelace');
    await card.getByRole('button', { name: 'Run' }).click();
    await card.locator('pre.result', { hasText: 'ada lovelace' }).waitFor();

    // Every request to the agent after the return carried the token (the news polls, /talk, the capability), the catalog included.
    const back = requests.findIndex((r) => r.url.origin === resource && r.url.pathname === '/playground' && r.url.searchParams.has('code'));
    const toAgent = requests.slice(back + 1).filter((r) => r.url.origin === resource && !r.url.pathname.startsWith('/playground'));
    expect(toAgent.map((r) => r.url.pathname)).toEqual(expect.arrayContaining(['/.well-known/restap.json', '/news', '/talk', '/text/echo']));
    for (const r of toAgent.filter((r) => !r.url.pathname.startsWith('/.well-known/oauth-protected-resource'))) expect(`${r.url.pathname} ${r.authorization}`).toBe(`${r.url.pathname} Bearer ${token}`);
    // Never to the authorization server (no token passthrough), never in any URL.
    for (const r of requests.filter((r) => r.url.origin === as.issuer)) expect(r.authorization).toBeUndefined();
    for (const r of requests) expect(r.url.href).not.toContain(token);

    // Memory only: not in the page's storage or cookies (the PKCE verifier is gone too), nor in the raw frames.
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(stored).toBe(JSON.stringify({ local: {}, session: {}, cookie: '' }));
    expect((await context.cookies(resource)).map((c) => c.value).join(' ')).not.toContain(token);
    await page.getByRole('checkbox', { name: 'Raw frames' }).check();
    const frames = (await page.locator('#frame-log').textContent()) ?? '';
    expect(frames).toContain('authorization code exchange; body not shown');
    expect(frames).not.toContain(token);
    expect(frames).not.toContain(authorize.get('code_challenge') as string);
    expect(errors.filter((e) => !/fonts\.googleapis|ERR_NAME_NOT_RESOLVED|favicon\.ico|401/.test(e))).toEqual([]);
  });

  it('issue 34 gap 2: steps up on 403 insufficient_scope: signed in without text:reverse, text.reverse offers a sign-in for that scope (code + PKCE asking for it), and once back the call is sent again and succeeds', async () => {
    const { page, errors } = await chromium.newPage();
    const requests = recordRequests(page);
    await page.goto(`${resource}/playground`);
    const dialog = page.getByRole('dialog', { name: 'Sign-in needed' });
    await throughAuthorizationServer(page, as.issuer, `${resource}/playground`, 'grace', () => dialog.getByRole('button', { name: 'Sign in' }).click());
    await page.waitForSelector('body[data-ready="true"]');

    const card = page.locator('#cap-text\\.reverse');
    await card.getByRole('textbox', { name: /^text/ }).fill('step up');
    await card.getByRole('button', { name: 'Run' }).click();
    const offer = card.getByRole('button', { name: 'Sign in again for text:reverse' });
    await offer.waitFor();
    await expect(card.locator('.form-status').textContent()).resolves.toContain('403 insufficient_scope');
    const refused = requests.filter((r) => r.url.pathname === '/text/reverse');
    expect(refused).toHaveLength(1);
    const first = /^Bearer (.+)$/.exec(refused[0].authorization ?? '')?.[1] as string;
    expect(String(claimsOf(first).scope ?? '')).not.toContain('text:reverse');

    await throughAuthorizationServer(page, as.issuer, `${resource}/playground`, 'grace', () => offer.click());
    await page.waitForSelector('body[data-ready="true"]');
    // Sent again by itself, with the new token, and answered.
    await card.locator('pre.result', { hasText: 'pu pets' }).waitFor();
    await expect(card.locator('.form-status').textContent()).resolves.toContain('Retried after signing in again: 200');

    const authorizations = requests.filter((r) => r.url.origin === as.issuer && r.url.searchParams.get('response_type') === 'code').map((r) => r.url.searchParams);
    expect(authorizations).toHaveLength(2);
    expect(authorizations[0].get('scope')).toBe('text:echo');
    // What the token held, and what the 403 named.
    expect(authorizations[1].get('scope')).toBe('text:echo text:reverse');
    expect(authorizations[1].get('code_challenge_method')).toBe('S256');
    expect(authorizations[1].get('code_challenge')).not.toBe(authorizations[0].get('code_challenge'));
    const calls = requests.filter((r) => r.url.pathname === '/text/reverse');
    expect(calls).toHaveLength(2);
    const second = /^Bearer (.+)$/.exec(calls[1].authorization ?? '')?.[1] as string;
    expect(claimsOf(second)).toMatchObject({ sub: 'grace', client_id: PLAYGROUND_CLIENT });
    expect(String(claimsOf(second).scope).split(' ')).toContain('text:reverse');
    // The call waited out the redirect in sessionStorage with the verifier, and left with it.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
    expect(stored).toBe('{}');
    expect(errors.filter((e) => !/fonts\.googleapis|ERR_NAME_NOT_RESOLVED|favicon\.ico|401|403/.test(e))).toEqual([]);
  });

  it('takes a pasted access token, sends it on /talk and /news, and forgets it on reload (memory only)', async () => {
    const pasted = await as.token('agent-client', resource, 'text:reverse text:echo');
    const { page } = await chromium.newPage();
    const requests = recordRequests(page);
    await page.goto(`${resource}/playground`);
    const dialog = page.getByRole('dialog', { name: 'Sign-in needed' });
    await dialog.waitFor();
    await dialog.getByLabel('Access token').fill(pasted);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('#auth-status', { hasText: 'Using a pasted token' }).waitFor();

    await page.getByRole('textbox', { name: 'Message' }).fill('hello with a pasted token');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text', { hasText: REPLY }).waitFor();
    expect(requests.filter((r) => r.url.pathname === '/talk').map((r) => r.authorization)).toEqual([`Bearer ${pasted}`]);
    // The news feed retried with it and goes on with it.
    // (its retry went out when the dialog closed; a held poll may then wait a while before the next)
    expect(requests.some((r) => r.url.pathname === '/news' && r.authorization === `Bearer ${pasted}`)).toBe(true);

    // The curl snippet names a placeholder, never the token.
    const card = page.locator('#cap-text\\.echo');
    await card.locator('details.snippets summary').click();
    // The snippet is written on the details' toggle event, a task after the click: wait for it.
    const snippet = card.locator('pre.snippet', { hasText: 'Authorization: Bearer' });
    await snippet.waitFor();
    expect(await snippet.textContent()).toContain('Authorization: Bearer $ACCESS_TOKEN');
    expect(await snippet.textContent()).not.toContain(pasted);

    await page.reload();
    await dialog.waitFor();
    const after = requests.filter((r) => r.url.pathname === '/news').at(-1);
    expect(after?.authorization).toBeUndefined();
  });

  it('the resume of a dropped stream (GET /talk/{message_id}, talk.resume) carries the token too', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    llm.configure({ reply: words, chunkDelayMs: 100 });
    const pasted = await as.token('agent-client', resource, 'text:echo');
    const { page, context } = await chromium.newPage();
    const requests = recordRequests(page);
    await page.goto(`${resource}/playground`);
    const dialog = page.getByRole('dialog', { name: 'Sign-in needed' });
    await dialog.getByLabel('Access token').fill(pasted);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('talk for a while');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.locator('.msg.agent .text').last();
    await reply.filter({ hasText: 'word3 ' }).waitFor();
    await context.setOffline(true);
    await page.locator('.msg.agent .resume-note').last().filter({ hasText: 'resuming' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await context.setOffline(false);
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await reply.textContent()).toBe(words);
    const resumes = requests.filter((r) => /^\/talk\/msg_/.test(r.url.pathname));
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    for (const r of resumes) expect(r.authorization).toBe(`Bearer ${pasted}`);
    llm.configure({ reply: REPLY, chunkDelayMs: 0 });
  });

  it('issue 34 gap 4: a reload mid-turn forgets the token (memory only), so the resume asks for a sign-in; once signed in again the reply is picked up by itself', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    llm.configure({ reply: words, chunkDelayMs: 150 });
    const { page } = await chromium.newPage();
    const requests = recordRequests(page);
    await page.goto(`${resource}/playground`);
    const dialog = page.getByRole('dialog', { name: 'Sign-in needed' });
    await throughAuthorizationServer(page, as.issuer, `${resource}/playground`, 'lin', () => dialog.getByRole('button', { name: 'Sign in' }).click());
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByRole('textbox', { name: 'Message' }).fill('a long answer please');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.agent .text').last().filter({ hasText: 'word3 ' }).waitFor();
    const first = /^Bearer (.+)$/.exec(requests.find((r) => r.url.pathname === '/talk')?.authorization ?? '')?.[1] as string;

    await page.reload();
    // The turn waits in sessionStorage; the token did not survive: the resume meets 401 and the dialog asks.
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain('reply in progress');
    const refusedAt = requests.length;
    expect(requests.some((r) => /^\/talk\/msg_/.test(r.url.pathname) && r.authorization === undefined)).toBe(true);
    await throughAuthorizationServer(page, as.issuer, `${resource}/playground`, 'lin', () => dialog.getByRole('button', { name: 'Sign in' }).click());

    // Back: the resume goes on by itself with the new token, and the whole reply is there.
    const reply = page.locator('.msg.agent .text').last();
    await reply.filter({ hasText: 'word39' }).waitFor({ timeout: 60_000 });
    await page.locator('.msg.agent .text[aria-busy]').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await reply.textContent()).toBe(words);
    const resumes = requests.slice(refusedAt).filter((r) => /^\/talk\/msg_/.test(r.url.pathname));
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    const second = /^Bearer (.+)$/.exec(resumes[0].authorization ?? '')?.[1] as string;
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    expect(claimsOf(second)).toMatchObject({ sub: 'lin' });
    // Nothing of the token was kept across either reload; the turn leaves storage once done.
    await expect(page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))).resolves.toBe('{}');
    llm.configure({ reply: REPLY, chunkDelayMs: 0 });
  });
});
