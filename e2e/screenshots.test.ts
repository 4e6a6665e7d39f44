import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createChannel, createRedemptionCodes, relayChat, setOption, tokenKey } from './support/seed.js';

/**
 * `npm run screenshots`: every console screen at 1280 px and 390 px into docs/screenshots/ (skipped by
 * `npm test`). Toasts are hidden so the screens are clean.
 */
const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

interface Screen {
  readonly name: string;
  readonly path: string;
  readonly signedIn: boolean;
  /** Extra steps before the shot (open a menu, switch language…). */
  readonly prepare?: (page: Page) => Promise<void>;
}

const SCREENS: readonly Screen[] = [
  { name: 'home', path: '/', signedIn: false },
  { name: 'login', path: '/login', signedIn: false },
  { name: 'login-expired', path: '/login?expired=true', signedIn: false },
  { name: 'register', path: '/register', signedIn: false },
  { name: 'reset', path: '/reset', signedIn: false },
  {
    name: 'reset-confirm',
    path: '/user/reset?email=alice%40example.com&token=0123456789abcdef',
    signedIn: false,
  },
  { name: 'about', path: '/about', signedIn: false },
  { name: 'not-found', path: '/no/such/page', signedIn: false },
  { name: 'oauth-callback', path: '/oauth/github?code=x&state=y', signedIn: false },
  { name: 'token', path: '/token', signedIn: true },
  { name: 'token-add', path: '/token/add', signedIn: true },
  { name: 'token-edit', path: '/token/edit/2', signedIn: true },
  { name: 'topup', path: '/topup', signedIn: true },
  { name: 'log', path: '/log', signedIn: true },
  { name: 'setting', path: '/setting', signedIn: true },
  { name: 'user-edit', path: '/user/edit', signedIn: true },
  { name: 'chat', path: '/chat', signedIn: true },
  { name: 'channel', path: '/channel', signedIn: true },
  { name: 'channel-add', path: '/channel/add', signedIn: true },
  { name: 'channel-edit', path: '/channel/edit/1', signedIn: true },
  {
    name: 'channel-zh',
    path: '/channel',
    signedIn: true,
    prepare: async (page) => {
      await page.evaluate(() => localStorage.setItem('language', 'zh'));
      await page.reload();
      await page.getByTestId('channel-page').getByText('添加新的渠道').waitFor();
    },
  },
  { name: 'redemption', path: '/redemption', signedIn: true },
  { name: 'redemption-add', path: '/redemption/add', signedIn: true },
  { name: 'redemption-edit', path: '/redemption/edit/1', signedIn: true },
  { name: 'user', path: '/user', signedIn: true },
  { name: 'user-add', path: '/user/add', signedIn: true },
  { name: 'audit', path: '/audit', signedIn: true },
  { name: 'pricing', path: '/pricing', signedIn: true },
  {
    name: 'playground',
    path: '/playground',
    signedIn: true,
    prepare: async (page) => {
      await page.getByTestId('playground-input').fill('Say hello');
      await page.getByTestId('playground-send').click();
      await page.getByTestId('playground-stats').last().waitFor();
    },
  },
  { name: 'setting-operation', path: '/setting?tab=operation', signedIn: true },
  { name: 'setting-system', path: '/setting?tab=system', signedIn: true },
  { name: 'setting-other', path: '/setting?tab=other', signedIn: true },
  { name: 'dashboard', path: '/dashboard', signedIn: true },
  {
    name: 'dashboard-zh',
    path: '/dashboard',
    signedIn: true,
    prepare: async (page) => {
      await page.evaluate(() => localStorage.setItem('language', 'zh'));
      await page.reload();
      await page.getByTestId('chart-requests').locator('svg.recharts-surface').first().waitFor();
    },
  },
  {
    name: 'token-copy-menu',
    path: '/token',
    signedIn: true,
    prepare: async (page) => {
      await page.getByTestId('token-copy-menu').first().click();
      await page.getByRole('menu').waitFor();
    },
  },
  {
    name: 'token-zh',
    path: '/token',
    signedIn: true,
    prepare: async (page) => {
      await page.evaluate(() => localStorage.setItem('language', 'zh'));
      await page.reload();
      await page.getByText('我的令牌').waitFor();
    },
  },
  {
    name: 'login-zh',
    path: '/login',
    signedIn: false,
    prepare: async (page) => {
      await page.evaluate(() => localStorage.setItem('language', 'zh'));
      await page.reload();
      await page.getByText('登录 Sluice').waitFor();
    },
  },
  {
    name: 'log-dark',
    path: '/log',
    signedIn: true,
    prepare: async (page) => {
      await page.evaluate(() => localStorage.setItem('color_scheme', 'dark'));
      await page.reload();
      await page.getByTestId('log-page').waitFor();
    },
  },
];

const HIDE_TOASTS = '.mantine-Notifications-root { display: none !important; }';

describe.runIf(process.env['SLUICE_SCREENSHOTS'])('screenshots', () => {
  let harness: Harness;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    harness = await startHarness();
    upstream = await startOpenAiDouble();
    const root = await harness.root();
    await createChannel(root, upstream.url);
    await setOption(root, 'ChatLink', `${harness.url}/about`);
    await root.post('/api/token/', {
      name: 'laptop',
      remain_quota: 500000,
      expired_time: -1,
      models: 'gpt-4o-mini',
    });
    await root.post('/api/token/', {
      name: 'ci-runner',
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
    const key = await tokenKey(root, 'laptop');
    for (let call = 0; call < 3; call += 1) await relayChat(harness.url, key);
    for (const [username, group] of [
      ['alice', 'vip'],
      ['bob', 'svip'],
    ] as const) {
      await root.post('/api/user/', { username, password: `${username}-password` });
      const found = await root.get(`/api/user/search?keyword=${username}`);
      const id = (found.body.data as { id: number }[])[0]?.id ?? 0;
      await root.put('/api/user/', { id, group, quota: 1_000_000 });
    }
    const [code] = await createRedemptionCodes(root, 'welcome', 250_000);
    await root.post('/api/user/topup', { key: code });
    await createRedemptionCodes(root, 'spring', 100_000, 2);
    await root.get('/api/channel/test/1');
    await harness.test.sluice.idle();
  });
  afterAll(async () => {
    await upstream?.close();
    await harness?.close();
  });

  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['mobile', MOBILE],
  ] as const) {
    it(`takes every screen at ${viewport.width} px`, { timeout: 180_000 }, async () => {
      const visitor = await harness.newPage({ viewport });
      const member = await harness.newPage({ viewport });
      await loginThroughForm(member, 'root', '123456');
      await member.waitForURL('**/user/edit');
      for (const screen of SCREENS) {
        const page = screen.signedIn ? member : visitor;
        await page.goto(screen.path);
        await page.waitForLoadState('networkidle');
        await screen.prepare?.(page);
        await page.addStyleTag({ content: HIDE_TOASTS });
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${OUT}${screen.name}-${label}.png`, fullPage: !screen.prepare });
        // Language and theme switches are remembered: forget them for the next screen.
        await page.evaluate(() =>
          ['language', 'color_scheme'].forEach((key) => localStorage.removeItem(key)),
        );
      }
      if (label === 'mobile') {
        await member.goto('/token');
        await member.addStyleTag({ content: HIDE_TOASTS });
        await member.getByTestId('nav-burger').click();
        await member.getByTestId('nav').waitFor();
        await member.waitForTimeout(300);
        await member.screenshot({ path: `${OUT}menu-mobile.png` });
      }
    });
  }
});
