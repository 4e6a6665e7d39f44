import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startGitHubDouble,
  startWeChatServerDouble,
  type GitHubDouble,
  type WeChatServerDouble,
} from '../server/src/test-support/oauth-provider-doubles.js';
import { DESKTOP, MOBILE, startHarness, toastTexts, type Harness } from './support/harness.js';
import { setOption } from './support/seed.js';

/** Third-party login through the console: GitHub's redirect (a double) and the WeChat code dialog. */
describe('console: third-party login', () => {
  let harness: Harness;
  let github: GitHubDouble;
  let wechat: WeChatServerDouble;
  beforeAll(async () => {
    [github, wechat] = await Promise.all([startGitHubDouble(), startWeChatServerDouble()]);
    harness = await startHarness({ GITHUB_OAUTH_URL: github.url, GITHUB_API_URL: github.url });
    const root = await harness.root();
    await setOption(root, 'GitHubClientId', github.clientId);
    await setOption(root, 'GitHubClientSecret', github.clientSecret);
    await setOption(root, 'GitHubOAuthEnabled', 'true');
    await setOption(root, 'WeChatServerAddress', wechat.url);
    await setOption(root, 'WeChatServerToken', wechat.token);
    await setOption(root, 'WeChatAuthEnabled', 'true');
  });
  afterAll(async () => {
    await harness?.close();
    await github?.close();
    await wechat?.close();
  });

  it('logs in with GitHub: authorization page, callback, then home', async () => {
    const context = await harness.newContext();
    const code = github.authorize({ login: 'octocat', name: 'The Octocat', email: null });
    let authorizeUrl = '';
    // Stand in for github.com: it sends the browser back to the callback with the code and the state.
    await context.route('https://github.com/**', async (route) => {
      authorizeUrl = route.request().url();
      const state = new URL(authorizeUrl).searchParams.get('state') ?? '';
      await route.fulfill({
        status: 302,
        headers: { location: `${harness.url}/oauth/github?code=${code}&state=${state}` },
      });
    });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByTestId('oauth-github').click();
    await page.waitForURL(`${harness.url}/`);
    expect(authorizeUrl).toMatch(
      new RegExp(
        `^https://github\\.com/login/oauth/authorize\\?client_id=${github.clientId.replace('.', '\\.')}&state=\\w+&scope=user:email$`,
      ),
    );
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Login successful!'));
    await page.getByTestId('user-menu').filter({ hasText: 'github_' }).waitFor();
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const)('leaves a refused GitHub callback at once, with its message (%s)', async (_, viewport) => {
    const page = await harness.newPage({ viewport });
    await page.goto('/login');
    const started = Date.now();
    await page.goto('/oauth/github?code=never-issued&state=not-ours');
    // /setting needs a login: the guard then sends the visitor on to /login.
    await page.waitForURL((url) => !url.pathname.startsWith('/oauth/'), { timeout: 5_000 });
    // Loading the console and one refused call: well under the 2 s + 4 s the retries used to wait.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await toastTexts(page)).toContainEqual(expect.stringMatching(/state|code|OAuth/i));
  });

  it('logs in with the WeChat QR code dialog', async () => {
    const page = await harness.newPage();
    await page.goto('/login');
    await page.getByTestId('oauth-wechat').click();
    await page.getByTestId('code-input').fill(wechat.issueCode('wx-alice'));
    await page.getByRole('dialog').getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${harness.url}/`);
    await page.getByTestId('user-menu').filter({ hasText: 'wechat_' }).waitFor();
  });
});
