import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

/**
 * Debian's chromium, driven by playwright-core (pinned in package.json). Playwright's own browser
 * download is not reachable here; playwright-core 1.65 targets Chromium 159 and drives Debian's 156.
 * `.ci/run` installs the package with apt-get when it is missing.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Generous: two cores shared by several test runs. */
export const UI_TIMEOUT = 30_000;

export interface BrowserHandle {
  readonly browser: Browser;
  /** A fresh page in its own context, recording console errors and uncaught page errors. */
  newPage(options?: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } }): Promise<WatchedPage>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console messages of type error and uncaught exceptions, as text. */
  errors: string[];
}

/** Registers beforeAll/afterAll launching one headless Chromium for the file; logs its version once. */
export function useBrowser(): BrowserHandle {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, timeout: 60_000 });
    process.stdout.write(`playground tests: Chromium ${browser.version()} (${CHROMIUM_PATH}) via playwright-core\n`);
  }, 90_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('useBrowser(): the browser starts in beforeAll.');
      return browser;
    },
    async newPage(options = {}) {
      if (!browser) throw new Error('useBrowser(): the browser starts in beforeAll.');
      const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
      contexts.push(context);
      context.setDefaultTimeout(UI_TIMEOUT);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message: ConsoleMessage) => {
        if (message.type() === 'error') errors.push(`console: ${message.text()} @ ${message.location().url}`);
      });
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      return { page, context, errors };
    },
  };
}
