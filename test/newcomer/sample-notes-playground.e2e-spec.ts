import { useSampleAgent } from '../support/sample-app';
import { useBrowser, type WatchedPage } from '../support/browser';

jest.setTimeout(180_000);

describe('issue 40 item 12: the sample\'s notes in the playground (headless Chromium)', () => {
  const agent = useSampleAgent();
  const chromium = useBrowser();
  let watched: WatchedPage;
  beforeAll(async () => {
    watched = await chromium.newPage();
  });

  it('the notes.create card stores a note; the notes.get card takes its integer id (1.5 is stopped in the browser) and shows it', async () => {
    const { page, errors } = watched;
    await page.goto(`${agent.url}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    const create = page.locator('#cap-notes\\.create');
    await create.getByRole('textbox', { name: /^title/ }).fill('From the playground');
    await create.getByRole('button', { name: 'Run' }).click();
    await create.locator('pre.result').filter({ hasText: 'From the playground' }).waitFor();
    const { id } = JSON.parse((await create.locator('pre.result').textContent()) as string) as { id: number };

    const get = page.locator('#cap-notes\\.get');
    const idField = get.locator('.params').getByRole('textbox', { name: /^id/ });
    await idField.fill('1.5');
    await get.getByRole('button', { name: 'Run' }).click();
    await expect(get.locator('.form-status').textContent()).resolves.toContain('Not sent');
    await idField.fill(String(id));
    await get.getByRole('button', { name: 'Run' }).click();
    await get.locator('pre.result').filter({ hasText: 'From the playground' }).waitFor();
    expect(JSON.parse((await get.locator('pre.result').textContent()) as string)).toMatchObject({ id, title: 'From the playground' });
    expect(errors).toEqual([]);
  });
});
