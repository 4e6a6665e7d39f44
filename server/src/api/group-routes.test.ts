import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { channelBody } from '../test-support/channel-fixtures.js';
import { signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const INSUFFICIENT_ROLE = 'no permission: insufficient role';
const NOT_LOGGED_IN = 'no permission: not logged in and no access token';

describe.each(testDialects())('groups and available models on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let alice: SignedInUser;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    alice = await signInNewUser(test, 'alice');
    const create = async (body: Record<string, unknown>) =>
      expect((await root.post('/api/channel/', channelBody(body))).body.success).toBe(true);
    await create({ name: 'a', models: 'gpt-4o,claude-3,gpt-4o-mini', group: 'default,vip' });
    await create({ name: 'b', models: 'gpt-4o,o1', group: 'vip' });
    await create({ name: 'c', models: 'disabled-model', group: 'default', status: 2 });
  });
  afterAll(() => test?.close());

  it('answers the GroupRatio keys to admins, with or without the trailing slash', async () => {
    for (const path of ['/api/group/', '/api/group']) {
      const response = await root.get(path);
      expect(response.body.success).toBe(true);
      expect([...(response.body.data as string[])].sort()).toEqual(['default', 'svip', 'vip']);
    }
    const put = await root.put('/api/option/', { key: 'GroupRatio', value: '{"default":1,"team":0.5}' });
    expect(put.body.success).toBe(true);
    expect(((await root.get('/api/group/')).body.data as string[]).sort()).toEqual(['default', 'team']);
  });

  it('keeps the group list from common users and logged-out callers', async () => {
    expect((await alice.client.get('/api/group/')).body).toEqual({
      success: false,
      message: INSUFFICIENT_ROLE,
    });
    const anonymous = await apiClient(test.sluice.app).get('/api/group/');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, message: NOT_LOGGED_IN });
  });

  it("answers the sorted models of the caller's group, enabled channels only", async () => {
    const response = await alice.client.get('/api/user/available_models');
    expect(response.body).toEqual({
      success: true,
      message: '',
      data: ['claude-3', 'gpt-4o', 'gpt-4o-mini'],
    });
    await test.sluice.database.db
      .updateTable('users')
      .set({ group: 'vip' })
      .where('id', '=', alice.id)
      .execute();
    expect((await alice.client.get('/api/user/available_models/')).body.data).toEqual([
      'claude-3',
      'gpt-4o',
      'gpt-4o-mini',
      'o1',
    ]);
    await test.sluice.database.db
      .updateTable('users')
      .set({ group: 'nobody' })
      .where('id', '=', alice.id)
      .execute();
    expect((await alice.client.get('/api/user/available_models')).body.data).toEqual([]);
  });

  it('needs a login for the available models, and leaves the other /api/user routes as they were', async () => {
    const anonymous = apiClient(test.sluice.app);
    const response = await anonymous.get('/api/user/available_models');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    const login = await anonymous.post('/api/user/login', { username: 'root', password: '123456' });
    expect(login.body.success).toBe(true);
    expect((await root.get('/api/user/self')).body.success).toBe(true);
  });
});
