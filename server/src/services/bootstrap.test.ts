import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';
import { ensureRootUser } from './bootstrap.js';

const ROOT_QUOTA = 500_000_000_000_000;
/** Exactly 32 characters, the width of users.access_token. */
const ACCESS_TOKEN = 'RootAccessToken_0123456789abcdef';
/** Exactly 48 characters, the width of tokens.key. */
const ROOT_KEY = 'InitRootTokenKey0123456789abcdef0123456789ABCDEF';

const isTrue = (value: unknown): boolean => value === true || value === 1;

describe.each(testDialects())('first start on %s', (dialect) => {
  let test: TestSluice | undefined;
  afterEach(async () => {
    await test?.close();
    test = undefined;
  });

  const start = async (env: Record<string, string> = {}): Promise<TestSluice> => {
    test = await startTestSluice(dialect, env);
    return test;
  };

  const usersOf = (running: TestSluice) =>
    running.sluice.database.db.selectFrom('users').selectAll().orderBy('id').execute();
  const tokensOf = (running: TestSluice) =>
    running.sluice.database.db.selectFrom('tokens').selectAll().orderBy('id').execute();

  it('creates root / 123456 (role 100, quota 5e14, "Root User") on an empty database, and no token', async () => {
    const running = await start();
    const users = await usersOf(running);
    expect(users).toHaveLength(1);
    const root = users[0]!;
    expect(root).toMatchObject({
      username: 'root',
      display_name: 'Root User',
      role: 100,
      status: 1,
      quota: ROOT_QUOTA,
      used_quota: 0,
      request_count: 0,
      group: 'default',
    });
    expect(root.password).toMatch(/^\$2[aby]\$10\$/);
    expect(root.access_token).toMatch(/^[0-9a-f]{32}$/);
    expect(await tokensOf(running)).toEqual([]);

    const browser = apiClient(running.sluice.app);
    const login = await browser.login('root', '123456');
    expect(login.body.data).toMatchObject({ id: root.id, username: 'root', role: 100, status: 1 });
    const byToken = await apiClient(running.sluice.app).get('/api/user/self', {
      headers: { authorization: root.access_token ?? '' },
    });
    expect(byToken.body.data).toMatchObject({ id: root.id, username: 'root', quota: ROOT_QUOTA });
  });

  it('creates nothing more on a second boot of the same database', async () => {
    const running = await start();
    const users = await usersOf(running);
    const again = await running.boot({
      INITIAL_ROOT_ACCESS_TOKEN: ACCESS_TOKEN,
      INITIAL_ROOT_TOKEN: ROOT_KEY,
    });
    expect(await usersOf(running)).toEqual(users);
    expect(await tokensOf(running)).toEqual([]);
    // The access token of the second boot's environment was not applied to the existing root.
    const refused = await apiClient(again.app).get('/api/user/self', {
      headers: { authorization: ACCESS_TOKEN },
    });
    expect(refused.body).toEqual({ success: false, message: 'no permission: the access token is invalid' });
    await apiClient(again.app).login('root', '123456');
    // Calling the bootstrap directly agrees: there is already a user.
    const created = await ensureRootUser(
      running.sluice.database.db,
      dialect,
      { initialRootToken: '', initialRootAccessToken: '' },
      pino({ level: 'silent' }),
    );
    expect(created).toBe(false);
    expect(await usersOf(running)).toEqual(users);
  });

  it('creates root once when two instances start on an empty database at the same moment', async () => {
    const running = await start();
    const db = running.sluice.database.db;
    await db.deleteFrom('users').execute();
    const silent = pino({ level: 'silent' });
    const config = { initialRootToken: '', initialRootAccessToken: '' };
    // Both find no user, both insert: the second meets the first's row and stands down.
    const created = await Promise.all([
      ensureRootUser(db, dialect, config, silent),
      ensureRootUser(db, dialect, config, silent),
    ]);
    expect(created.filter(Boolean)).toHaveLength(1);
    expect((await usersOf(running)).map((user) => user.username)).toEqual(['root']);
  });

  it('creates no root once any user exists, even when none is called root', async () => {
    const running = await start();
    const db = running.sluice.database.db;
    await db.updateTable('users').set({ username: 'boss' }).where('username', '=', 'root').execute();
    await running.boot();
    const users = await usersOf(running);
    expect(users.map((user) => user.username)).toEqual(['boss']);
  });

  it('honours INITIAL_ROOT_ACCESS_TOKEN: the token works in Authorization', async () => {
    const running = await start({ INITIAL_ROOT_ACCESS_TOKEN: ACCESS_TOKEN });
    const [root] = await usersOf(running);
    expect(root?.access_token).toBe(ACCESS_TOKEN);
    const api = apiClient(running.sluice.app);
    const raw = await api.get('/api/user/self', { headers: { authorization: ACCESS_TOKEN } });
    expect(raw.body.data).toMatchObject({ username: 'root', role: 100, access_token: ACCESS_TOKEN });
    const bearer = await api.get('/api/user/self', { headers: { authorization: `Bearer ${ACCESS_TOKEN}` } });
    expect(bearer.body.success).toBe(true);
    expect(await tokensOf(running)).toEqual([]);
  });

  it('accepts an INITIAL_ROOT_ACCESS_TOKEN shorter than 32 characters', async () => {
    const running = await start({ INITIAL_ROOT_ACCESS_TOKEN: 'short-root-01' });
    const response = await apiClient(running.sluice.app).get('/api/user/self', {
      headers: { authorization: 'Bearer short-root-01' },
    });
    expect(response.body.data).toMatchObject({ username: 'root' });
  });

  it("honours INITIAL_ROOT_TOKEN: root's first key, sk- stripped, unlimited and never expiring", async () => {
    const running = await start({ INITIAL_ROOT_TOKEN: `sk-${ROOT_KEY}` });
    const [root] = await usersOf(running);
    const tokens = await tokensOf(running);
    expect(tokens).toHaveLength(1);
    const token = tokens[0]!;
    expect(token).toMatchObject({
      user_id: root!.id,
      key: ROOT_KEY,
      name: 'Initial Root Token',
      status: 1,
      expired_time: -1,
      remain_quota: ROOT_QUOTA,
      used_quota: 0,
    });
    expect(isTrue(token.unlimited_quota)).toBe(true);

    // A second boot with another key adds no token.
    await running.boot({ INITIAL_ROOT_TOKEN: `sk-${ROOT_KEY.toLowerCase()}` });
    expect(await tokensOf(running)).toEqual(tokens);
  });

  it('stores an INITIAL_ROOT_TOKEN given without sk- as it is', async () => {
    const running = await start({ INITIAL_ROOT_TOKEN: ROOT_KEY, INITIAL_ROOT_ACCESS_TOKEN: ACCESS_TOKEN });
    const tokens = await tokensOf(running);
    expect(tokens.map((token) => token.key)).toEqual([ROOT_KEY]);
    expect((await usersOf(running))[0]?.access_token).toBe(ACCESS_TOKEN);
  });
});
