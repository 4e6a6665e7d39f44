import type { Log, LogStat } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { insertLogs, signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const T = 1_700_000_000;
const RANGE = `start_timestamp=${T}&end_timestamp=${T + 1000}`;
const INSUFFICIENT = { success: false, message: 'no permission: insufficient role' };

const logsOf = (response: { body: { data?: unknown } }) => response.body.data as Log[];

describe.each(testDialects())('log routes on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let alice: SignedInUser;
  let bob: SignedInUser;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    alice = await signInNewUser(test, 'alice');
    bob = await signInNewUser(test, 'bob');
    const a = { user_id: alice.id, username: 'alice' };
    const b = { user_id: bob.id, username: 'bob' };
    const ratio = 'ratio: 1.00 × 1.00 × 1.00';
    await insertLogs(test.sluice.services.deps.logDb, [
      {
        ...a,
        created_at: T + 100,
        type: LOG_TYPE.consume,
        model_name: 'gpt-4o',
        token_name: 'ta',
        channel_id: 1,
        quota: 100,
        prompt_tokens: 10,
        completion_tokens: 20,
        content: ratio,
        request_id: 'r1',
        elapsed_time: 1200,
        is_stream: true,
      },
      {
        ...a,
        created_at: T + 200,
        type: LOG_TYPE.consume,
        model_name: 'gpt-4o-mini',
        token_name: 'ta',
        channel_id: 2,
        quota: 50,
        prompt_tokens: 5,
        completion_tokens: 5,
        content: ratio,
      },
      { ...a, created_at: T + 300, type: LOG_TYPE.topup, content: 'top up 500 points', quota: 500 },
      {
        ...b,
        created_at: T + 400,
        type: LOG_TYPE.consume,
        model_name: 'gpt-4o',
        token_name: 'tb',
        channel_id: 1,
        quota: 1000,
        prompt_tokens: 100,
        completion_tokens: 200,
        content: ratio,
        request_id: 'r4',
      },
      { ...b, created_at: T + 500, type: LOG_TYPE.manage, content: 'manage: quota changed' },
      { ...b, created_at: T + 600, type: LOG_TYPE.system, content: 'new user gift' },
      {
        ...a,
        created_at: T + 700,
        type: LOG_TYPE.consume,
        model_name: 'claude-3',
        token_name: 'ta2',
        channel_id: 3,
        quota: 7,
        prompt_tokens: 1,
        completion_tokens: 2,
        content: ratio,
      },
    ]);
  });
  afterAll(() => test?.close());

  const adminList = async (query: string) => logsOf(await root.get(`/api/log/?${RANGE}&${query}`));
  const times = (logs: Log[]) => logs.map((log) => log.created_at - T);

  it('lists every log for an admin, newest first, with the full record', async () => {
    const logs = await adminList('');
    expect(times(logs)).toEqual([700, 600, 500, 400, 300, 200, 100]);
    expect(logs.at(-1)).toEqual({
      id: expect.any(Number),
      user_id: alice.id,
      created_at: T + 100,
      type: LOG_TYPE.consume,
      content: 'ratio: 1.00 × 1.00 × 1.00',
      username: 'alice',
      token_name: 'ta',
      model_name: 'gpt-4o',
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 20,
      channel: 1,
      request_id: 'r1',
      elapsed_time: 1200,
      is_stream: true,
      client_format: '',
    });
    expect(logs[0]?.is_stream).toBe(false);
  });

  it('applies each filter only when it is set', async () => {
    expect(times(await adminList('type=2&username=alice'))).toEqual([700, 200, 100]);
    expect(times(await adminList('type=0'))).toHaveLength(7);
    expect(times(await adminList('model_name=gpt-4o'))).toEqual([400, 100]);
    expect(times(await adminList('token_name=ta'))).toEqual([200, 100]);
    expect(times(await adminList('channel=1'))).toEqual([400, 100]);
    expect(times(await adminList('channel=0&username=&model_name='))).toHaveLength(7);
    expect(times(await adminList('username=bob&type=4'))).toEqual([600]);
    const window = logsOf(await root.get(`/api/log/?start_timestamp=${T + 250}&end_timestamp=${T + 400}`));
    expect(times(window)).toEqual([400, 300]);
    expect(times(await adminList('model_name=none'))).toEqual([]);
  });

  it('finds a request’s rows by its request id in the lists, a user’s only among their own', async () => {
    expect(times(await adminList('request_id=r1'))).toEqual([100]);
    expect(times(await adminList('request_id=r4&username=bob'))).toEqual([400]);
    expect(times(await adminList('request_id=none'))).toEqual([]);
    expect(times(logsOf(await alice.client.get(`/api/log/self/?${RANGE}&request_id=r1`)))).toEqual([100]);
    expect(times(logsOf(await alice.client.get(`/api/log/self/?${RANGE}&request_id=r4`)))).toEqual([]);
    expect(times(logsOf(await bob.client.get(`/api/log/self/?request_id=r4`)))).toEqual([400]);
    const long = await alice.client.get(`/api/log/self/?request_id=${'r'.repeat(500)}`);
    expect(long.body).toMatchObject({ success: false, message: expect.stringMatching(/request_id/) });
  });

  it('answers both trailing-slash forms', async () => {
    expect(times(logsOf(await root.get(`/api/log?${RANGE}`)))).toHaveLength(7);
    expect(times(logsOf(await alice.client.get(`/api/log/self?${RANGE}`)))).toHaveLength(4);
    expect(times(logsOf(await alice.client.get(`/api/log/self/?${RANGE}`)))).toHaveLength(4);
    expect((await root.get('/api/log/stat/?type=2')).body.success).toBe(true);
  });

  it('pages by 10 from page 0', async () => {
    const carol = await signInNewUser(test, 'carol');
    await insertLogs(
      test.sluice.services.deps.logDb,
      Array.from({ length: 11 }, (_, index) => ({
        user_id: carol.id,
        username: 'carol',
        created_at: T + 5000 + index,
        content: `row ${index}`,
      })),
    );
    const page0 = logsOf(await root.get('/api/log/?username=carol&p=0'));
    const page1 = logsOf(await root.get('/api/log/?username=carol&p=1'));
    expect(page0).toHaveLength(10);
    expect(page1.map((log) => log.content)).toEqual(['row 0']);
    expect(logsOf(await root.get('/api/log/?username=carol&p=-3'))).toEqual(page0);
    expect(logsOf(await root.get('/api/log/?username=carol&p=2'))).toEqual([]);
    const own0 = logsOf(await carol.client.get('/api/log/self/?p=0'));
    expect(own0).toHaveLength(10);
    expect(own0[0]?.content).toBe('row 10');
    expect(logsOf(await carol.client.get('/api/log/self/?p=1'))).toHaveLength(1);
  });

  it('shows a user only their own logs, with ids, whatever username or channel is asked for', async () => {
    const own = logsOf(await alice.client.get(`/api/log/self/?${RANGE}`));
    expect(times(own)).toEqual([700, 300, 200, 100]);
    expect(own.every((log) => log.user_id === alice.id && log.id > 0)).toBe(true);
    const sneaky = logsOf(await alice.client.get(`/api/log/self/?${RANGE}&username=bob&channel=1`));
    expect(times(sneaky)).toEqual([700, 300, 200, 100]);
    expect(times(logsOf(await alice.client.get(`/api/log/self/?${RANGE}&type=2&model_name=gpt-4o`)))).toEqual(
      [100],
    );
    expect(times(logsOf(await bob.client.get(`/api/log/self/?${RANGE}`)))).toEqual([600, 500, 400]);
    expect(times(logsOf(await bob.client.get(`/api/log/self/?token_name=ta`)))).toEqual([]);
  });

  it('searches every log for an admin by type or content prefix, and own logs for a user', async () => {
    const byContent = logsOf(await root.get('/api/log/search?keyword=top%20up'));
    expect(times(byContent)).toEqual([300]);
    const byType = logsOf(await root.get('/api/log/search?keyword=4'));
    expect(times(byType)).toEqual([600]);
    expect(logsOf(await root.get('/api/log/search?keyword=%25'))).toEqual([]);
    expect(times(logsOf(await alice.client.get('/api/log/self/search?keyword=1')))).toEqual([300]);
    expect(logsOf(await bob.client.get('/api/log/self/search?keyword=1'))).toEqual([]);
    expect(logsOf(await alice.client.get('/api/log/self/search?keyword=manage'))).toEqual([]);
    expect(times(logsOf(await bob.client.get('/api/log/self/search?keyword=manage')))).toEqual([500]);
    expect(times(logsOf(await alice.client.get('/api/log/self/search?keyword=ratio')))).toEqual([
      700, 200, 100,
    ]);
  });

  it('caps a search at the newest 100 rows', async () => {
    const dave = await signInNewUser(test, 'dave');
    await insertLogs(
      test.sluice.services.deps.logDb,
      Array.from({ length: 120 }, (_, index) => ({
        user_id: dave.id,
        username: 'dave',
        created_at: T + 9000 + index,
        type: LOG_TYPE.manage,
        content: `bulk ${index}`,
      })),
    );
    const found = logsOf(await root.get('/api/log/search?keyword=bulk'));
    expect(found).toHaveLength(100);
    expect(found[0]?.content).toBe('bulk 119');
    expect(logsOf(await dave.client.get('/api/log/self/search?keyword=bulk'))).toHaveLength(100);
    expect(logsOf(await dave.client.get('/api/log/self/search?keyword=3'))).toHaveLength(100);
  });

  it('sums quota and tokens of consume rows only, as numbers', async () => {
    const stat = async (client: ApiClient, path: string) => (await client.get(path)).body.data as LogStat;
    expect(await stat(root, `/api/log/stat?${RANGE}`)).toEqual({ quota: 1157, token: 343 });
    expect(await stat(root, `/api/log/stat?${RANGE}&type=1`)).toEqual({ quota: 1157, token: 343 });
    expect(await stat(root, `/api/log/stat?${RANGE}&username=alice`)).toEqual({ quota: 157, token: 43 });
    expect(await stat(root, `/api/log/stat?${RANGE}&channel=1`)).toEqual({ quota: 1100, token: 330 });
    expect(await stat(root, `/api/log/stat?${RANGE}&model_name=gpt-4o&token_name=tb`)).toEqual({
      quota: 1000,
      token: 300,
    });
    expect(await stat(root, '/api/log/stat?model_name=nothing')).toEqual({ quota: 0, token: 0 });
    expect(await stat(alice.client, `/api/log/self/stat?${RANGE}`)).toEqual({ quota: 157, token: 43 });
    expect(await stat(alice.client, `/api/log/self/stat?${RANGE}&username=bob&channel=1`)).toEqual({
      quota: 157,
      token: 43,
    });
    expect(await stat(bob.client, `/api/log/self/stat?${RANGE}&type=3`)).toEqual({ quota: 1000, token: 300 });
    expect(await stat(bob.client, '/api/log/self/stat?token_name=ta')).toEqual({ quota: 0, token: 0 });
  });

  it('refuses bad filters with a clear message', async () => {
    const refused = async (client: ApiClient, path: string, message: string) => {
      const response = await client.get(path);
      expect(response.status, path).toBe(200);
      expect(response.body, path).toEqual({ success: false, message });
    };
    await refused(
      root,
      '/api/log/?start_timestamp=abc',
      'invalid parameter: start_timestamp: must be a whole number',
    );
    await refused(
      root,
      '/api/log/?end_timestamp=1.5',
      'invalid parameter: end_timestamp: must be a whole number',
    );
    await refused(
      root,
      '/api/log/stat?start_timestamp=-5',
      'invalid parameter: start_timestamp: must be at least 0',
    );
    await refused(root, '/api/log/?type=x', 'invalid parameter: type: must be a whole number');
    await refused(root, '/api/log/?channel=1e3', 'invalid parameter: channel: must be a whole number');
    await refused(
      root,
      `/api/log/?username=${'u'.repeat(192)}`,
      'invalid parameter: username: must be at most 191 characters',
    );
    await refused(
      alice.client,
      `/api/log/self/?model_name=${'m'.repeat(200)}`,
      'invalid parameter: model_name: must be at most 191 characters',
    );
    await refused(
      alice.client,
      `/api/log/self/search?keyword=${'k'.repeat(192)}`,
      'invalid parameter: keyword: must be at most 191 characters',
    );
    await refused(
      alice.client,
      '/api/log/self/stat?end_timestamp=soon',
      'invalid parameter: end_timestamp: must be a whole number',
    );
  });

  it('deletes logs older than the target and answers how many', async () => {
    const erin = await signInNewUser(test, 'erin');
    await insertLogs(
      test.sluice.services.deps.logDb,
      [1000, 2000, 3000].map((created_at) => ({
        user_id: erin.id,
        username: 'erin',
        created_at,
        type: LOG_TYPE.system,
      })),
    );
    for (const query of ['', '?target_timestamp=', '?target_timestamp=0', '?target_timestamp=abc']) {
      const response = await root.delete(`/api/log/${query}`);
      expect(response.body, query).toEqual({ success: false, message: 'target timestamp is required' });
    }
    const before = logsOf(await root.get(`/api/log/?${RANGE}`));
    const deleted = await root.delete('/api/log/?target_timestamp=2500');
    expect(deleted.body).toEqual({ success: true, message: '', data: 2 });
    expect(times(logsOf(await root.get('/api/log/?username=erin')))).toEqual([3000 - T]);
    expect(logsOf(await root.get(`/api/log/?${RANGE}`))).toEqual(before);
    expect((await root.delete('/api/log?target_timestamp=2500')).body.data).toBe(0);
  });

  it('answers 401 on every route without a session', async () => {
    const anonymous = apiClient(test.sluice.app);
    const paths = [
      '/api/log/',
      '/api/log/search?keyword=x',
      '/api/log/stat',
      '/api/log/export',
      '/api/log/usage',
      '/api/log/self/',
      '/api/log/self/search?keyword=x',
      '/api/log/self/stat',
      '/api/log/self/export',
      '/api/log/self/usage',
      '/api/user/dashboard',
    ];
    for (const path of paths) expect((await anonymous.get(path)).status, path).toBe(401);
    expect((await anonymous.delete('/api/log/?target_timestamp=5')).status).toBe(401);
  });

  it('refuses every admin route to a common user', async () => {
    for (const path of [
      '/api/log/',
      '/api/log/search?keyword=x',
      '/api/log/stat',
      '/api/log/export',
      '/api/log/usage',
    ]) {
      const response = await alice.client.get(path);
      expect(response.status, path).toBe(200);
      expect(response.body, path).toEqual(INSUFFICIENT);
    }
    expect((await alice.client.delete('/api/log/?target_timestamp=99999999999')).body).toEqual(INSUFFICIENT);
    expect(logsOf(await root.get(`/api/log/?${RANGE}`))).toHaveLength(7);
  });

  it('lets an admin (role 10) use the admin routes', async () => {
    const admin = await signInNewUser(test, 'admin1', 10);
    expect(logsOf(await admin.client.get(`/api/log/?${RANGE}`))).toHaveLength(7);
  });
});
