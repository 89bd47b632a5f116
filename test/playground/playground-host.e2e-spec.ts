import { get } from 'node:http';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import type { RunningApp } from '../support/sample-app';
import { useBrowser } from '../support/browser';
import { startShop } from './fixtures/shop.app';

jest.setTimeout(180_000);

/** The page, then every module it loads (ES imports followed), with their sizes. */
async function crawl(base: string, pagePath: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const page = await fetch(base + pagePath);
  const html = await page.text();
  sizes.set(pagePath, Buffer.byteLength(html));
  const pending = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]).filter((p) => p.startsWith(pagePath));
  while (pending.length) {
    const path = pending.pop() as string;
    if (sizes.has(path)) continue;
    const res = await fetch(base + path);
    expect(res.status).toBe(200);
    const text = await res.text();
    sizes.set(path, Buffer.byteLength(text));
    for (const [, rel] of text.matchAll(/from '(\.\/[^']+)'/g)) pending.push(new URL(rel, base + path).pathname);
  }
  return sizes;
}

/** GET with the path sent exactly as written (fetch would resolve the dot segments first). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    get({ hostname, port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('Playground in a host app under a global prefix (issue 17)', () => {
  let db: TestDatabase;
  let shop: RunningApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    shop = await startShop(db.target, 'api', '/console');
  });
  afterAll(async () => {
    await shop?.close();
    await db?.drop();
  });

  describe('serving: a fixed in-memory asset map below the prefix', () => {
    it('serves the page at /api/console with the CSP, no-cache and an ETag (304 when it matches); HEAD too', async () => {
      for (const path of ['/api/console', '/api/console/']) {
        const res = await fetch(shop.url + path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'; style-src 'self';.*connect-src 'self'/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-powered-by')).toBeNull();
        expect(res.headers.get('cache-control')).toBe('no-cache');
        const etag = res.headers.get('etag') as string;
        const again = await fetch(shop.url + path, { headers: { 'If-None-Match': etag } });
        expect(again.status).toBe(304);
      }
      const head = await fetch(`${shop.url}/api/console`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    });

    it('names its assets under a content-hashed path, cached for good; the whole page transfers under 100 KB', async () => {
      const sizes = await crawl(shop.url, '/api/console');
      const assets = [...sizes.keys()].filter((p) => p !== '/api/console');
      expect(assets).toEqual(expect.arrayContaining([expect.stringMatching(/^\/api\/console\/assets\/[\w-]{12}\/app\.js$/), expect.stringMatching(/playground\.css$/)]));
      expect(assets.length).toBeGreaterThan(5); // the entry module's imports were followed
      for (const path of assets) {
        const res = await fetch(shop.url + path);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('content-type')).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      }
      const total = [...sizes.values()].reduce((a, b) => a + b, 0);
      process.stdout.write(`playground transfer: ${total} bytes in ${sizes.size} files\n`);
      expect(total).toBeLessThan(100 * 1024);
    });

    it('answers a path outside the map (traversal attempts included) with a JSON 404, and other methods with 405', async () => {
      const page = await (await fetch(`${shop.url}/api/console`)).text();
      const assetDir = /src="(\/api\/console\/assets\/[^/]+)\/app\.js"/.exec(page)?.[1] as string;
      for (const path of [`${assetDir}/nope.js`, `${assetDir}/../../../../package.json`, `${assetDir}/%2e%2e/%2e%2e/package.json`,
        `${assetDir}/..%2f..%2fpackage.json`, '/api/console/assets/app.js', '/api/console/index.html', `${assetDir}/app.js/`]) {
        const res = await rawGet(shop.url, path);
        const text = res.body;
        expect(res.status).toBe(404);
        expect(JSON.parse(text)).toMatchObject({ error: 'not_found' });
        expect(text).not.toContain('"name"');
      }
      const post = await fetch(`${shop.url}/api/console`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      await expect(post.json()).resolves.toMatchObject({ error: 'method_not_allowed' });
    });

    it('is not served outside its path: /console without the prefix and the default /playground are the host\'s 404s', async () => {
      for (const path of ['/console', '/playground', '/api/playground']) {
        expect((await fetch(shop.url + path)).status).toBe(404);
      }
    });
  });

  describe('in the browser', () => {
    const chromium = useBrowser();

    it('talks through the prefixed /api/talk, with no console error', async () => {
      const { page, errors } = await chromium.newPage();
      await page.goto(`${shop.url}/api/console`);
      await page.waitForSelector('body[data-ready="true"]');
      await expect(page.locator('#agent-name').textContent()).resolves.toBe('Widget Shop');
      await expect(page.locator('.finding.ok').count()).resolves.toBe(1);
      await page.getByRole('textbox', { name: 'Message' }).fill('hello shop');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.msg.agent .text', { hasText: 'shop heard: hello shop' }).waitFor();
      expect(errors).toEqual([]);
    });

    it('renders status, tool.* steps (collapsible) and artifact events, and an error event as an error', async () => {
      const { page, errors } = await chromium.newPage();
      await page.goto(`${shop.url}/api/console`);
      await page.waitForSelector('body[data-ready="true"]');
      const message = page.getByRole('textbox', { name: 'Message' });
      await message.fill('tools');
      await message.press('Enter');
      const bubble = page.locator('.msg.agent').last();
      await bubble.locator('.text', { hasText: 'Widgets are in stock.' }).waitFor();
      await expect(bubble.locator('.status').textContent()).resolves.toBe('Looking up the stock');
      const step = bubble.locator('details.tool');
      await expect(step.locator('summary').textContent()).resolves.toBe('Tool: stock.lookup ✓');
      await expect(step.evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(false);
      await step.locator('summary').click();
      await expect(step.locator('pre').textContent()).resolves.toContain('12 in stock');
      await expect(bubble.locator('figure.artifact figcaption').textContent()).resolves.toBe('quote.json');
      await expect(bubble.locator('figure.artifact pre').textContent()).resolves.toContain('"price": 9.5');

      await message.fill('fail');
      await message.press('Enter');
      const failed = page.locator('.msg.agent.failed').last();
      await failed.locator('[role=alert]').waitFor();
      await expect(failed.locator('.text').textContent()).resolves.toBe('Starting… ');
      await expect(page.getByRole('button', { name: 'Send' }).isEnabled()).resolves.toBe(true);
      expect(errors).toEqual([]);
    });

    it('builds the order form from the schema (nested object, enum, integer, boolean, array, email), checks it in the browser, and shows the result', async () => {
      const { page, errors } = await chromium.newPage();
      const sent: string[] = [];
      page.on('request', (r) => r.url().endsWith('/api/orders') && sent.push(r.method()));
      await page.goto(`${shop.url}/api/console`);
      const card = page.locator('#cap-shop\\.order');
      await card.waitFor();
      await card.getByRole('textbox', { name: /^email/ }).fill('not-an-email');
      await card.getByRole('combobox', { name: /^size/ }).selectOption({ label: '"M"' });
      await card.getByRole('textbox', { name: /^quantity/ }).fill('11');
      await card.getByRole('button', { name: 'Run' }).click();
      await card.locator('.field-error', { hasText: 'must be a valid email' }).waitFor();
      await card.locator('.field-error', { hasText: 'must be ≤ 10' }).waitFor();
      await card.locator('.field-error', { hasText: 'needs at least 1 items' }).or(card.locator('.field-error', { hasText: 'is required' })).first().waitFor();
      expect(sent).toEqual([]); // nothing left the browser

      await card.getByRole('textbox', { name: /^email/ }).fill('ada@example.com');
      await card.getByRole('textbox', { name: /^quantity/ }).fill('3');
      await card.getByRole('checkbox', { name: /^gift/ }).check();
      await card.getByRole('button', { name: /Add tags item/ }).click();
      await card.getByRole('button', { name: /Add tags item/ }).click();
      await card.getByRole('textbox', { name: /^item 1/ }).fill('blue');
      await card.getByRole('textbox', { name: /^item 2/ }).fill('large');
      await card.getByRole('textbox', { name: /^city/ }).fill('Paris');
      await card.getByRole('button', { name: 'Run' }).click();
      const result = card.locator('pre.result');
      await result.filter({ hasText: 'ord_1' }).waitFor();
      expect(JSON.parse((await result.textContent()) as string)).toEqual({ order_id: 'ord_1', summary: '3 × M to Paris for ada@example.com (gift), tags blue+large' });
      expect(sent).toEqual(['POST']);
      expect(errors).toEqual([]);
    });

    it("shows the server's message under the field it names when only the server knows the rule", async () => {
      const { page } = await chromium.newPage();
      await page.goto(`${shop.url}/api/console`);
      const card = page.locator('#cap-shop\\.order');
      await card.waitFor();
      await card.getByRole('textbox', { name: /^email/ }).fill('ada@example.com');
      await card.getByRole('combobox', { name: /^size/ }).selectOption({ label: '"S"' });
      await card.getByRole('textbox', { name: /^quantity/ }).fill('1');
      await card.getByRole('button', { name: /Add tags item/ }).click();
      await card.getByRole('textbox', { name: /^item 1/ }).fill('x');
      await card.getByRole('textbox', { name: /^city/ }).fill('Oslo');
      await card.getByRole('textbox', { name: /^note/ }).fill('a forbidden word');
      await card.getByRole('button', { name: 'Run' }).click();
      const note = card.getByRole('textbox', { name: /^note/ });
      await card.locator('.field-error', { hasText: 'note should not contain a forbidden string' }).waitFor();
      await expect(note.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(card.locator('.form-status').textContent()).resolves.toContain('400 invalid_request');
      // The copy-ready curl names the prefixed endpoint and the body as typed.
      const curl = await card.locator('details.snippets pre').evaluate(async (pre, summary) => {
        (pre.closest('details') as HTMLDetailsElement).open = true;
        await new Promise((r) => setTimeout(r, 50));
        return pre.textContent + summary;
      }, '');
      expect(curl).toContain(`curl -X POST '${shop.url}/api/orders'`);
      expect(curl).toContain('"note":"a forbidden word"');
    });

    it('shows each capability as a RESTAP endpoint, an MCP tool and an A2A skill when the catalog lists those doors, with a snippet for each', async () => {
      const { page, errors } = await chromium.newPage();
      await page.goto(`${shop.url}/api/console`);
      await expect(page.locator('#doors').textContent()).resolves.toMatch(/RESTAP.*MCP \/api\/mcp.*A2A \/api\/a2a/);
      const card = page.locator('#cap-shop\\.order');
      const doors = await card.locator('.door-list li').allTextContents();
      expect(doors).toEqual(['RESTAP POST /api/orders', 'MCP tool shop_order at /api/mcp', 'A2A skill shop.order at /api/a2a']);
      await card.locator('details.snippets summary').click();
      const tabs = card.getByRole('tab');
      await expect(tabs.allTextContents()).resolves.toEqual(['curl', 'fetch', 'MCP', 'A2A']);
      await tabs.filter({ hasText: 'MCP' }).click();
      await expect(card.locator('details.snippets pre').textContent()).resolves.toContain(`callTool({ name: "shop_order"`);
      await tabs.filter({ hasText: 'A2A' }).click();
      await expect(card.locator('details.snippets pre').textContent()).resolves.toContain('"capability":"shop.order"');
      expect(errors).toEqual([]);
    });
  });
});
