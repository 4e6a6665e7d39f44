import type { AuditRow } from '@sluice/contract/schemas/audit';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../test-support/api-client.js';
import { signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { startGitHubDouble, type GitHubDouble } from '../test-support/oauth-provider-doubles.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

describe.each(testDialects())('a third-party sign-in of a user with TOTP on %s', (dialect) => {
  let test: TestSluice;
  let github: GitHubDouble;
  beforeAll(async () => {
    github = await startGitHubDouble();
    test = await startTestSluice(dialect, { GITHUB_OAUTH_URL: github.url, GITHUB_API_URL: github.url });
    for (const [key, value] of Object.entries({
      GitHubClientId: github.clientId,
      GitHubClientSecret: github.clientSecret,
      GitHubOAuthEnabled: 'true',
    }))
      await test.sluice.services.options.update(key, value);
  });
  afterAll(async () => {
    await test?.close();
    await github?.close();
  });

  it('asks for the second factor before it signs the user in', async () => {
    const user = await signInNewUser(test, 'octo2fa');
    await test.sluice.database.db
      .updateTable('users')
      .set({ github_id: 'octo2fa-gh' })
      .where('id', '=', user.id)
      .execute();
    const setup = (await user.client.post('/api/user/2fa/totp/setup')).body.data as { secret: string };
    const totp = new TOTP({ secret: Secret.fromBase32(setup.secret) });
    await user.client.post('/api/user/2fa/totp/enable', { code: totp.generate() });

    const browser = apiClient(test.sluice.app);
    const state = (await browser.get('/api/oauth/state')).body.data as string;
    const code = github.authorize({ login: 'octo2fa-gh', name: null, email: null });
    const answer = await browser.get(`/api/oauth/github?code=${code}&state=${state}`);
    expect(answer.body.data).toEqual({ require_2fa: true, totp: true, passkey: false });
    expect((await browser.get('/api/user/self')).status).toBe(401);
    const done = await browser.post('/api/user/login/2fa', {
      code: totp.generate({ timestamp: Date.now() + 30_000 }),
    });
    expect(done.body.data).toMatchObject({ username: 'octo2fa' });
    expect((await browser.get('/api/user/self')).body.data).toMatchObject({ username: 'octo2fa' });
    const root = await signInRoot(test);
    const [row] = (await root.get('/api/audit/?username=octo2fa&action=sign_in')).body.data as AuditRow[];
    expect(row?.detail).toBe('github+totp');
  });
});
