import { ADMIN_OPTION_KEYS, isAdminOptionKey } from '@sluice/contract/option-access';
import { OPTION_KEYS, isSecretOptionKey } from '@sluice/contract/option-keys';
import { ROLES } from '@sluice/contract/roles';
import { USER_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { ROOT_ONLY_OPTION } from './option-routes.js';

const SECRET_VALUE = 'secret-value-never-answered-7f3a';
/** A secret's value: SECRET_VALUE, inside the shape a structured secret must have. */
const secretValueOf = (key: string): string =>
  key === 'AlertWebhooks'
    ? JSON.stringify([{ name: 'ops', url: 'https://hooks.example.com/ops', secret: SECRET_VALUE }])
    : SECRET_VALUE;

/** GET and PUT /api/option/ as root and as an administrator (role 10). */
describe.each(testDialects())('options by role on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let admin: ApiClient;
  let common: ApiClient;

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

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = apiClient(test.sluice.app);
    await root.login('root', '123456');
    admin = await createUser('option_admin', ROLES.admin);
    common = await createUser('option_common', ROLES.common);
    for (const key of OPTION_KEYS.filter(isSecretOptionKey)) {
      const stored = await root.put('/api/option/', { key, value: secretValueOf(key) });
      expect(stored.body, key).toEqual({ success: true, message: '' });
    }
  });
  afterAll(() => test?.close());

  const storedRows = async () =>
    new Map(
      (await test.sluice.database.db.selectFrom('options').select(['key', 'value']).execute()).map((row) => [
        row.key,
        row.value,
      ]),
    );
  const keysOf = (data: unknown) => (data as { key: string }[]).map((option) => option.key).sort();

  it('answers root every option but the secrets, and an administrator only theirs', async () => {
    const rootList = await root.get('/api/option/');
    expect(rootList.body.success).toBe(true);
    expect(keysOf(rootList.body.data)).toEqual(OPTION_KEYS.filter((key) => !isSecretOptionKey(key)).sort());
    expect(rootList.text).not.toContain(SECRET_VALUE);

    const adminList = await admin.get('/api/option/');
    expect(adminList.body.success).toBe(true);
    const adminKeys = keysOf(adminList.body.data);
    expect(adminKeys).toEqual(OPTION_KEYS.filter(isAdminOptionKey).sort());
    expect(adminKeys).toEqual(expect.arrayContaining([...ADMIN_OPTION_KEYS]));
    for (const key of ['SMTPServer', 'SMTPAccount', 'GitHubClientId', 'ServerAddress', 'ChatLink'])
      expect(adminKeys).not.toContain(key);
    expect(adminList.text).not.toContain(SECRET_VALUE);
    expect(adminKeys.filter(isSecretOptionKey)).toEqual([]);
  });

  it('lets an administrator change their options', async () => {
    for (const [key, value] of [
      ['SystemName', 'Admin Gateway'],
      ['QuotaForNewUser', '123'],
      ['RegisterEnabled', 'false'],
      ['GroupRatio', '{"default":1,"vip":2}'],
    ] as const) {
      const answer = await admin.put('/api/option/', { key, value });
      expect(answer.body, key).toEqual({ success: true, message: '' });
      expect((await storedRows()).get(key), key).toBe(value);
    }
    const status = await apiClient(test.sluice.app).get('/api/status');
    expect((status.body.data as { system_name: string }).system_name).toBe('Admin Gateway');
  });

  it.each([
    ['SMTPToken', 'stolen'],
    ['GitHubClientSecret', 'stolen'],
    ['SMTPServer', 'smtp.attacker.example'],
    ['WeChatServerAddress', 'https://attacker.example'],
    ['MessagePusherAddress', 'https://attacker.example'],
    ['PasswordLoginEnabled', 'false'],
    ['GitHubOAuthEnabled', 'true'],
    ['ServerAddress', 'https://attacker.example'],
    ['ChatLink', 'https://attacker.example'],
    ['OidcClientSecret', 'stolen'],
  ])('keeps %s root-only: refused to an administrator, stored for root', async (key, value) => {
    const before = await storedRows();
    const refused = await admin.put('/api/option/', { key, value });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ success: false, message: ROOT_ONLY_OPTION });
    expect(await storedRows()).toEqual(before);
    if (key === 'GitHubOAuthEnabled') await root.put('/api/option/', { key: 'GitHubClientId', value: 'id' });
    const stored = await root.put('/api/option/', { key, value });
    expect(stored.body, key).toEqual({ success: true, message: '' });
  });

  it('refuses a common user both ways', async () => {
    const list = await common.get('/api/option/');
    expect(list.body).toEqual({ success: false, message: 'no permission: insufficient role' });
    const before = await storedRows();
    const update = await common.put('/api/option/', { key: 'SystemName', value: 'Hijacked' });
    expect(update.body).toEqual({ success: false, message: 'no permission: insufficient role' });
    expect(await storedRows()).toEqual(before);
  });
});
