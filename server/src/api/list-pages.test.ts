import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

/**
 * The console's pager: the list routes answer one-api's envelope with `total` beside it and take
 * `size` (1–100, 10 by default); a client that sends only `p` gets what one-api sends.
 */
describe.each(testDialects())('paged lists on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = apiClient(test.sluice.app);
    await root.login('root', '123456');
    for (let index = 1; index <= 23; index += 1) {
      const token = await root.post('/api/token/', { name: `t${index}`, remain_quota: 1, expired_time: -1 });
      expect(token.body.success, token.text).toBe(true);
      const channel = await root.post('/api/channel/', {
        name: `c${index}`,
        type: CHANNEL_TYPE.openAi,
        key: `sk-${index}`,
        models: 'gpt-4o-mini',
        group: 'default',
      });
      expect(channel.body.success, channel.text).toBe(true);
      const user = await root.post('/api/user/', { username: `u${index}`, password: 'password123' });
      expect(user.body.success, user.text).toBe(true);
    }
    const codes = await root.post('/api/redemption/', { name: 'batch', quota: 1, count: 23 });
    expect(codes.body.success, codes.text).toBe(true);
    // A deleted user is not in the list, nor in its total.
    const removed = await root.post('/api/user/manage', { username: 'u23', action: 'delete' });
    expect(removed.body.success, removed.text).toBe(true);
  });
  afterAll(() => test?.close());

  const ROUTES = [
    ['/api/token/', 23],
    ['/api/channel/', 23],
    ['/api/user/', 23], // root and u1–u22
    ['/api/redemption/', 23],
  ] as const;

  it.each(ROUTES)('%s answers 10 rows and the total to a one-api client', async (path, total) => {
    const answer = await root.get(`${path}?p=0`);
    expect(answer.body.success).toBe(true);
    expect(answer.body.message).toBe('');
    expect(answer.body.data).toHaveLength(10);
    expect(answer.body['total']).toBe(total);
    const last = await root.get(`${path}?p=2`);
    expect(last.body.data).toHaveLength(3);
    expect(last.body['total']).toBe(total);
    const beyond = await root.get(`${path}?p=9`);
    expect(beyond.body.data).toEqual([]);
  });

  it.each(ROUTES)('%s takes a page size of 1 to 100', async (path, total) => {
    const twenty = await root.get(`${path}?p=1&size=20`);
    expect(twenty.body.data).toHaveLength(total - 20);
    const first = (await root.get(`${path}?p=0&size=20`)).body.data as { id: number }[];
    const second = twenty.body.data as { id: number }[];
    expect(new Set([...first, ...second].map((row) => row.id)).size).toBe(total);
    expect((await root.get(`${path}?size=1000`)).body.data).toHaveLength(total);
    for (const odd of ['0', '-5', 'many'])
      expect((await root.get(`${path}?size=${odd}`)).body.data, odd).toHaveLength(10);
  });

  it("counts only the caller's own tokens", async () => {
    const other = apiClient(test.sluice.app);
    await other.login('u1', 'password123');
    const answer = await other.get('/api/token/?p=0');
    // A new user's own default token only, not root's 23.
    expect(answer.body.data).toHaveLength(1);
    expect(answer.body['total']).toBe(1);
  });
});
