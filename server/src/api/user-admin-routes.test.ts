import type { User } from '@sluice/contract/schemas/user';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import { increaseUserQuota } from '../services/quota-service.js';
import { formatLogQuota } from '../services/quota-text.js';
import {
  apiClient,
  type ApiClient,
  type ApiResponse,
  type RequestOptions,
} from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

const PASSWORD = 'password123';
const NOT_LOGGED_IN = { success: false, message: 'no permission: not logged in and no access token' };
const INSUFFICIENT = { success: false, message: 'no permission: insufficient role' };
const NO_USER = { success: false, message: 'user does not exist' };
const OK = { success: true, message: '' };
const CANNOT_READ = { success: false, message: 'no permission to read users of the same or higher level' };
const CANNOT_UPDATE = {
  success: false,
  message: 'no permission to update users of the same or higher level',
};
const CANNOT_DELETE = {
  success: false,
  message: 'no permission to delete users of the same or higher level',
};
const ROOT_NOT_DELETABLE = { success: false, message: 'the super administrator cannot be deleted' };
const ROOT_NOT_DISABLABLE = { success: false, message: 'the super administrator cannot be disabled' };
const ROOT_NOT_DEMOTABLE = { success: false, message: 'the super administrator cannot be demoted' };
const LOGIN_FAILED = 'username or password is wrong, or the user is banned';
const ACTIONS = ['disable', 'enable', 'delete', 'promote', 'demote'] as const;

interface UserSpec {
  role?: number;
  status?: number;
  quota?: number;
  used_quota?: number;
  request_count?: number;
  display_name?: string;
  email?: string;
  username?: string;
}

describe.each(testDialects())('user administration (/api/user, /api/topup) on %s', (dialect) => {
  let test: TestSluice;
  let passwordHash = '';
  let serial = 0;

  const db = () => test.sluice.database.db;
  const options = () => test.sluice.services.options.values;

  const userById = (id: number) =>
    db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  const allUsers = () => db().selectFrom('users').selectAll().orderBy('id').execute();
  const allLogs = () => db().selectFrom('logs').selectAll().orderBy('id').execute();
  const logsOf = (userId: number) =>
    db().selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const sessionsOf = (userId: number) =>
    db().selectFrom('sluice_sessions').selectAll().where('user_id', '=', userId).execute();

  /** A user inserted straight into the database (one shared bcrypt hash: PASSWORD). */
  const makeUser = async (spec: UserSpec = {}) => {
    serial += 1;
    const username = spec.username ?? `ua${serial}`;
    await db()
      .insertInto('users')
      .values({
        username,
        password: passwordHash,
        display_name: spec.display_name ?? username,
        role: spec.role ?? 1,
        status: spec.status ?? 1,
        email: spec.email ?? '',
        github_id: '',
        wechat_id: '',
        lark_id: '',
        oidc_id: '',
        access_token: uuidHex(),
        quota: spec.quota ?? 0,
        used_quota: spec.used_quota ?? 0,
        request_count: spec.request_count ?? 0,
        group: 'default',
        aff_code: uuidHex().slice(0, 16),
        inviter_id: 0,
      })
      .execute();
    return db().selectFrom('users').selectAll().where('username', '=', username).executeTakeFirstOrThrow();
  };

  /** Every response an administrator sees: never a password hash, never anybody's access token. */
  const inspect = async (response: ApiResponse): Promise<ApiResponse> => {
    expect(response.text).not.toContain('$2');
    const tokens = await db().selectFrom('users').select('access_token').execute();
    for (const { access_token: token } of tokens) if (token) expect(response.text).not.toContain(token);
    return response;
  };

  /** A client whose every response goes through `inspect`. */
  const watched = (inner: ApiClient) => ({
    inner,
    get: async (path: string, opts?: RequestOptions) => inspect(await inner.get(path, opts)),
    post: async (path: string, body?: unknown, opts?: RequestOptions) =>
      inspect(await inner.post(path, body, opts)),
    put: async (path: string, body?: unknown, opts?: RequestOptions) =>
      inspect(await inner.put(path, body, opts)),
    delete: async (path: string, opts?: RequestOptions) => inspect(await inner.delete(path, opts)),
  });
  type Watched = ReturnType<typeof watched>;

  const signIn = async (username: string, password = PASSWORD): Promise<Watched> => {
    const browser = apiClient(test.sluice.app);
    await browser.login(username, password);
    return watched(browser);
  };

  const tryLogin = (username: string, password: string) =>
    apiClient(test.sluice.app).post('/api/user/login', { username, password });

  let root: Watched;
  let admin: Watched;
  let adminRow: Awaited<ReturnType<typeof makeUser>>;
  let otherAdmin: Awaited<ReturnType<typeof makeUser>>;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    passwordHash = await hashPassword(PASSWORD);
    root = await signIn('root', '123456');
    adminRow = await makeUser({ role: 10 });
    otherAdmin = await makeUser({ role: 10 });
    admin = await signIn(adminRow.username);
  });
  afterAll(() => test?.close());

  describe('permissions', () => {
    const everyRoute = (target: { id: number; username: string }) =>
      [
        ['GET', '/api/user/', undefined],
        ['GET', '/api/user/?p=1&order=quota', undefined],
        ['GET', '/api/user/search?keyword=ua', undefined],
        ['GET', `/api/user/${target.id}`, undefined],
        ['POST', '/api/user/', { username: 'sneaky', password: PASSWORD }],
        ['PUT', '/api/user/', { id: target.id, quota: 10 ** 12, role: 100 }],
        ['POST', '/api/user/manage', { username: target.username, action: 'promote' }],
        ['DELETE', `/api/user/${target.id}`, undefined],
        ['POST', '/api/topup', { user_id: target.id, quota: 10 ** 12, remark: 'free money' }],
      ] as const;

    it('answers 401 to a logged-out caller on every admin route and writes nothing', async () => {
      const target = await makeUser({ quota: 5 });
      const users = await allUsers();
      const logs = await allLogs();
      const anonymous = apiClient(test.sluice.app);
      for (const [method, path, body] of everyRoute(target)) {
        const response = await anonymous.request(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body).toEqual(NOT_LOGGED_IN);
      }
      expect(await allUsers()).toEqual(users);
      expect(await allLogs()).toEqual(logs);
    });

    it('refuses a common user (session or access token) on every admin route and writes nothing', async () => {
      const common = await makeUser();
      const target = await makeUser({ quota: 5 });
      const browser = await signIn(common.username);
      const byToken = apiClient(test.sluice.app);
      const users = await allUsers();
      const logs = await allLogs();
      for (const [method, path, body] of everyRoute(target)) {
        const viaSession = await inspect(await browser.inner.request(method, path, body));
        const viaToken = await inspect(
          await byToken.request(method, path, body, {
            headers: { authorization: common.access_token ?? '' },
          }),
        );
        for (const response of [viaSession, viaToken]) {
          expect(response.status, `${method} ${path}`).toBe(200);
          expect(response.body).toEqual(INSUFFICIENT);
        }
      }
      // Not even about themselves.
      expect((await browser.get(`/api/user/${common.id}`)).body).toEqual(INSUFFICIENT);
      expect((await browser.put('/api/user/', { id: common.id, role: 100 })).body).toEqual(INSUFFICIENT);
      expect(await allUsers()).toEqual(users);
      expect(await allLogs()).toEqual(logs);
    });
  });

  describe('GET /api/user/ (list)', () => {
    let deleted: Awaited<ReturnType<typeof makeUser>>;

    beforeAll(async () => {
      for (let index = 0; index < 12; index += 1)
        await makeUser({
          quota: ((index * 37) % 11) * 1000 + index,
          used_quota: ((index * 53) % 13) * 100 + index,
          request_count: ((index * 29) % 7) * 10 + index,
        });
      deleted = await makeUser({
        username: `deleted_${uuidHex()}`,
        status: 3,
        quota: 10 ** 15,
        used_quota: 10 ** 15,
        request_count: 10 ** 9,
      });
    });

    const expectedOrder = async (order: '' | 'quota' | 'used_quota' | 'request_count') => {
      const rows = (await allUsers()).filter((row) => row.status !== 3);
      return rows
        .sort((a, b) => (order === '' ? 0 : b[order] - a[order]) || b.id - a.id)
        .map((row) => row.id);
    };

    const fetchAll = async (client: Watched, query: string): Promise<User[]> => {
      const rows: User[] = [];
      for (let page = 0; page < 100; page += 1) {
        const response = await client.get(`/api/user/?p=${page}${query}`);
        expect(response.body.success, response.text).toBe(true);
        const data = response.body.data as User[];
        expect(data.length).toBeLessThanOrEqual(10);
        rows.push(...data);
        if (data.length < 10) break;
      }
      return rows;
    };

    for (const order of ['', 'quota', 'used_quota', 'request_count'] as const) {
      it(`pages 10 at a time in ${order || 'id'} order and hides deleted users`, async () => {
        const expected = await expectedOrder(order);
        expect(expected.length).toBeGreaterThan(10);
        const rows = await fetchAll(root, order ? `&order=${order}` : '');
        expect(rows.map((row) => row.id)).toEqual(expected);
        expect(rows.map((row) => row.id)).not.toContain(deleted.id);
        const first = (await admin.get(`/api/user/${order ? `?order=${order}` : ''}`)).body.data as User[];
        expect(first.map((row) => row.id)).toEqual(expected.slice(0, 10));
      });
    }

    it('falls back to id order for an unknown order and page 0 for a bad page', async () => {
      const expected = await expectedOrder('');
      const bad = (await root.get('/api/user/?order=password&p=-2')).body.data as User[];
      expect(bad.map((row) => row.id)).toEqual(expected.slice(0, 10));
    });

    it('never includes an access token or a password in the rows', async () => {
      const rows = await fetchAll(admin, '&order=quota');
      expect(rows.length).toBeGreaterThan(10);
      for (const row of rows) {
        expect(row.access_token).toBe('');
        expect(row.password).toBe('');
        expect(row.verification_code).toBe('');
      }
      const stored = await userById(rows[0]!.id);
      expect(stored?.access_token).toMatch(/^[0-9a-f]{32}$/);
      expect(rows[0]).toMatchObject({
        id: stored?.id,
        username: stored?.username,
        quota: stored?.quota,
        used_quota: stored?.used_quota,
        request_count: stored?.request_count,
        role: stored?.role,
        status: stored?.status,
        group: stored?.group,
      });
    });
  });

  describe('GET /api/user/search', () => {
    const search = async (keyword: string): Promise<number[]> => {
      const response = await admin.get(`/api/user/search?keyword=${encodeURIComponent(keyword)}`);
      expect(response.body.success, response.text).toBe(true);
      const rows = response.body.data as User[];
      for (const row of rows) expect(row.access_token).toBe('');
      return rows.map((row) => row.id);
    };

    it('finds by id and by username, email or display name prefix, with % and _ literal', async () => {
      const underscore = await makeUser({ username: 'sr_a1' });
      const letter = await makeUser({ username: 'srXa1' });
      const mail = await makeUser({ email: 'find_me@example.com' });
      const mailX = await makeUser({ email: 'findXme@example.com' });
      const percent = await makeUser({ display_name: 'sale%dept' });
      const saleX = await makeUser({ display_name: 'saleXdept' });
      await makeUser({ username: 'sr_gone', status: 3 });

      expect(await search('sr')).toEqual([letter.id, underscore.id]);
      expect(await search('sr_')).toEqual([underscore.id]);
      expect(await search('find_')).toEqual([mail.id]);
      expect(await search('find')).toEqual([mailX.id, mail.id]);
      expect(await search('example')).toEqual([]);
      expect(await search('sale%')).toEqual([percent.id]);
      expect(await search('sale')).toEqual([saleX.id, percent.id]);
      expect(await search('%')).toEqual([]);
      expect(await search('_')).toEqual([]);
      expect(await search(String(mailX.id))).toContain(mailX.id);
      expect(await search(String(adminRow.id))).toContain(adminRow.id);
    });
  });

  describe('GET /api/user/:id', () => {
    it('lets an admin read a common user, without access token or password', async () => {
      const common = await makeUser({ quota: 321, email: 'c@example.com' });
      const response = await admin.get(`/api/user/${common.id}`);
      expect(response.body.success).toBe(true);
      expect(response.body.data).toMatchObject({
        id: common.id,
        username: common.username,
        quota: 321,
        email: 'c@example.com',
        role: 1,
        access_token: '',
        password: '',
      });
    });

    it('refuses an admin reading another admin, themselves or root; root reads anyone', async () => {
      expect((await admin.get(`/api/user/${otherAdmin.id}`)).body).toEqual(CANNOT_READ);
      expect((await admin.get(`/api/user/${adminRow.id}`)).body).toEqual(CANNOT_READ);
      expect((await admin.get('/api/user/1')).body).toEqual(CANNOT_READ);
      expect((await root.get(`/api/user/${otherAdmin.id}`)).body.data).toMatchObject({
        id: otherAdmin.id,
        role: 10,
        access_token: '',
      });
      expect((await root.get('/api/user/1')).body.data).toMatchObject({ id: 1, username: 'root', role: 100 });
    });

    it('answers an unknown id and a malformed one clearly', async () => {
      expect((await root.get('/api/user/99999999')).body).toEqual(NO_USER);
      expect((await root.get('/api/user/abc')).body).toEqual({
        success: false,
        message: 'invalid parameter: id must be a positive whole number',
      });
    });
  });

  describe('POST /api/user/ (create)', () => {
    beforeAll(async () => {
      await test.sluice.services.options.update('QuotaForNewUser', '4321');
    });
    afterAll(async () => {
      await test.sluice.services.options.update('QuotaForNewUser', '0');
    });

    const userByName = (username: string) =>
      db().selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();

    it('creates a common user with QuotaForNewUser and a default token, who can log in', async () => {
      const response = await root.post('/api/user/', {
        username: 'made1',
        password: 'secret-pass1',
        display_name: 'Made One',
      });
      expect(response.body).toEqual(OK);
      const row = await userByName('made1');
      expect(row).toMatchObject({
        display_name: 'Made One',
        role: 1,
        status: 1,
        quota: 4321,
        used_quota: 0,
        group: 'default',
      });
      expect(row?.password).toMatch(/^\$2[aby]\$10\$/);
      const tokens = await db().selectFrom('tokens').selectAll().where('user_id', '=', row!.id).execute();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ name: 'default', status: 1, expired_time: -1 });
      expect(tokens[0]!.key).toMatch(/^[0-9a-zA-Z]{48}$/);
      expect((await tryLogin('made1', 'secret-pass1')).body.success).toBe(true);
    });

    it('defaults the display name to the username', async () => {
      expect((await admin.post('/api/user/', { username: 'made2', password: PASSWORD })).body).toEqual(OK);
      expect((await userByName('made2'))?.display_name).toBe('made2');
    });

    it('refuses a duplicate username, writing nothing', async () => {
      const users = await allUsers();
      const tokens = await db().selectFrom('tokens').selectAll().execute();
      const response = await root.post('/api/user/', { username: 'made1', password: PASSWORD });
      expect(response.body).toEqual({ success: false, message: 'username already taken' });
      expect(await allUsers()).toEqual(users);
      expect(await db().selectFrom('tokens').selectAll().execute()).toEqual(tokens);
    });

    it('refuses a body role at or above the caller’s; the user created is always common', async () => {
      const users = await allUsers();
      const refused = {
        success: false,
        message: 'cannot create a user with a role equal to or higher than yours',
      };
      expect(
        (await admin.post('/api/user/', { username: 'made3', password: PASSWORD, role: 10 })).body,
      ).toEqual(refused);
      expect(
        (await admin.post('/api/user/', { username: 'made3', password: PASSWORD, role: 100 })).body,
      ).toEqual(refused);
      expect(
        (await root.post('/api/user/', { username: 'made3', password: PASSWORD, role: 100 })).body,
      ).toEqual(refused);
      expect(await allUsers()).toEqual(users);
      expect(
        (await root.post('/api/user/', { username: 'made4', password: PASSWORD, role: 10 })).body,
      ).toEqual(OK);
      expect((await userByName('made4'))?.role).toBe(1);
      expect(
        (await admin.post('/api/user/', { username: 'made5', password: PASSWORD, role: 1 })).body,
      ).toEqual(OK);
      expect((await userByName('made5'))?.role).toBe(1);
    });

    it('refuses invalid fields, writing nothing', async () => {
      const users = await allUsers();
      const bodies: [unknown, RegExp][] = [
        [{ password: PASSWORD }, /^invalid parameter: username/],
        [{ username: '', password: PASSWORD }, /^invalid parameter: username/],
        [{ username: 'x'.repeat(13), password: PASSWORD }, /username must be at most 12 characters/],
        [{ username: 'made6' }, /^invalid parameter: password/],
        [{ username: 'made6', password: 'short' }, /password must be 8-20 characters/],
        [{ username: 'made6', password: 'x'.repeat(21) }, /password must be 8-20 characters/],
        [{ username: 'made6', password: PASSWORD, display_name: 'x'.repeat(21) }, /display name/],
        [{ username: 'made6', password: PASSWORD, role: '1' }, /^invalid parameter: role/],
        [{ username: 6, password: PASSWORD }, /^invalid parameter: username/],
      ];
      for (const [body, message] of bodies) {
        const response = await root.post('/api/user/', body);
        expect(response.body.success).toBe(false);
        expect(response.body.message).toMatch(message);
      }
      expect(await allUsers()).toEqual(users);
    });
  });

  describe('PUT /api/user/ (update)', () => {
    it('sets the quota to 0 and writes a manage log naming both amounts', async () => {
      const target = await makeUser({ quota: 5000 });
      const response = await admin.put('/api/user/', { id: target.id, quota: 0 });
      expect(response.body.success, response.text).toBe(true);
      expect(response.body.data).toMatchObject({ id: target.id, quota: 0, access_token: '', password: '' });
      expect((await userById(target.id))?.quota).toBe(0);
      const logs = await logsOf(target.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ type: LOG_TYPE.manage, user_id: target.id, username: target.username });
      expect(logs[0]!.content).toContain(formatLogQuota(5000, options()));
      expect(logs[0]!.content).toContain(formatLogQuota(0, options()));
      expect(formatLogQuota(5000, options())).not.toBe(formatLogQuota(0, options()));
      // The same quota again changes nothing and logs nothing.
      expect((await admin.put('/api/user/', { id: target.id, quota: 0 })).body.success).toBe(true);
      expect(await logsOf(target.id)).toHaveLength(1);
      expect((await root.put('/api/user/', { id: target.id, quota: 123456 })).body.success).toBe(true);
      const second = (await logsOf(target.id))[1];
      expect(second?.content).toContain(formatLogQuota(0, options()));
      expect(second?.content).toContain(formatLogQuota(123456, options()));
    });

    it('clears the display name, maps an empty group to default, and writes only what is sent', async () => {
      const target = await makeUser({ display_name: 'Shown', email: 'keep@example.com', quota: 77 });
      const cleared = await admin.put('/api/user/', { id: target.id, display_name: '', group: '' });
      expect(cleared.body.success, cleared.text).toBe(true);
      expect(await userById(target.id)).toMatchObject({
        display_name: '',
        group: 'default',
        email: 'keep@example.com',
        quota: 77,
        username: target.username,
        password: target.password,
      });
      expect((await admin.put('/api/user/', { id: target.id, group: 'vip' })).body.success).toBe(true);
      expect((await userById(target.id))?.group).toBe('vip');
      expect((await admin.put('/api/user/', { id: target.id, group: '' })).body.success).toBe(true);
      expect((await userById(target.id))?.group).toBe('default');
      expect(await logsOf(target.id)).toEqual([]);
    });

    it('keeps the password when the body’s is blank and changes it otherwise', async () => {
      const target = await makeUser();
      const form = {
        id: target.id,
        username: target.username,
        display_name: 'Renamed',
        password: '',
        quota: target.quota,
        group: 'default',
      };
      expect((await admin.put('/api/user/', form)).body.success).toBe(true);
      const kept = await userById(target.id);
      expect(kept?.password).toBe(target.password);
      expect(kept?.display_name).toBe('Renamed');
      expect((await tryLogin(target.username, PASSWORD)).body.success).toBe(true);
      expect((await admin.put('/api/user/', { ...form, password: 'brand-new-pw' })).body.success).toBe(true);
      expect((await userById(target.id))?.password).not.toBe(target.password);
      expect((await tryLogin(target.username, PASSWORD)).body).toEqual({
        success: false,
        message: LOGIN_FAILED,
      });
      expect((await tryLogin(target.username, 'brand-new-pw')).body.success).toBe(true);
    });

    it('refuses an admin updating another admin, themselves or root', async () => {
      const users = await allUsers();
      for (const id of [otherAdmin.id, adminRow.id, 1])
        expect((await admin.put('/api/user/', { id, display_name: 'pwned', quota: 0 })).body).toEqual(
          CANNOT_UPDATE,
        );
      expect(await allUsers()).toEqual(users);
    });

    it('refuses to raise a user to the caller’s level, and root’s demotion or ban', async () => {
      const target = await makeUser();
      const users = await allUsers();
      const raise = { success: false, message: 'cannot raise a user to your level or above' };
      expect((await admin.put('/api/user/', { id: target.id, role: 10 })).body).toEqual(raise);
      expect((await admin.put('/api/user/', { id: target.id, role: 100 })).body).toEqual(raise);
      expect((await root.put('/api/user/', { id: target.id, role: 5 })).body).toEqual({
        success: false,
        message: 'role must be 1, 10 or 100',
      });
      expect((await root.put('/api/user/', { id: 1, status: 2 })).body).toEqual(ROOT_NOT_DISABLABLE);
      expect((await root.put('/api/user/', { id: 1, role: 1 })).body).toEqual(ROOT_NOT_DEMOTABLE);
      expect((await root.put('/api/user/', { id: 1, role: 10 })).body).toEqual(ROOT_NOT_DEMOTABLE);
      expect(await allUsers()).toEqual(users);
      // Root may make an admin.
      expect((await root.put('/api/user/', { id: target.id, role: 10 })).body.success).toBe(true);
      expect((await userById(target.id))?.role).toBe(10);
    });

    it('refuses bad values and unknown users, writing nothing', async () => {
      const target = await makeUser({ quota: 10 });
      const taken = await makeUser();
      const users = await allUsers();
      const logs = await allLogs();
      const bodies: [unknown, string | RegExp][] = [
        [{ id: target.id, quota: -1 }, 'invalid parameter: quota: quota cannot be negative'],
        [{ id: target.id, quota: 1.5 }, /^invalid parameter: quota/],
        [{ id: target.id, quota: '100' }, /^invalid parameter: quota/],
        [{ id: target.id, email: 'not-an-email' }, /invalid email address/],
        [{ id: target.id, username: 'x'.repeat(13) }, /username must be at most 12 characters/],
        [{ id: target.id, password: 'short' }, /password must be 8-20 characters/],
        [{ id: target.id, group: 'a b' }, /^invalid parameter: group/],
        [{ id: target.id, status: 3 }, 'status must be 1 (enabled) or 2 (disabled)'],
        [{ id: target.id, status: 0 }, 'status must be 1 (enabled) or 2 (disabled)'],
        [{ id: target.id, username: taken.username, quota: 99 }, 'username already taken'],
        [{ quota: 5 }, /^invalid parameter: id/],
        [{ id: 99999999, quota: 5 }, 'user does not exist'],
      ];
      for (const [body, message] of bodies) {
        const response = await root.put('/api/user/', body);
        expect(response.body.success, JSON.stringify(body)).toBe(false);
        if (typeof message === 'string') expect(response.body.message).toBe(message);
        else expect(response.body.message).toMatch(message);
      }
      expect(await allUsers()).toEqual(users);
      expect(await allLogs()).toEqual(logs);
    });

    it('logs a user out at once when their status becomes 2, and lets them back on at 1', async () => {
      const target = await makeUser();
      const browser = await signIn(target.username);
      expect((await browser.inner.get('/api/user/self')).body.success).toBe(true);
      expect(await sessionsOf(target.id)).toHaveLength(1);
      const response = await admin.put('/api/user/', { id: target.id, status: 2 });
      expect(response.body.data).toMatchObject({ id: target.id, status: 2 });
      expect(await sessionsOf(target.id)).toEqual([]);
      const after = await browser.inner.get('/api/user/self');
      expect(after.body.success).toBe(false);
      expect(after.status === 401 || after.body.message === 'the user is banned').toBe(true);
      const byToken = await apiClient(test.sluice.app).get('/api/user/self', {
        headers: { authorization: target.access_token ?? '' },
      });
      expect(byToken.body).toEqual({ success: false, message: 'the user is banned' });
      expect((await tryLogin(target.username, PASSWORD)).body).toEqual({
        success: false,
        message: LOGIN_FAILED,
      });
      expect((await admin.put('/api/user/', { id: target.id, status: 1 })).body.success).toBe(true);
      expect((await tryLogin(target.username, PASSWORD)).body.success).toBe(true);
    });
  });

  describe('POST /api/user/manage', () => {
    const manage = (client: Watched, username: string, action: string) =>
      client.post('/api/user/manage', { username, action });

    it('lets an admin disable and enable a common user, answering {role, status}', async () => {
      const target = await makeUser();
      const browser = await signIn(target.username);
      const off = await manage(admin, target.username, 'disable');
      expect(off.body).toEqual({ success: true, message: '', data: { role: 1, status: 2 } });
      expect((await userById(target.id))?.status).toBe(2);
      const after = await browser.inner.get('/api/user/self');
      expect(after.body.success).toBe(false);
      expect(after.status === 401 || after.body.message === 'the user is banned').toBe(true);
      const on = await manage(admin, target.username, 'enable');
      expect(on.body).toEqual({ success: true, message: '', data: { role: 1, status: 1 } });
      expect((await userById(target.id))?.status).toBe(1);
    });

    it('refuses every action of an admin on another admin or on root', async () => {
      const users = await allUsers();
      for (const action of ACTIONS) {
        expect((await manage(admin, otherAdmin.username, action)).body).toEqual(CANNOT_UPDATE);
        expect((await manage(admin, 'root', action)).body).toEqual(CANNOT_UPDATE);
        expect((await manage(admin, adminRow.username, action)).body).toEqual(CANNOT_UPDATE);
      }
      expect(await allUsers()).toEqual(users);
    });

    it('never disables, deletes or demotes root, not even for root', async () => {
      const users = await allUsers();
      expect((await manage(root, 'root', 'disable')).body).toEqual(ROOT_NOT_DISABLABLE);
      expect((await manage(root, 'root', 'delete')).body).toEqual(ROOT_NOT_DELETABLE);
      expect((await manage(root, 'root', 'demote')).body).toEqual(ROOT_NOT_DEMOTABLE);
      expect((await manage(root, 'root', 'promote')).body).toEqual({
        success: false,
        message: 'this user is already an administrator',
      });
      expect(await allUsers()).toEqual(users);
      expect((await userById(1))?.role).toBe(100);
    });

    it('lets only root promote; promote and demote refuse a no-op', async () => {
      const target = await makeUser();
      expect((await manage(admin, target.username, 'promote')).body).toEqual({
        success: false,
        message: 'ordinary administrators cannot promote other users',
      });
      expect((await manage(admin, target.username, 'demote')).body).toEqual({
        success: false,
        message: 'this user is already a common user',
      });
      expect((await userById(target.id))?.role).toBe(1);
      expect((await manage(root, target.username, 'promote')).body).toEqual({
        success: true,
        message: '',
        data: { role: 10, status: 1 },
      });
      expect((await userById(target.id))?.role).toBe(10);
      expect((await manage(root, target.username, 'promote')).body).toEqual({
        success: false,
        message: 'this user is already an administrator',
      });
      expect((await userById(target.id))?.role).toBe(10);
      // Now an admin, the target is out of the other admin's reach.
      expect((await manage(admin, target.username, 'disable')).body).toEqual(CANNOT_UPDATE);
      expect((await manage(root, target.username, 'disable')).body).toEqual({
        success: true,
        message: '',
        data: { role: 10, status: 2 },
      });
      expect((await manage(root, target.username, 'demote')).body).toEqual({
        success: true,
        message: '',
        data: { role: 1, status: 2 },
      });
      expect((await manage(root, target.username, 'demote')).body).toEqual({
        success: false,
        message: 'this user is already a common user',
      });
      expect(await userById(target.id)).toMatchObject({ role: 1, status: 2 });
    });

    it('soft-deletes: renamed deleted_…, status 3, logged out, gone from the list', async () => {
      const target = await makeUser();
      const browser = await signIn(target.username);
      const response = await manage(admin, target.username, 'delete');
      expect(response.body).toEqual({ success: true, message: '', data: { role: 1, status: 3 } });
      const row = await userById(target.id);
      expect(row?.status).toBe(3);
      expect(row?.username).toMatch(/^deleted_[0-9a-f]{32}$/);
      expect(row?.access_token ?? null).toBeNull();
      expect(await sessionsOf(target.id)).toEqual([]);
      expect((await browser.inner.get('/api/user/self')).body.success).toBe(false);
      expect((await manage(admin, target.username, 'enable')).body).toEqual(NO_USER);
      const list = (await root.get('/api/user/')).body.data as User[];
      expect(list.map((user) => user.id)).not.toContain(target.id);
    });

    it('answers an unknown user or action clearly', async () => {
      const target = await makeUser();
      expect((await manage(root, 'nobody-here', 'disable')).body).toEqual(NO_USER);
      const bad = await manage(root, target.username, 'explode');
      expect(bad.body).toEqual({
        success: false,
        message: 'invalid parameter: action: action must be one of disable, enable, delete, promote, demote',
      });
      expect((await root.post('/api/user/manage', { action: 'disable' })).body.message).toMatch(
        /^invalid parameter: username/,
      );
      expect((await userById(target.id))?.status).toBe(1);
    });
  });

  describe('DELETE /api/user/:id', () => {
    it('soft-deletes a lower-role user and answers success', async () => {
      for (const [client, target] of [
        [root, await makeUser()],
        [admin, await makeUser()],
        [root, await makeUser({ role: 10 })],
      ] as const) {
        const response = await client.delete(`/api/user/${target.id}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual(OK);
        const row = await userById(target.id);
        expect(row?.status).toBe(3);
        expect(row?.username).toMatch(/^deleted_[0-9a-f]{32}$/);
      }
    });

    it('refuses the same or a higher role, root, and unknown ids, changing nothing', async () => {
      const users = await allUsers();
      expect((await admin.delete(`/api/user/${otherAdmin.id}`)).body).toEqual(CANNOT_DELETE);
      expect((await admin.delete(`/api/user/${adminRow.id}`)).body).toEqual(CANNOT_DELETE);
      expect((await admin.delete('/api/user/1')).body).toEqual(ROOT_NOT_DELETABLE);
      expect((await root.delete('/api/user/1')).body).toEqual(ROOT_NOT_DELETABLE);
      expect((await root.delete('/api/user/99999999')).body).toEqual(NO_USER);
      expect((await root.delete('/api/user/abc')).body.message).toBe(
        'invalid parameter: id must be a positive whole number',
      );
      expect(await allUsers()).toEqual(users);
    });
  });

  describe('POST /api/topup', () => {
    it('adds quota with a top-up log carrying the amount and the remark', async () => {
      const target = await makeUser({ quota: 100 });
      const response = await root.post('/api/topup', { user_id: target.id, quota: 777, remark: 'order #42' });
      expect(response.body).toEqual(OK);
      expect((await userById(target.id))?.quota).toBe(877);
      const logs = await logsOf(target.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        type: LOG_TYPE.topup,
        quota: 777,
        content: 'order #42',
        user_id: target.id,
        username: target.username,
      });
      expect((await admin.post('/api/topup', { user_id: target.id, quota: 23 })).body).toEqual(OK);
      expect((await userById(target.id))?.quota).toBe(900);
      const second = (await logsOf(target.id))[1];
      expect(second).toMatchObject({
        type: LOG_TYPE.topup,
        quota: 23,
        content: `top up via API ${formatLogQuota(23, options())}`,
      });
    });

    it('accepts a top-up of 0', async () => {
      const target = await makeUser({ quota: 50 });
      expect((await root.post('/api/topup', { user_id: target.id, quota: 0 })).body).toEqual(OK);
      expect((await userById(target.id))?.quota).toBe(50);
    });

    it('refuses a negative amount, bad types and an unknown user, writing nothing', async () => {
      const target = await makeUser({ quota: 100 });
      const users = await allUsers();
      const logs = await allLogs();
      const bodies: [unknown, string | RegExp][] = [
        [{ user_id: target.id, quota: -1 }, 'invalid parameter: quota: quota cannot be negative'],
        [{ user_id: target.id, quota: '5' }, /^invalid parameter: quota/],
        [{ user_id: target.id, quota: 2.5 }, /^invalid parameter: quota/],
        [{ user_id: target.id, quota: 5, remark: 7 }, /^invalid parameter: remark/],
        [{ quota: 5 }, /^invalid parameter: user_id/],
        [{ user_id: 99999999, quota: 5 }, 'user does not exist'],
      ];
      for (const [body, message] of bodies) {
        const response = await root.post('/api/topup', body);
        expect(response.body.success).toBe(false);
        if (typeof message === 'string') expect(response.body.message).toBe(message);
        else expect(response.body.message).toMatch(message);
      }
      expect(await allUsers()).toEqual(users);
      expect(await allLogs()).toEqual(logs);
    });

    it('never loses a quota move when top-ups and consumptions race', async () => {
      const target = await makeUser({ quota: 10_000 });
      const moves: Promise<unknown>[] = [];
      for (let index = 0; index < 30; index += 1) {
        moves.push(
          root.inner.post('/api/topup', { user_id: target.id, quota: 7 }).then((response) => {
            expect(response.body).toEqual(OK);
          }),
        );
        moves.push(increaseUserQuota(db(), target.id, -5));
      }
      await Promise.all(moves);
      expect((await userById(target.id))?.quota).toBe(10_000 + 30 * 7 - 30 * 5);
      const logs = await logsOf(target.id);
      expect(logs).toHaveLength(30);
      expect(logs.every((log) => log.type === LOG_TYPE.topup && log.quota === 7)).toBe(true);
    });
  });
});
