import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { apiClient, type ApiClient } from '../../server/src/test-support/api-client.js';
import { listenSluice, type Listening } from '../../server/src/test-support/listen.js';
import { startTestSluice, type TestSluice } from '../../server/src/test-support/test-sluice.js';

/** The built console (`npm run build -w web`), served by the Sluice under test. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Debian's Chromium: never a downloaded browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const DESKTOP = { width: 1280, height: 800 } as const;
export const MOBILE = { width: 390, height: 844 } as const;

export interface ContextOptions {
  readonly viewport?: { width: number; height: number };
  readonly locale?: string;
  /** Grants clipboard read and write for the console's origin. */
  readonly clipboard?: boolean;
  /** The browser's `prefers-color-scheme` (light by default). */
  readonly colorScheme?: 'light' | 'dark';
}

export interface Harness {
  /** The console's origin, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  readonly test: TestSluice;
  readonly browser: Browser;
  /** An in-process API client (its own cookie jar), logged in as root with the default password. */
  root(): Promise<ApiClient>;
  newContext(options?: ContextOptions): Promise<BrowserContext>;
  newPage(options?: ContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/** A real Sluice on a fresh SQLite database serving the built console, and a Chromium. */
export const startHarness = async (env: Record<string, string> = {}): Promise<Harness> => {
  if (!existsSync(`${WEB_DIST}/index.html`))
    throw new Error(`the console is not built: run \`npm run build -w web\` (looked in ${WEB_DIST})`);
  const test = await startTestSluice('sqlite', { WEB_DIST_PATH: WEB_DIST, ...env });
  let listening: Listening | undefined;
  let browser: Browser | undefined;
  try {
    listening = await listenSluice(test.sluice);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  } catch (error) {
    await listening?.close();
    await test.close();
    throw error;
  }
  const url = listening.url;
  const launched = browser;
  const contexts: BrowserContext[] = [];
  const newContext = async (options: ContextOptions = {}) => {
    const context = await launched.newContext({
      baseURL: url,
      viewport: options.viewport ?? DESKTOP,
      locale: options.locale ?? 'en-US',
      colorScheme: options.colorScheme ?? 'light',
    });
    context.setDefaultTimeout(10_000);
    // Toasts stay readable (toastTexts) but never take a click meant for the screen below them.
    await context.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const style = document.createElement('style');
        style.textContent = '.mantine-Notifications-root { pointer-events: none !important; }';
        document.head.append(style);
      });
    });
    if (options.clipboard)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    contexts.push(context);
    return context;
  };
  return {
    url,
    test,
    browser: launched,
    root: async () => {
      const client = apiClient(test.sluice.app);
      await client.login('root', '123456');
      return client;
    },
    newContext,
    newPage: async (options) => (await newContext(options)).newPage(),
    close: async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await launched.close();
      await listening.close();
      await test.close();
    },
  };
};

/** Logs in through the login form. */
export const loginThroughForm = async (page: Page, username: string, password: string): Promise<void> => {
  await page.goto('/login');
  await page.locator('input[name="username"]').fill(username);
  await page.locator('input[name="password"]').fill(password);
  await page.getByTestId('login-submit').click();
};

/** True when the element is inside the viewport (an off-canvas menu is not). */
export const inViewport = (page: Page, testId: string): Promise<boolean> =>
  page.evaluate((id) => {
    const box = document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect();
    return box !== undefined && box.width > 0 && box.right > 0 && box.left < window.innerWidth;
  }, testId);

/** The text of the visible toasts. */
export const toastTexts = (page: Page) => page.locator('.mantine-Notification-root').allInnerTexts();

/** Collects the page's uncaught errors (a render loop, a stack overflow) from now on. */
export const pageErrors = (page: Page): string[] => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
};
