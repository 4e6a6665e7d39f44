import { OPTION_DEFINITIONS, OPTION_KEYS, isSecretOptionKey } from '@sluice/contract/option-keys';
import { ROLES } from '@sluice/contract/roles';
import { statusSchema } from '@sluice/contract/schemas/status';
import { USER_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { SLUICE_VERSION } from '../lib/version.js';
import { apiClient, type ApiClient, type ApiResponse } from '../test-support/api-client.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const INSUFFICIENT_ROLE = 'no permission: insufficient role';
const NOT_LOGGED_IN = 'no permission: not logged in and no access token';

/** Secrets one-api hides (plus TurnstileSecretKey, which one-api leaks and Sluice must not). */
const SECRETS: Record<string, string> = {
  SMTPToken: 'smtp-token-value-5d1c',
  GitHubClientSecret: 'github-secret-value-9a7e',
  TurnstileSecretKey: 'turnstile-secret-value-33f0',
  WeChatServerToken: 'wechat-token-value-b812',
  MessagePusherToken: 'pusher-token-value-0c4a',
  LarkClientSecret: 'lark-secret-value-7e21',
  // Not in Sluice's table: one-api's OIDC secret, hidden by its name.
  OidcClientSecret: 'oidc-secret-value-4b9d',
};

type OptionList = { key: string; value: string }[];

const asOptionList = (response: ApiResponse): OptionList => {
  expect(response.status).toBe(200);
  expect(response.body.success).toBe(true);
  expect(Array.isArray(response.body.data)).toBe(true);
  return response.body.data as OptionList;
};

const toMap = (list: OptionList): Map<string, string> => new Map(list.map(({ key, value }) => [key, value]));

describe.each(testDialects())('options and status on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = apiClient(test.sluice.app);
    await root.login('root', '123456');
  });
  afterAll(() => test?.close());

  /** The options table as stored, read directly. */
  const storedRows = async (): Promise<Map<string, string | null>> => {
    const rows = await test.sluice.database.db.selectFrom('options').select(['key', 'value']).execute();
    return new Map(rows.map((row) => [row.key, row.value]));
  };

  const listed = async (): Promise<Map<string, string>> =>
    toMap(asOptionList(await root.get('/api/option/')));

  const put = (key: string, value: unknown, client: ApiClient = root) =>
    client.put('/api/option/', { key, value });

  const putOk = async (key: string, value: string): Promise<void> => {
    const response = await put(key, value);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: '' });
  };

  const status = async () => {
    const response = await apiClient(test.sluice.app).get('/api/status');
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    return statusSchema.strict().parse(response.body.data);
  };

  /** Refused with HTTP 200 success:false, and nothing stored nor applied. */
  const expectRefused = async (key: string, value: unknown, message?: RegExp): Promise<void> => {
    const rowsBefore = await storedRows();
    const listBefore = await listed();
    const response = await put(key, value);
    expect(response.status, `${key}=${JSON.stringify(value)}`).toBe(200);
    expect(response.body.success, `${key}=${JSON.stringify(value)}`).toBe(false);
    expect(response.body.message).toEqual(expect.any(String));
    expect(response.body.message).not.toBe('');
    if (message) expect(response.body.message).toMatch(message);
    expect(await storedRows()).toEqual(rowsBefore);
    expect(await listed()).toEqual(listBefore);
  };

  const createUser = async (username: string, role: number): Promise<ApiClient> => {
    await test.sluice.database.db
      .insertInto('users')
      .values({
        username,
        password: await hashPassword('user-password-1'),
        display_name: username,
        role,
        status: USER_STATUS.enabled,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
      })
      .execute();
    const client = apiClient(test.sluice.app);
    await client.login(username, 'user-password-1');
    return client;
  };

  it('lists every option with its default before anything is stored', async () => {
    expect(await storedRows()).toEqual(new Map());
    const list = asOptionList(await root.get('/api/option/'));
    for (const entry of list) {
      expect(Object.keys(entry).sort()).toEqual(['key', 'value']);
      expect(typeof entry.value).toBe('string');
    }
    const options = toMap(list);
    expect(options.size).toBe(list.length);
    const publicKeys = OPTION_KEYS.filter((key) => !isSecretOptionKey(key));
    expect([...options.keys()].sort()).toEqual([...publicKeys].sort());
    const merged: string[] = ['ModelRatio', 'CompletionRatio', 'CacheReadRatio', 'CacheWriteRatio'];
    for (const key of publicKeys.filter((name) => !merged.includes(name)))
      expect(options.get(key), key).toBe(OPTION_DEFINITIONS[key].defaultValue);
    // the ratio maps are shown merged over the built-in prices, as one-api shows them
    expect(JSON.parse(options.get('ModelRatio') ?? '')).toMatchObject({
      'gpt-4o': 2.5,
      'gpt-3.5-turbo': 0.25,
    });
    expect(JSON.parse(options.get('CompletionRatio') ?? '')).toMatchObject({ 'deepseek-chat': 2 });
    expect(JSON.parse(options.get('CacheReadRatio') ?? '')).toMatchObject({
      'gpt-4o': 0.5,
      'claude-3-5-sonnet-20241022': 0.1,
    });
    expect(JSON.parse(options.get('CacheWriteRatio') ?? '')).toMatchObject({
      'claude-3-5-sonnet-20241022': 1.25,
    });
    expect(options.get('SystemName')).toBe('Sluice');
    expect(options.get('QuotaPerUnit')).toBe('500000');
    expect(options.get('PasswordLoginEnabled')).toBe('true');
    expect(options.get('EmailVerificationEnabled')).toBe('false');
    expect(options.get('Theme')).toBe('default');
    expect(options.get('SMTPPort')).toBe('587');
    expect(options.get('PreConsumedQuota')).toBe('500');
    expect(JSON.parse(options.get('GroupRatio') ?? '')).toEqual({ default: 1, vip: 1, svip: 1 });
    expect(options.get('EmailDomainWhitelist')?.split(',')).toContain('gmail.com');
  });

  it('answers GET with and without the trailing slash', async () => {
    const withSlash = asOptionList(await root.get('/api/option/'));
    const withoutSlash = asOptionList(await root.get('/api/option'));
    expect(withoutSlash).toEqual(withSlash);
  });

  it('stores secrets but never answers their keys or values', async () => {
    for (const [key, value] of Object.entries(SECRETS)) await putOk(key, value);
    const stored = await storedRows();
    for (const [key, value] of Object.entries(SECRETS)) expect(stored.get(key), key).toBe(value);

    const response = await root.get('/api/option/');
    expect(response.body.success).toBe(true);
    for (const [key, value] of Object.entries(SECRETS)) {
      expect(response.text, key).not.toContain(key);
      expect(response.text, key).not.toContain(value);
    }
    const statusText = (await apiClient(test.sluice.app).get('/api/status')).text;
    for (const value of Object.values(SECRETS)) expect(statusText).not.toContain(value);
  });

  it('accepts only true or false for a boolean option', async () => {
    for (const value of ['yes', '1', 'TRUE', 'on', ''])
      await expectRefused('PasswordRegisterEnabled', value, /true or false/);
    await putOk('PasswordRegisterEnabled', 'false');
    expect((await listed()).get('PasswordRegisterEnabled')).toBe('false');
    expect((await storedRows()).get('PasswordRegisterEnabled')).toBe('false');
    await putOk('PasswordRegisterEnabled', ' true ');
    expect((await storedRows()).get('PasswordRegisterEnabled')).toBe('true');
  });

  it('accepts only non-negative numbers for a numeric option', async () => {
    for (const value of ['abc', '1.5', '-1', '', '1e3', '12abc', 'Infinity'])
      await expectRefused('QuotaForNewUser', value);
    for (const value of ['abc', '-0.5', '', '1e6', 'NaN']) await expectRefused('QuotaPerUnit', value);
    await expectRefused('SMTPPort', 'smtp');
    await expectRefused('ChannelDisableThreshold', '-3');
    await putOk('QuotaForNewUser', '100');
    await putOk('ChannelDisableThreshold', '2.5');
    const options = await listed();
    expect(options.get('QuotaForNewUser')).toBe('100');
    expect(options.get('ChannelDisableThreshold')).toBe('2.5');
    expect(test.sluice.services.options.values.QuotaForNewUser).toBe(100);
    expect(test.sluice.services.options.values.ChannelDisableThreshold).toBe(2.5);
  });

  it.each(['ModelRatio', 'GroupRatio', 'CompletionRatio', 'CacheReadRatio', 'CacheWriteRatio'])(
    'accepts only a JSON object of non-negative numbers for %s',
    async (key) => {
      for (const value of [
        'not json',
        '{"gpt-4":',
        '[1,2]',
        'null',
        '3',
        '"text"',
        '{"gpt-4":-1}',
        '{"gpt-4":"15"}',
        '{"gpt-4":null}',
        '{"gpt-4":{"nested":1}}',
      ])
        await expectRefused(key, value);
      const ratios = { default: 1, 'gpt-4o(1)': 2.5, free: 0 };
      await putOk(key, JSON.stringify(ratios));
      const shown: unknown = JSON.parse((await listed()).get(key) ?? '');
      if (key === 'GroupRatio') expect(shown).toEqual(ratios);
      else expect(shown).toMatchObject(ratios);
      expect(test.sluice.services.options.values[key as 'ModelRatio']).toEqual(ratios);
    },
  );

  it('makes the groups of GroupRatio the ones in force', async () => {
    await putOk('GroupRatio', '{"default":1,"vip":0.8,"svip":0.5}');
    expect(test.sluice.services.options.values.GroupRatio).toEqual({ default: 1, vip: 0.8, svip: 0.5 });
  });

  it('accepts only default, berry or air as the theme', async () => {
    for (const value of ['dark', '', 'Berry']) await expectRefused('Theme', value, /default, berry, air/);
    await putOk('Theme', 'berry');
    expect((await listed()).get('Theme')).toBe('berry');
    await putOk('Theme', ' air ');
    expect((await storedRows()).get('Theme')).toBe('air');
    expect(test.sluice.services.options.values.Theme).toBe('air');
  });

  it('stores a long text value whole', async () => {
    const notice = `# Notice\n${'Lorem ipsum dolor sit amet. '.repeat(8000)}`;
    expect(notice.length).toBeGreaterThan(200_000);
    await putOk('Notice', notice);
    expect((await storedRows()).get('Notice')).toBe(notice);
    expect((await apiClient(test.sluice.app).get('/api/notice')).body.data).toBe(notice);
    await putOk('Notice', '');
    expect((await storedRows()).get('Notice')).toBe('');
  });

  it('refuses a value that is not a string, and a body without a key', async () => {
    await expectRefused('SystemName', 42, /^invalid parameter: value/);
    await expectRefused('SystemName', true, /^invalid parameter: value/);
    await expectRefused('SystemName', null, /^invalid parameter: value/);
    await expectRefused('SystemName', { text: 'x' }, /^invalid parameter: value/);
    await expectRefused('', 'x', /^invalid parameter: key/);
    await expectRefused('K'.repeat(65), 'x', /^invalid parameter: key/);
    const rowsBefore = await storedRows();
    const noValue = await root.put('/api/option/', { key: 'SystemName' });
    expect(noValue.body.success).toBe(false);
    const notJson = await root.put('/api/option/', '{"key":', { raw: true });
    expect(notJson.body).toEqual({
      success: false,
      message: 'invalid parameter: the body must be valid JSON',
    });
    expect(await storedRows()).toEqual(rowsBefore);
  });

  it('refuses to turn a login method on before its settings are filled in', async () => {
    await expectRefused('GitHubOAuthEnabled', 'true', /GitHub Client Id/);
    await expectRefused('WeChatAuthEnabled', 'true', /WeChat server address/);
    await expectRefused('TurnstileCheckEnabled', 'true', /Turnstile site key/);
    expect((await status()).github_oauth).toBe(false);

    await putOk('GitHubClientId', 'Iv1.github-client');
    await putOk('GitHubOAuthEnabled', 'true');
    const after = await status();
    expect(after.github_oauth).toBe(true);
    expect(after.github_client_id).toBe('Iv1.github-client');
    await putOk('GitHubOAuthEnabled', 'false');
    expect((await status()).github_oauth).toBe(false);

    await putOk('TurnstileSiteKey', 'site-key-1');
    await putOk('TurnstileCheckEnabled', 'true');
    expect(await status()).toMatchObject({ turnstile_check: true, turnstile_site_key: 'site-key-1' });
    await putOk('TurnstileCheckEnabled', 'false');
  });

  it('strips the trailing slashes of ServerAddress', async () => {
    await putOk('ServerAddress', 'https://sluice.example.com///');
    expect((await storedRows()).get('ServerAddress')).toBe('https://sluice.example.com');
    expect((await listed()).get('ServerAddress')).toBe('https://sluice.example.com');
    expect((await status()).server_address).toBe('https://sluice.example.com');
  });

  it('shows a change in GET /api/status at once', async () => {
    await putOk('SystemName', 'My Gateway');
    await putOk('Logo', 'https://cdn.example.com/logo.png');
    await putOk('Footer', '<b>footer</b>');
    await putOk('TopUpLink', 'https://shop.example.com');
    await putOk('ChatLink', 'https://chat.example.com');
    await putOk('WeChatAccountQRCodeImageURL', 'https://cdn.example.com/qr.png');
    await putOk('LarkClientId', 'cli_lark');
    await putOk('EmailVerificationEnabled', 'true');
    await putOk('DisplayInCurrencyEnabled', 'false');
    await putOk('QuotaPerUnit', '1000000');
    expect(await status()).toMatchObject({
      system_name: 'My Gateway',
      logo: 'https://cdn.example.com/logo.png',
      footer_html: '<b>footer</b>',
      top_up_link: 'https://shop.example.com',
      chat_link: 'https://chat.example.com',
      wechat_qrcode: 'https://cdn.example.com/qr.png',
      lark_client_id: 'cli_lark',
      email_verification: true,
      display_in_currency: false,
      quota_per_unit: 1000000,
    });
    await putOk('QuotaPerUnit', '0.5');
    expect((await status()).quota_per_unit).toBe(0.5);
    await putOk('EmailVerificationEnabled', 'false');
    expect((await status()).email_verification).toBe(false);
  });

  it('keeps stored options across a restart', async () => {
    await putOk('SystemName', 'Persisted Gateway');
    await putOk('DisplayInCurrencyEnabled', 'false');
    const restarted = await test.boot();
    const response = await apiClient(restarted.app).get('/api/status');
    expect(response.body.data).toMatchObject({
      system_name: 'Persisted Gateway',
      display_in_currency: false,
    });
    expect(restarted.services.options.values.QuotaPerUnit).toBe(
      test.sluice.services.options.values.QuotaPerUnit,
    );
    const restartedList = toMap(restarted.services.options.listPublic());
    expect(restartedList).toEqual(await listed());
  });

  it('stores an unknown key as one-api does', async () => {
    await putOk('SomeFutureOption', 'kept');
    expect((await storedRows()).get('SomeFutureOption')).toBe('kept');
    expect((await listed()).get('SomeFutureOption')).toBe('kept');
  });

  it('answers notice, about and home page content publicly', async () => {
    const guest = apiClient(test.sluice.app);
    for (const path of ['/api/notice', '/api/about', '/api/home_page_content']) {
      expect((await guest.get(path)).body, path).toEqual({ success: true, message: '', data: '' });
    }
    await putOk('Notice', '# Maintenance tonight');
    await putOk('About', 'https://about.example.com');
    await putOk('HomePageContent', '<h1>Welcome</h1>');
    expect((await guest.get('/api/notice')).body).toEqual({
      success: true,
      message: '',
      data: '# Maintenance tonight',
    });
    expect((await guest.get('/api/about')).body.data).toBe('https://about.example.com');
    expect((await guest.get('/api/home_page_content/')).body.data).toBe('<h1>Welcome</h1>');
  });

  it('answers the public status record with exactly the documented fields', async () => {
    const response = await apiClient(test.sluice.app).get('/api/status');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.success).toBe(true);
    expect(response.body.message).toBe('');
    const data = statusSchema.strict().parse(response.body.data);
    expect(data.version).toBe(SLUICE_VERSION);
    const now = Math.floor(Date.now() / 1000);
    expect(data.start_time).toBeGreaterThan(now - 600);
    expect(data.start_time).toBeLessThanOrEqual(now);
    expect(Number.isInteger(data.start_time)).toBe(true);
    expect((await apiClient(test.sluice.app).get('/api/status')).body.data).toMatchObject({
      start_time: data.start_time,
    });
  });

  it('answers 401 to a visitor who is not logged in', async () => {
    const guest = apiClient(test.sluice.app);
    const list = await guest.get('/api/option/');
    expect(list.status).toBe(401);
    expect(list.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    const rowsBefore = await storedRows();
    const update = await guest.put('/api/option/', { key: 'SystemName', value: 'Hijacked' });
    expect(update.status).toBe(401);
    expect(update.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    expect(await storedRows()).toEqual(rowsBefore);
  });

  // Administrators read and change some options: option-roles.test.ts.
  it.each([['a common user', 'option_common', ROLES.common]])(
    'refuses %s with HTTP 200 and stores nothing',
    async (_label, username, role) => {
      const client = await createUser(username, role);
      const list = await client.get('/api/option/');
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ success: false, message: INSUFFICIENT_ROLE });
      expect(list.text).not.toContain('SystemName');
      const rowsBefore = await storedRows();
      const update = await put('SystemName', 'Hijacked', client);
      expect(update.status).toBe(200);
      expect(update.body).toEqual({ success: false, message: INSUFFICIENT_ROLE });
      expect(await storedRows()).toEqual(rowsBefore);
      expect((await status()).system_name).not.toBe('Hijacked');
    },
  );

  it("accepts root's access token instead of a session", async () => {
    const token = (await root.get('/api/user/token')).body.data as string;
    const api = apiClient(test.sluice.app);
    const list = await api.get('/api/option/', { headers: { authorization: `Bearer ${token}` } });
    expect(toMap(asOptionList(list))).toEqual(await listed());
  });
});
