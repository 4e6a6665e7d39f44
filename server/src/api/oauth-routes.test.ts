import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import {
  startGitHubDouble,
  startLarkDouble,
  startWeChatServerDouble,
  type GitHubDouble,
  type GitHubProfile,
  type LarkDouble,
  type WeChatServerDouble,
} from '../test-support/oauth-provider-doubles.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const STATE_MISMATCH = { success: false, message: 'state is empty or not same' };
const NOT_LOGGED_IN = { success: false, message: 'no permission: not logged in and no access token' };
const BANNED = { success: false, message: 'the user is banned' };

describe.each(testDialects())('third-party login and binding (/api/oauth) on %s', (dialect) => {
  let test: TestSluice;
  let github: GitHubDouble;
  let lark: LarkDouble;
  let wechat: WeChatServerDouble;
  let serial = 0;
  const unique = (prefix: string) => `${prefix}${(serial += 1)}${dialect.slice(0, 2)}`;

  const db = () => test.sluice.database.db;
  const client = (): ApiClient => apiClient(test.sluice.app);
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await test.sluice.services.options.update(key, value);
  };
  const userById = (id: number) =>
    db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const userBy = (column: 'github_id' | 'lark_id' | 'wechat_id', value: string) =>
    db().selectFrom('users').selectAll().where(column, '=', value).execute();
  const maxUserId = async () => {
    const row = await db()
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirstOrThrow();
    return Number(row.max);
  };
  const countUsers = async () => {
    const row = await db()
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  /** A user with a password, optionally already bound; answers its id and a signed-in browser. */
  const passwordUser = async (
    fields: { status?: number; github_id?: string; wechat_id?: string; lark_id?: string } = {},
  ) => {
    const username = unique('pw');
    await db()
      .insertInto('users')
      .values({
        username,
        password: await hashPassword('password123'),
        display_name: username,
        role: 1,
        status: 1,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        github_id: fields.github_id ?? '',
        wechat_id: fields.wechat_id ?? '',
        lark_id: fields.lark_id ?? '',
      })
      .execute();
    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const browser = client();
    await browser.login(username, 'password123');
    if (fields.status !== undefined)
      await db().updateTable('users').set({ status: fields.status }).where('id', '=', row.id).execute();
    return { id: row.id, username, browser };
  };

  const stateOf = async (browser: ApiClient): Promise<string> => {
    const response = await browser.get('/api/oauth/state');
    expect(response.body.success).toBe(true);
    return response.body.data as string;
  };

  const githubCallback = async (browser: ApiClient, profile: GitHubProfile) => {
    const state = await stateOf(browser);
    const code = github.authorize(profile);
    return browser.get(`/api/oauth/github?code=${code}&state=${state}`);
  };

  beforeAll(async () => {
    [github, lark, wechat] = await Promise.all([
      startGitHubDouble(),
      startLarkDouble(),
      startWeChatServerDouble(),
    ]);
    test = await startTestSluice(dialect, {
      GITHUB_OAUTH_URL: github.url,
      GITHUB_API_URL: github.url,
      LARK_OPEN_URL: lark.url,
      LARK_PASSPORT_URL: `${lark.url}/`,
    });
  });
  afterAll(async () => {
    await test?.close();
    for (const double of [github, lark, wechat]) await double?.close();
  });

  beforeEach(async () => {
    await setOptions({
      RegisterEnabled: 'true',
      QuotaForNewUser: '0',
      ServerAddress: 'https://gateway.example.com/',
      GitHubClientId: github.clientId,
      GitHubClientSecret: github.clientSecret,
      GitHubOAuthEnabled: 'true',
      LarkClientId: lark.clientId,
      LarkClientSecret: lark.clientSecret,
      WeChatServerAddress: wechat.url,
      WeChatServerToken: wechat.token,
      WeChatAuthEnabled: 'true',
    });
  });

  describe('GET /api/oauth/state', () => {
    it('answers 12 letters and digits, a new one each time, and starts a session when there is none', async () => {
      const browser = client();
      const first = await stateOf(browser);
      expect(first).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(browser.cookies.has('session')).toBe(true);
      expect(await stateOf(browser)).not.toBe(first);
      // An anonymous session is not a login.
      expect((await browser.get('/api/user/self')).status).toBe(401);
    });
  });

  describe('GitHub login', () => {
    it('creates github_<max id + 1> with the GitHub name and email, the new-user quota and a default token', async () => {
      await setOptions({ QuotaForNewUser: '1234' });
      const login = unique('octo');
      const expectedId = (await maxUserId()) + 1;
      const browser = client();
      const response = await githubCallback(browser, {
        login,
        name: 'Octo Cat',
        email: `${login}@example.com`,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        success: true,
        message: '',
        data: { username: `github_${expectedId}`, display_name: 'Octo Cat', role: 1, status: 1, quota: 0 },
      });
      const [row] = await userBy('github_id', login);
      expect(row).toMatchObject({
        username: `github_${expectedId}`,
        display_name: 'Octo Cat',
        email: `${login}@example.com`,
        quota: 1234,
        role: 1,
        status: 1,
      });
      const tokens = await db().selectFrom('tokens').selectAll().where('user_id', '=', row!.id).execute();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ name: 'default', remain_quota: -1, expired_time: -1 });
      // The browser is now signed in as that user.
      expect((await browser.get('/api/user/self')).body.data).toMatchObject({
        id: row!.id,
        github_id: login,
      });
    });

    it('creates the user without an email longer than a user’s email may be, rather than failing', async () => {
      const login = unique('long');
      const response = await githubCallback(client(), {
        login,
        name: 'Long Mail',
        email: `${'x'.repeat(200)}@example.com`,
      });
      expect(response.body.success).toBe(true);
      const [row] = await userBy('github_id', login);
      expect(row).toMatchObject({ display_name: 'Long Mail', email: '' });
    });

    it('signs a bound user in again without creating anyone', async () => {
      const login = unique('again');
      await githubCallback(client(), { login, name: null, email: null });
      const before = await countUsers();
      const browser = client();
      const response = await githubCallback(browser, { login, name: 'Renamed', email: null });
      expect(response.body.success).toBe(true);
      expect(await countUsers()).toBe(before);
      const [row] = await userBy('github_id', login);
      expect(row?.display_name).toBe('GitHub User');
      expect((response.body.data as { id: number }).id).toBe(row?.id);
    });

    it('chooses a free name when github_<max id + 1> is taken (one-api would fail)', async () => {
      const taken = `github_${(await maxUserId()) + 2}`;
      await db()
        .insertInto('users')
        .values({
          username: taken,
          password: 'x',
          display_name: 'squatter',
          role: 1,
          status: 1,
          quota: 0,
          used_quota: 0,
          request_count: 0,
          group: 'default',
        })
        .execute();
      const login = unique('free');
      const response = await githubCallback(client(), { login, name: null, email: null });
      expect(response.body.success).toBe(true);
      const [row] = await userBy('github_id', login);
      expect(row?.username).toBe(`github_${Number(taken.slice(7)) + 1}`);
    });

    it('refuses while GitHubOAuthEnabled is false, without calling GitHub or spending the state', async () => {
      await setOptions({ GitHubOAuthEnabled: 'false' });
      const browser = client();
      const state = await stateOf(browser);
      const code = github.authorize({ login: unique('off'), name: null, email: null });
      const calls = github.requests.length;
      expect((await browser.get(`/api/oauth/github?code=${code}&state=${state}`)).body).toEqual({
        success: false,
        message: 'the administrator has not enabled login and registration with GitHub',
      });
      expect(github.requests.length).toBe(calls);
      await setOptions({ GitHubOAuthEnabled: 'true' });
      expect((await browser.get(`/api/oauth/github?code=${code}&state=${state}`)).body.success).toBe(true);
    });

    it('refuses a new account while registration is closed, but lets a bound one in', async () => {
      const bound = unique('bound');
      await githubCallback(client(), { login: bound, name: null, email: null });
      await setOptions({ RegisterEnabled: 'false' });
      const before = await countUsers();
      expect(
        (await githubCallback(client(), { login: unique('new'), name: null, email: null })).body,
      ).toEqual({
        success: false,
        message: 'the administrator has closed new-user registration',
      });
      expect(await countUsers()).toBe(before);
      expect((await githubCallback(client(), { login: bound, name: null, email: null })).body.success).toBe(
        true,
      );
    });

    it('refuses a banned user and starts no session for them', async () => {
      const login = unique('ban');
      const { id } = await passwordUser({ github_id: login, status: 2 });
      const browser = client();
      expect((await githubCallback(browser, { login, name: null, email: null })).body).toEqual(BANNED);
      expect((await browser.get('/api/user/self')).status).toBe(401);
      expect((await userById(id)).status).toBe(2);
    });

    it('passes on GitHub’s refusal of a bad code, and the state stays usable for a retry', async () => {
      const browser = client();
      const state = await stateOf(browser);
      expect((await browser.get(`/api/oauth/github?code=forged&state=${state}`)).body).toEqual({
        success: false,
        message: 'GitHub refused the code: The code passed is incorrect or expired.',
      });
      const code = github.authorize({ login: unique('retry'), name: null, email: null });
      expect((await browser.get(`/api/oauth/github?code=${code}&state=${state}`)).body.success).toBe(true);
    });
  });

  describe('the OAuth state', () => {
    it('answers HTTP 403 without a session, without a state, or with another state', async () => {
      const code = github.authorize({ login: unique('st'), name: null, email: null });
      const anonymous = await client().get(`/api/oauth/github?code=${code}&state=abcdefghijkl`);
      expect(anonymous.status).toBe(403);
      expect(anonymous.body).toEqual(STATE_MISMATCH);
      const browser = client();
      const state = await stateOf(browser);
      for (const query of [`code=${code}`, `code=${code}&state=`, `code=${code}&state=${state}x`]) {
        const response = await browser.get(`/api/oauth/github?${query}`);
        expect(response.status).toBe(403);
        expect(response.body).toEqual(STATE_MISMATCH);
      }
      const lark403 = await browser.get(`/api/oauth/lark?code=x&state=wrong`);
      expect(lark403.status).toBe(403);
      expect(lark403.body).toEqual(STATE_MISMATCH);
    });

    it('belongs to the session that asked for it', async () => {
      const state = await stateOf(client());
      const code = github.authorize({ login: unique('thief'), name: null, email: null });
      const response = await client().get(`/api/oauth/github?code=${code}&state=${state}`);
      expect(response.status).toBe(403);
    });

    it('is single-use once a callback succeeded', async () => {
      // Binding keeps the session, so a replay presents the same session with the same state.
      const { browser } = await passwordUser();
      const state = await stateOf(browser);
      const first = await browser.get(
        `/api/oauth/github?code=${github.authorize({ login: unique('use'), name: null, email: null })}&state=${state}`,
      );
      expect(first.body).toEqual({ success: true, message: 'bind' });
      const replay = await browser.get(
        `/api/oauth/github?code=${github.authorize({ login: unique('use'), name: null, email: null })}&state=${state}`,
      );
      expect(replay.status).toBe(403);
      expect(replay.body).toEqual(STATE_MISMATCH);
    });

    it('is spent by a login, whose new session replaces the anonymous one', async () => {
      const browser = client();
      const state = await stateOf(browser);
      const anonymous = new Map(browser.cookies);
      const code = github.authorize({ login: unique('swap'), name: null, email: null });
      expect((await browser.get(`/api/oauth/github?code=${code}&state=${state}`)).body.success).toBe(true);
      expect(browser.cookies.get('session')).not.toBe(anonymous.get('session'));
      const old = client();
      for (const [name, value] of anonymous) old.cookies.set(name, value);
      const again = github.authorize({ login: unique('swap'), name: null, email: null });
      expect((await old.get(`/api/oauth/github?code=${again}&state=${state}`)).status).toBe(403);
    });

    it('expires after 10 minutes', async () => {
      const browser = client();
      const state = await stateOf(browser);
      await db()
        .updateTable('sluice_codes')
        .set({ expires_at: 1 })
        .where('purpose', '=', 'oauth')
        .where('code', '=', state)
        .execute();
      const code = github.authorize({ login: unique('old'), name: null, email: null });
      expect((await browser.get(`/api/oauth/github?code=${code}&state=${state}`)).status).toBe(403);
    });

    it('works across instances sharing the database', async () => {
      const other = await test.boot();
      const browser = client();
      const state = await stateOf(browser);
      const elsewhere = apiClient(other.app);
      for (const [name, value] of browser.cookies) elsewhere.cookies.set(name, value);
      const code = github.authorize({ login: unique('multi'), name: null, email: null });
      expect((await elsewhere.get(`/api/oauth/github?code=${code}&state=${state}`)).body.success).toBe(true);
    });
  });

  describe('GitHub binding (a signed-in session)', () => {
    it('binds the account to the signed-in user and answers message bind', async () => {
      const { id, browser } = await passwordUser();
      const login = unique('bind');
      const before = await countUsers();
      expect((await githubCallback(browser, { login, name: null, email: null })).body).toEqual({
        success: true,
        message: 'bind',
      });
      expect((await userById(id)).github_id).toBe(login);
      expect(await countUsers()).toBe(before);
      // Still signed in as the same user.
      expect((await browser.get('/api/user/self')).body.data).toMatchObject({ id, github_id: login });
    });

    it('refuses an account bound to someone else (or already to the caller)', async () => {
      const login = unique('taken');
      const owner = await passwordUser({ github_id: login });
      const { id, browser } = await passwordUser();
      const conflict = { success: false, message: 'this GitHub account is already bound' };
      expect((await githubCallback(browser, { login, name: null, email: null })).body).toEqual(conflict);
      expect((await userById(id)).github_id).toBe('');
      expect((await githubCallback(owner.browser, { login, name: null, email: null })).body).toEqual(
        conflict,
      );
    });

    it('refuses while GitHub login is off, and refuses a banned session user', async () => {
      const { browser } = await passwordUser();
      await setOptions({ GitHubOAuthEnabled: 'false' });
      expect(
        (await githubCallback(browser, { login: unique('x'), name: null, email: null })).body.message,
      ).toBe('the administrator has not enabled login and registration with GitHub');
      await setOptions({ GitHubOAuthEnabled: 'true' });
      const banned = await passwordUser();
      const state = await stateOf(banned.browser);
      await db().updateTable('users').set({ status: 2 }).where('id', '=', banned.id).execute();
      const code = github.authorize({ login: unique('b'), name: null, email: null });
      expect((await banned.browser.get(`/api/oauth/github?code=${code}&state=${state}`)).body).toEqual(
        BANNED,
      );
      expect((await userById(banned.id)).github_id).toBe('');
    });
  });

  describe('Lark', () => {
    const larkCallback = async (browser: ApiClient, openId: string, name = '') => {
      const state = await stateOf(browser);
      return browser.get(`/api/oauth/lark?code=${lark.authorize({ openId, name })}&state=${state}`);
    };

    it('creates lark_<n> named after the Lark user, with the redirect URI <ServerAddress>/oauth/lark', async () => {
      const openId = unique('ou_');
      const expectedId = (await maxUserId()) + 1;
      const browser = client();
      const response = await larkCallback(browser, openId, 'Han Meimei');
      expect(response.body).toMatchObject({
        success: true,
        data: { username: `lark_${expectedId}`, display_name: 'Han Meimei' },
      });
      const exchange = lark.requests.filter((request) => request.path.startsWith('/open-apis')).at(-1);
      expect(JSON.parse(exchange?.body ?? '{}')).toMatchObject({
        redirect_uri: 'https://gateway.example.com/oauth/lark',
      });
      expect((await userBy('lark_id', openId))[0]?.username).toBe(`lark_${expectedId}`);
      expect((await larkCallback(client(), openId)).body.success).toBe(true);
      expect(await userBy('lark_id', openId)).toHaveLength(1);
    });

    it('names a nameless user Lark User', async () => {
      const openId = unique('ou_');
      expect((await larkCallback(client(), openId)).body.data).toMatchObject({ display_name: 'Lark User' });
    });

    it('binds for a signed-in session and refuses an account already bound', async () => {
      const openId = unique('ou_');
      const { id, browser } = await passwordUser();
      expect((await larkCallback(browser, openId)).body).toEqual({ success: true, message: 'bind' });
      expect((await userById(id)).lark_id).toBe(openId);
      const other = await passwordUser();
      expect((await larkCallback(other.browser, openId)).body).toEqual({
        success: false,
        message: 'this Lark account is already bound',
      });
    });

    it('refuses while no Lark client id is configured', async () => {
      await setOptions({ LarkClientId: '' });
      expect((await larkCallback(client(), unique('ou_'))).body).toEqual({
        success: false,
        message: 'the administrator has not enabled login and registration with Lark',
      });
    });
  });

  describe('WeChat', () => {
    it('creates wechat_<n> (WeChat User) from a code, then signs the same user in again', async () => {
      const wechatId = unique('wx');
      const expectedId = (await maxUserId()) + 1;
      const browser = client();
      const response = await browser.get(`/api/oauth/wechat?code=${wechat.issueCode(wechatId)}`);
      expect(response.body).toMatchObject({
        success: true,
        data: { username: `wechat_${expectedId}`, display_name: 'WeChat User' },
      });
      expect((await browser.get('/api/user/self')).body.data).toMatchObject({ wechat_id: wechatId });
      const again = await client().get(`/api/oauth/wechat?code=${wechat.issueCode(wechatId)}`);
      expect((again.body.data as { username: string }).username).toBe(`wechat_${expectedId}`);
      expect(await userBy('wechat_id', wechatId)).toHaveLength(1);
    });

    it('refuses a wrong or used code, and everything while WeChatAuthEnabled is false', async () => {
      const code = wechat.issueCode(unique('wx'));
      await client().get(`/api/oauth/wechat?code=${code}`);
      expect((await client().get(`/api/oauth/wechat?code=${code}`)).body).toEqual({
        success: false,
        message: 'the verification code is wrong or has expired',
      });
      await setOptions({ WeChatAuthEnabled: 'false' });
      const disabled = {
        success: false,
        message: 'the administrator has not enabled login and registration with WeChat',
      };
      expect((await client().get(`/api/oauth/wechat?code=${wechat.issueCode(unique('wx'))}`)).body).toEqual(
        disabled,
      );
      const { browser } = await passwordUser();
      expect(
        (await browser.get(`/api/oauth/wechat/bind?code=${wechat.issueCode(unique('wx'))}`)).body,
      ).toEqual(disabled);
    });

    it('binds for a signed-in user, and refuses an account already bound', async () => {
      const wechatId = unique('wx');
      const { id, browser } = await passwordUser();
      expect((await browser.get(`/api/oauth/wechat/bind?code=${wechat.issueCode(wechatId)}`)).body).toEqual({
        success: true,
        message: '',
      });
      expect((await userById(id)).wechat_id).toBe(wechatId);
      const other = await passwordUser();
      expect(
        (await other.browser.get(`/api/oauth/wechat/bind?code=${wechat.issueCode(wechatId)}`)).body,
      ).toEqual({
        success: false,
        message: 'this WeChat account is already bound',
      });
    });

    it('refuses to bind for an anonymous caller (401) and a banned user', async () => {
      expect(
        (await client().get(`/api/oauth/wechat/bind?code=${wechat.issueCode(unique('wx'))}`)).body,
      ).toEqual(NOT_LOGGED_IN);
      const { browser } = await passwordUser({ status: 2 });
      expect(
        (await browser.get(`/api/oauth/wechat/bind?code=${wechat.issueCode(unique('wx'))}`)).body,
      ).toEqual(BANNED);
      expect((await client().get('/api/oauth/email/bind?email=a@example.com&code=x')).status).toBe(401);
    });

    it('refuses a banned user at login', async () => {
      const wechatId = unique('wx');
      await passwordUser({ wechat_id: wechatId, status: 2 });
      expect((await client().get(`/api/oauth/wechat?code=${wechat.issueCode(wechatId)}`)).body).toEqual(
        BANNED,
      );
    });
  });
});

describe('the critical rate limit on every third-party and mail route', () => {
  it('answers 429 once the per-IP budget shared with login is spent', async () => {
    const test = await startTestSluice('sqlite', { CRITICAL_RATE_LIMIT: '2' });
    try {
      const browser = apiClient(test.sluice.app);
      await browser.get('/api/oauth/state');
      await browser.get('/api/oauth/state');
      const routes: [string, string][] = [
        ['GET', '/api/oauth/state'],
        ['GET', '/api/oauth/github?code=x&state=y'],
        ['GET', '/api/oauth/lark?code=x&state=y'],
        ['GET', '/api/oauth/wechat?code=x'],
        ['GET', '/api/oauth/wechat/bind?code=x'],
        ['GET', '/api/oauth/email/bind?email=a@example.com&code=x'],
        ['GET', '/api/verification?email=a@example.com'],
        ['GET', '/api/reset_password?email=a@example.com'],
        ['POST', '/api/user/reset'],
        ['POST', '/api/user/login'],
        ['POST', '/api/user/register'],
      ];
      for (const [method, path] of routes) {
        const response = await browser.request(method, path, method === 'POST' ? {} : undefined);
        expect({ path, status: response.status }).toEqual({ path, status: 429 });
      }
      expect((await browser.get('/api/status')).status).toBe(200);
    } finally {
      await test.close();
    }
  });
});
