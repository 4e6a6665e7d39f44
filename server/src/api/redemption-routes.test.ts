import type { Redemption } from '@sluice/contract/schemas/redemption';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import { nowSeconds } from '../lib/time.js';
import { apiClient, type ApiClient, type ApiResponse } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

const PASSWORD = 'password123';
const NOT_LOGGED_IN = { success: false, message: 'no permission: not logged in and no access token' };
const INSUFFICIENT = { success: false, message: 'no permission: insufficient role' };
const NO_CODE = { success: false, message: 'redemption code does not exist' };
const USED = { success: false, message: 'redeem failed: this code has already been used' };
const INVALID = { success: false, message: 'redeem failed: invalid redemption code' };
const HEX32 = /^[0-9a-f]{32}$/;

describe.each(testDialects())('redemption routes (/api/redemption) on %s', (dialect) => {
  let test: TestSluice;
  let passwordHash = '';
  let serial = 0;
  let root: ApiClient;
  let rootId = 0;

  const db = () => test.sluice.database.db;
  const client = (): ApiClient => apiClient(test.sluice.app);

  /** A common user inserted straight into the database; `api` authenticates with its access token. */
  const makeUser = async (prefix: string, quota = 0) => {
    serial += 1;
    const username = `${prefix}${serial}`;
    const accessToken = uuidHex();
    await db()
      .insertInto('users')
      .values({
        username,
        password: passwordHash,
        display_name: username,
        role: 1,
        status: 1,
        email: '',
        github_id: '',
        wechat_id: '',
        lark_id: '',
        oidc_id: '',
        access_token: accessToken,
        quota,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        aff_code: uuidHex().slice(0, 16),
        inviter_id: 0,
      })
      .execute();
    const row = await db()
      .selectFrom('users')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const redeem = (key: unknown) =>
      client().post('/api/user/topup', { key }, { headers: { authorization: `Bearer ${accessToken}` } });
    return { id: row.id, username, accessToken, redeem };
  };

  const allCodes = () => db().selectFrom('redemptions').selectAll().orderBy('id').execute();
  const codeById = (id: number) =>
    db().selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
  const codeByKey = (key: string) =>
    db().selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
  const quotaOf = async (userId: number) =>
    (await db().selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota;
  const logsOf = (userId: number) =>
    db().selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const allLogs = () => db().selectFrom('logs').selectAll().orderBy('id').execute();

  /** Creates codes as root and answers their keys. */
  const createCodes = async (body: Record<string, unknown>): Promise<string[]> => {
    const response = await root.post('/api/redemption/', body);
    expect(response.body.success, response.text).toBe(true);
    return response.body.data as string[];
  };

  const createCode = async (name: string, quota: number): Promise<Redemption> => {
    const [key = ''] = await createCodes({ name, quota, count: 1 });
    const row = await codeByKey(key);
    return {
      id: row.id,
      user_id: row.user_id,
      key: row.key,
      status: row.status,
      name: row.name ?? '',
      quota: row.quota,
      created_time: row.created_time,
      redeemed_time: row.redeemed_time,
    };
  };

  const expectRefused = (response: ApiResponse, message: string | RegExp) => {
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(false);
    if (typeof message === 'string') expect(response.body.message).toBe(message);
    else expect(response.body.message).toMatch(message);
    expect(response.body.data).toBeUndefined();
  };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    passwordHash = await hashPassword(PASSWORD);
    root = client();
    const login = await root.login('root', '123456');
    rootId = (login.body.data as { id: number }).id;
  });
  afterAll(() => test?.close());

  describe('permissions', () => {
    it('answers 401 to a logged-out caller on every route, including redeeming', async () => {
      const code = await createCode('guarded', 10);
      const before = await allCodes();
      const anonymous = client();
      const responses = [
        await anonymous.get('/api/redemption/'),
        await anonymous.get('/api/redemption/?p=1'),
        await anonymous.get('/api/redemption/search?keyword=g'),
        await anonymous.get(`/api/redemption/${code.id}`),
        await anonymous.post('/api/redemption/', { name: 'x', quota: 1, count: 1 }),
        await anonymous.put('/api/redemption/', { id: code.id, name: 'x', quota: 5 }),
        await anonymous.put('/api/redemption/?status_only=true', { id: code.id, status: 2 }),
        await anonymous.delete(`/api/redemption/${code.id}`),
        await anonymous.post('/api/user/topup', { key: code.key }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(401);
        expect(response.body).toEqual(NOT_LOGGED_IN);
      }
      expect(await allCodes()).toEqual(before);
    });

    it('refuses a common user on every /api/redemption route, writing nothing and leaking no key', async () => {
      const code = await createCode('secret', 10);
      const user = await makeUser('rpc');
      const browser = client();
      await browser.login(user.username, PASSWORD);
      const before = await allCodes();
      const byToken = { headers: { authorization: user.accessToken } };
      for (const [caller, options] of [
        [browser, undefined],
        [client(), byToken],
      ] as const) {
        const responses = [
          await caller.get('/api/redemption/', options),
          await caller.get('/api/redemption/search?keyword=sec', options),
          await caller.get(`/api/redemption/${code.id}`, options),
          await caller.post('/api/redemption/', { name: 'mine', quota: 10 ** 9, count: 5 }, options),
          await caller.put('/api/redemption/', { id: code.id, name: 'mine', quota: 10 ** 9 }, options),
          await caller.put('/api/redemption/?status_only=true', { id: code.id, status: 2 }, options),
          await caller.delete(`/api/redemption/${code.id}`, options),
        ];
        for (const response of responses) {
          expect(response.status).toBe(200);
          expect(response.body).toEqual(INSUFFICIENT);
          expect(response.text).not.toContain(code.key);
        }
      }
      expect(await allCodes()).toEqual(before);
    });
  });

  describe('POST /api/redemption/', () => {
    for (const count of [1, 7, 100]) {
      it(`creates ${count} code(s) of 32 lowercase hex and answers their keys`, async () => {
        const name = `batch${count}`;
        const started = nowSeconds();
        const before = (await allCodes()).length;
        const keys = await createCodes({ name, quota: 250, count });
        expect(keys).toHaveLength(count);
        expect(new Set(keys).size).toBe(count);
        for (const key of keys) expect(key).toMatch(HEX32);
        expect(await allCodes()).toHaveLength(before + count);
        const rows = await db().selectFrom('redemptions').selectAll().where('name', '=', name).execute();
        expect(rows.map((row) => row.key).sort()).toEqual([...keys].sort());
        for (const row of rows) {
          expect(row).toMatchObject({ user_id: rootId, status: 1, name, quota: 250, redeemed_time: 0 });
          expect(row.created_time).toBeGreaterThanOrEqual(started);
          expect(row.created_time).toBeLessThanOrEqual(nowSeconds());
        }
      });
    }

    it('accepts names of exactly 20 bytes', async () => {
      for (const name of ['a'.repeat(20), '一二三四五六']) {
        const [key = ''] = await createCodes({ name, quota: 1, count: 1 });
        expect((await codeByKey(key)).name).toBe(name);
      }
    });

    const refusals: [string, unknown, string | RegExp][] = [
      [
        'count 0',
        { name: 'n', quota: 1, count: 0 },
        'invalid parameter: count: count must be greater than 0',
      ],
      ['count -3', { name: 'n', quota: 1, count: -3 }, /count must be greater than 0/],
      [
        'count 101',
        { name: 'n', quota: 1, count: 101 },
        'invalid parameter: count: cannot generate more than 100 codes at once',
      ],
      ['a fractional count', { name: 'n', quota: 1, count: 2.5 }, /^invalid parameter: count/],
      ['a string count', { name: 'n', quota: 1, count: '5' }, /^invalid parameter: count/],
      [
        'quota 0',
        { name: 'n', quota: 0, count: 1 },
        'invalid parameter: quota: quota must be greater than 0',
      ],
      ['a negative quota', { name: 'n', quota: -100, count: 1 }, /quota must be greater than 0/],
      ['a fractional quota', { name: 'n', quota: 1.5, count: 1 }, /^invalid parameter: quota/],
      ['a string quota', { name: 'n', quota: '100', count: 1 }, /^invalid parameter: quota/],
      ['a missing quota', { name: 'n', count: 1 }, /^invalid parameter: quota/],
      [
        'an empty name',
        { name: '', quota: 1, count: 1 },
        'invalid parameter: name: name length must be 1-20',
      ],
      ['a blank name', { name: '   ', quota: 1, count: 1 }, /name length must be 1-20/],
      ['a 21-byte name', { name: 'a'.repeat(21), quota: 1, count: 1 }, /name length must be 1-20/],
      [
        'a 7-character Chinese name (21 bytes)',
        { name: '一二三四五六七', quota: 1, count: 1 },
        /name length must be 1-20/,
      ],
      ['a numeric name', { name: 12, quota: 1, count: 1 }, /^invalid parameter: name/],
      ['a missing name', { quota: 1, count: 1 }, /^invalid parameter: name/],
      ['a string body', 'codes please', /^invalid parameter/],
    ];
    for (const [label, body, message] of refusals) {
      it(`refuses ${label} and writes nothing`, async () => {
        const before = await allCodes();
        expectRefused(await root.post('/api/redemption/', body), message);
        expect(await allCodes()).toEqual(before);
      });
    }

    it('refuses a body that is not JSON and writes nothing', async () => {
      const before = await allCodes();
      expectRefused(
        await root.post('/api/redemption/', '{name', { raw: true }),
        'invalid parameter: the body must be valid JSON',
      );
      expect(await allCodes()).toEqual(before);
    });
  });

  describe('GET /api/redemption/, /search, /:id', () => {
    it('lists every code 10 per page, newest first, keys included', async () => {
      const rows = (await allCodes()).sort((a, b) => b.id - a.id);
      expect(rows.length).toBeGreaterThan(20);
      const pages = [0, 1, 2].map((p) => root.get(`/api/redemption/?p=${p}`));
      for (const [p, request] of pages.entries()) {
        const response = await request;
        expect(response.body.success).toBe(true);
        const data = response.body.data as Redemption[];
        expect(data.map((code) => code.id)).toEqual(rows.slice(p * 10, p * 10 + 10).map((row) => row.id));
        expect(data.map((code) => code.key)).toEqual(rows.slice(p * 10, p * 10 + 10).map((row) => row.key));
      }
      const first = (await root.get('/api/redemption/')).body.data as Redemption[];
      expect(first.map((code) => code.id)).toEqual(rows.slice(0, 10).map((row) => row.id));
      expect((await root.get('/api/redemption/?p=-1')).body.data).toEqual(first);
      expect((await root.get('/api/redemption/?p=100000')).body.data).toEqual([]);
    });

    it('searches by name prefix with % and _ taken literally, and by id', async () => {
      const plain = await createCode('promo_a', 5);
      const wild = await createCode('promoXa', 5);
      const percent = await createCode('sale%1', 5);
      const other = await createCode('saleX1', 5);
      const search = async (keyword: string) => {
        const response = await root.get(`/api/redemption/search?keyword=${encodeURIComponent(keyword)}`);
        expect(response.body.success, response.text).toBe(true);
        return (response.body.data as Redemption[]).map((code) => code.id);
      };
      expect(await search('promo')).toEqual([wild.id, plain.id]);
      expect(await search('promo_')).toEqual([plain.id]);
      expect(await search('sale%')).toEqual([percent.id]);
      expect(await search('sale')).toEqual([other.id, percent.id]);
      expect(await search('%')).toEqual([]);
      expect(await search(String(other.id))).toContain(other.id);
      const byId = (await root.get(`/api/redemption/search?keyword=${plain.id}`)).body.data as Redemption[];
      expect(byId.find((code) => code.id === plain.id)).toEqual(plain);
    });

    it('reads one code by id', async () => {
      const code = await createCode('single', 42);
      expect((await root.get(`/api/redemption/${code.id}`)).body).toEqual({
        success: true,
        message: '',
        data: code,
      });
      expect((await root.get('/api/redemption/99999999')).body).toEqual(NO_CODE);
      expectRefused(
        await root.get('/api/redemption/abc'),
        'invalid parameter: id must be a positive whole number',
      );
    });
  });

  describe('PUT /api/redemption/', () => {
    it('changes the name and quota only', async () => {
      const code = await createCode('before', 100);
      await root.put('/api/redemption/?status_only=true', { id: code.id, status: 2 });
      const response = await root.put('/api/redemption/', {
        ...code,
        name: 'after',
        quota: 555,
        status: 1,
        key: 'f'.repeat(32),
        user_id: 999,
        redeemed_time: 123,
        created_time: 1,
      });
      const expected = { ...code, name: 'after', quota: 555, status: 2 };
      expect(response.body).toEqual({ success: true, message: '', data: expected });
      expect(await codeById(code.id)).toEqual(expected);
    });

    it('refuses bad input and an unknown id, writing nothing', async () => {
      const code = await createCode('keepme', 100);
      const before = await allCodes();
      const bodies: [unknown, string | RegExp][] = [
        [{ id: code.id, name: 'x', quota: 0 }, /quota must be greater than 0/],
        [{ id: code.id, name: 'x', quota: -5 }, /quota must be greater than 0/],
        [{ id: code.id, name: '', quota: 5 }, /name length must be 1-20/],
        [{ id: code.id, name: 'a'.repeat(21), quota: 5 }, /name length must be 1-20/],
        [{ id: code.id, name: 'x', quota: '5' }, /^invalid parameter: quota/],
        [{ name: 'x', quota: 5 }, /^invalid parameter: id/],
        [{ id: 99999999, name: 'x', quota: 5 }, 'redemption code does not exist'],
      ];
      for (const [body, message] of bodies) expectRefused(await root.put('/api/redemption/', body), message);
      expect(await allCodes()).toEqual(before);
    });
  });

  describe('PUT /api/redemption/?status_only=true', () => {
    const setStatus = (id: number, status: unknown) =>
      root.put('/api/redemption/?status_only=true', { id, status });

    it('toggles an unused code between 1 and 2 and changes nothing else', async () => {
      const code = await createCode('toggle', 10);
      const off = await setStatus(code.id, 2);
      expect(off.body).toEqual({ success: true, message: '', data: { ...code, status: 2 } });
      expect(await codeById(code.id)).toEqual({ ...code, status: 2 });
      const offAgain = await setStatus(code.id, 2);
      expect(offAgain.body.success, offAgain.text).toBe(true);
      const on = await setStatus(code.id, 1);
      expect(on.body).toEqual({ success: true, message: '', data: code });
      const onAgain = await setStatus(code.id, 1);
      expect(onAgain.body.success, onAgain.text).toBe(true);
      expect(await codeById(code.id)).toEqual(code);
    });

    it('refuses to change a used code, which stays used', async () => {
      const code = await createCode('spent', 10);
      const user = await makeUser('rps');
      expect((await user.redeem(code.key)).body.success).toBe(true);
      const used = await codeById(code.id);
      expect(used?.status).toBe(3);
      for (const status of [1, 2])
        expectRefused(
          await setStatus(code.id, status),
          'this code has already been used; its status cannot change',
        );
      expect(await codeById(code.id)).toEqual(used);
    });

    it('accepts only status 1 or 2, and refuses an unknown id', async () => {
      const code = await createCode('strict', 10);
      const before = await allCodes();
      for (const status of [0, 3, '2', null])
        expectRefused(
          await setStatus(code.id, status),
          'invalid parameter: status: status must be 1 (enabled) or 2 (disabled)',
        );
      expect((await setStatus(99999999, 2)).body).toEqual(NO_CODE);
      expect(await allCodes()).toEqual(before);
    });
  });

  describe('DELETE /api/redemption/:id', () => {
    it('deletes the code for good', async () => {
      const code = await createCode('doomed', 10);
      const keep = await createCode('kept', 10);
      expect((await root.delete(`/api/redemption/${code.id}`)).body).toEqual({ success: true, message: '' });
      expect(await codeById(code.id)).toBeUndefined();
      expect(await codeById(keep.id)).toEqual(keep);
      expect((await root.get(`/api/redemption/${code.id}`)).body).toEqual(NO_CODE);
      expect((await root.delete(`/api/redemption/${code.id}`)).body).toEqual(NO_CODE);
      const user = await makeUser('rpd');
      expect((await user.redeem(code.key)).body).toEqual(INVALID);
    });
  });

  describe('POST /api/user/topup (redeem)', () => {
    it('adds the quota, marks the code used and writes a top-up log', async () => {
      const code = await createCode('gift', 777);
      const user = await makeUser('rpr', 1000);
      const started = nowSeconds();
      const response = await user.redeem(code.key);
      expect(response.body).toEqual({ success: true, message: '', data: 777 });
      expect(await quotaOf(user.id)).toBe(1777);
      const row = await codeById(code.id);
      expect(row).toMatchObject({ status: 3, quota: 777, user_id: rootId, name: 'gift' });
      expect(row?.redeemed_time).toBeGreaterThanOrEqual(started);
      expect(row?.redeemed_time).toBeLessThanOrEqual(nowSeconds());
      const logs = await logsOf(user.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        type: LOG_TYPE.topup,
        quota: 777,
        user_id: user.id,
        username: user.username,
      });
      expect(logs[0]!.content).toMatch(/^top up via redemption code /);
    });

    it('works over the session cookie too and trims the key', async () => {
      const code = await createCode('cookie', 5);
      const user = await makeUser('rpk', 0);
      const browser = client();
      await browser.login(user.username, PASSWORD);
      const response = await browser.post('/api/user/topup', { key: `  ${code.key} ` });
      expect(response.body).toEqual({ success: true, message: '', data: 5 });
      expect(await quotaOf(user.id)).toBe(5);
    });

    it('refuses a used code: nothing moves the second time', async () => {
      const code = await createCode('once', 300);
      const first = await makeUser('rp1', 0);
      const second = await makeUser('rp2', 0);
      expect((await first.redeem(code.key)).body.data).toBe(300);
      const used = await codeById(code.id);
      const logCount = (await allLogs()).length;
      expect((await first.redeem(code.key)).body).toEqual(USED);
      expect((await second.redeem(code.key)).body).toEqual(USED);
      expect(await quotaOf(first.id)).toBe(300);
      expect(await quotaOf(second.id)).toBe(0);
      expect(await codeById(code.id)).toEqual(used);
      expect(await allLogs()).toHaveLength(logCount);
    });

    it('refuses a disabled code and leaves it disabled', async () => {
      const code = await createCode('paused', 300);
      await root.put('/api/redemption/?status_only=true', { id: code.id, status: 2 });
      const user = await makeUser('rpx', 10);
      const logCount = (await allLogs()).length;
      expect((await user.redeem(code.key)).body).toEqual(USED);
      expect(await quotaOf(user.id)).toBe(10);
      expect(await codeById(code.id)).toEqual({ ...code, status: 2 });
      expect(await allLogs()).toHaveLength(logCount);
      // Enabled again, it redeems.
      await root.put('/api/redemption/?status_only=true', { id: code.id, status: 1 });
      expect((await user.redeem(code.key)).body.data).toBe(300);
      expect(await quotaOf(user.id)).toBe(310);
    });

    it('refuses an unknown, an empty or a missing code', async () => {
      const user = await makeUser('rpu', 10);
      const logCount = (await allLogs()).length;
      expect((await user.redeem(uuidHex())).body).toEqual(INVALID);
      expect((await user.redeem('not-a-code')).body).toEqual(INVALID);
      expect((await user.redeem("' OR '1'='1")).body).toEqual(INVALID);
      for (const key of ['', '   ']) {
        const response = await user.redeem(key);
        expect(response.body.success).toBe(false);
        expect(response.body.message).toContain('no redemption code provided');
      }
      expectRefused(await user.redeem(undefined), /^invalid parameter: key/);
      expectRefused(await user.redeem(12345), /^invalid parameter: key/);
      expect(await quotaOf(user.id)).toBe(10);
      expect(await allLogs()).toHaveLength(logCount);
    });

    it('lets exactly one of 50 users redeem a code raced in parallel', async () => {
      const code = await createCode('race', 1000);
      const users = [];
      for (let index = 0; index < 50; index += 1) users.push(await makeUser('rc', 0));
      const responses = await Promise.all(users.map((user) => user.redeem(code.key)));
      const winners = responses.filter((response) => response.body.success === true);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.body.data).toBe(1000);
      for (const response of responses)
        if (response.body.success !== true) expect(response.body).toEqual(USED);
      const quotas = await db()
        .selectFrom('users')
        .select(['id', 'quota'])
        .where(
          'id',
          'in',
          users.map((user) => user.id),
        )
        .execute();
      expect(quotas.reduce((sum, row) => sum + row.quota, 0)).toBe(1000);
      expect(quotas.filter((row) => row.quota !== 0)).toHaveLength(1);
      const logs = await db()
        .selectFrom('logs')
        .selectAll()
        .where(
          'user_id',
          'in',
          users.map((user) => user.id),
        )
        .execute();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        type: LOG_TYPE.topup,
        quota: 1000,
        user_id: quotas.find((row) => row.quota)!.id,
      });
      expect((await codeById(code.id))?.status).toBe(3);
    });

    it('lets one user redeem a code only once across 50 parallel calls', async () => {
      const code = await createCode('burst', 40);
      const user = await makeUser('rpb', 3);
      const responses = await Promise.all(Array.from({ length: 50 }, () => user.redeem(code.key)));
      expect(responses.filter((response) => response.body.success === true)).toHaveLength(1);
      expect(responses.filter((response) => response.body.message === USED.message)).toHaveLength(49);
      expect(await quotaOf(user.id)).toBe(43);
      const logs = await logsOf(user.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ type: LOG_TYPE.topup, quota: 40 });
    });
  });
});
