import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../server/src/test-support/smtp-sink.js';
import { loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';
import { setOption } from './support/seed.js';

/** Registration with an email code, and a password reset by mail, through the console. */
describe('console: email verification and password reset', () => {
  let harness: Harness;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    harness = await startHarness();
    const root = await harness.root();
    for (const [key, value] of Object.entries({
      ServerAddress: harness.url,
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      EmailVerificationEnabled: 'true',
    }))
      await setOption(root, key, value);
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.close();
  });

  it('registers with the emailed code, then resets the forgotten password from the mailed link', async () => {
    const page = await harness.newPage();
    await page.goto('/register');
    await page.locator('input[name="username"]').fill('bob');
    await page.locator('input[name="password"]').fill('bob-password');
    await page.locator('input[name="password2"]').fill('bob-password');
    await page.locator('input[name="email"]').fill('bob@example.com');
    await page.getByRole('button', { name: 'Get code' }).click();
    await page.getByRole('button', { name: /Resend \(\d+ s\)/ }).waitFor();
    const code = /\b([0-9a-f]{6})\b/.exec((await smtp.next('bob@example.com')).body)?.[1] ?? '';
    expect(code).not.toBe('');
    await page.locator('input[name="verification_code"]').fill(code);
    await page.getByTestId('register-submit').click();
    await page.waitForURL('**/login');

    await page.goto('/reset');
    await page.locator('input[type="email"]').fill('bob@example.com');
    await page.getByTestId('reset-submit').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Reset mail sent'));
    expect(await page.getByTestId('reset-submit').isDisabled()).toBe(true);
    const mail = (await smtp.next('bob@example.com')).body.replace(/&amp;/g, '&');
    const link = new RegExp(`${harness.url}/user/reset\\?[^"\\s<]+`).exec(mail)?.[0] ?? '';
    expect(link).not.toBe('');

    await page.goto(link);
    await page.getByTestId('reset-confirm').click();
    const password = await page.getByTestId('new-password').inputValue();
    expect(password).toMatch(/^\S{8,}$/);
    expect(await page.getByTestId('reset-confirm').isDisabled()).toBe(true);

    await loginThroughForm(page, 'bob', password);
    await page.waitForURL('**/token');
  });
});
