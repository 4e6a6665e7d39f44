import type { Token } from '@sluice/contract/schemas/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTokenKey, uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import { nowSeconds } from '../lib/time.js';
import { TOKEN_EXHAUSTED_MESSAGE, TOKEN_EXPIRED_MESSAGE } from '../services/token-service.js';
import { apiClient, type ApiClient, type ApiResponse } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

const PASSWORD = 'password123';
const NOT_LOGGED_IN = { success: false, message: 'no permission: not logged in and no access token' };
const NO_TOKEN = { success: false, message: 'token does not exist' };
const KEY = /^[0-9a-zA-Z]{48}$/;

/** Booleans come back as 0/1 from SQLite and MySQL, true/false from PostgreSQL. */
const isTrue = (value: unknown): boolean => value === true || value === 1;

describe.each(testDialects())('token routes (/api/token) on %s', (dialect) => {
  let test: TestSluice;
  let passwordHash = '';
  let serial = 0;

  const db = () => test.sluice.database.db;
  const client = (): ApiClient => apiClient(test.sluice.app);

  /** A common user inserted straight into the database (no default token), logged in. */
  const signedInUser = async (prefix: string) => {
    serial += 1;
    const username = `${prefix}${serial}`;
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
        access_token: uuidHex(),
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        aff_code: uuidHex().slice(0, 16),
        inviter_id: 0,
      })
      .execute();
    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const browser = client();
    await browser.login(username, PASSWORD);
    return { id: row.id, username, browser };
  };

  let alice: Awaited<ReturnType<typeof signedInUser>>;
  let bob: Awaited<ReturnType<typeof signedInUser>>;

  const allTokens = () => db().selectFrom('tokens').selectAll().orderBy('id').execute();
  const tokenRow = (id: number) =>
    db().selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  const tokensOf = (userId: number) =>
    db().selectFrom('tokens').selectAll().where('user_id', '=', userId).execute();

  /** Inserts a token for a user directly (for list orderings and states the API cannot produce). */
  const insertToken = async (
    userId: number,
    values: {
      name: string;
      remain_quota?: number;
      unlimited_quota?: boolean;
      used_quota?: number;
      status?: number;
      expired_time?: number;
    },
  ): Promise<number> => {
    const key = generateTokenKey();
    const now = nowSeconds();
    await db()
      .insertInto('tokens')
      .values({
        user_id: userId,
        key,
        status: values.status ?? 1,
        name: values.name,
        created_time: now,
        accessed_time: now,
        expired_time: values.expired_time ?? -1,
        remain_quota: values.remain_quota ?? 0,
        unlimited_quota: values.unlimited_quota ?? false,
        used_quota: values.used_quota ?? 0,
        models: '',
        subnet: '',
      })
      .execute();
    const row = await db().selectFrom('tokens').select('id').where('key', '=', key).executeTakeFirstOrThrow();
    return row.id;
  };

  /** Creates a token through the API and answers its record. */
  const create = async (browser: ApiClient, body: Record<string, unknown>): Promise<Token> => {
    const response = await browser.post('/api/token/', body);
    expect(response.body.success, response.text).toBe(true);
    return response.body.data as Token;
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
    alice = await signedInUser('tka');
    bob = await signedInUser('tkb');
  });
  afterAll(() => test?.close());

  describe('logged out', () => {
    it('answers 401 on every route and writes nothing', async () => {
      const id = (await create(alice.browser, { name: 'guarded' })).id;
      const before = await allTokens();
      const anonymous = client();
      const responses = [
        await anonymous.get('/api/token/'),
        await anonymous.get('/api/token/?p=0&order=remain_quota'),
        await anonymous.get('/api/token/search?keyword=g'),
        await anonymous.get(`/api/token/${id}`),
        await anonymous.post('/api/token/', { name: 'intruder' }),
        await anonymous.put('/api/token/', { id, name: 'intruder' }),
        await anonymous.put('/api/token/?status_only=true', { id, status: 2 }),
        await anonymous.delete(`/api/token/${id}`),
      ];
      for (const response of responses) {
        expect(response.status).toBe(401);
        expect(response.body).toEqual(NOT_LOGGED_IN);
      }
      expect(await allTokens()).toEqual(before);
    });
  });

  describe('POST /api/token/', () => {
    it('creates an enabled token with a 48-character key and stores every field', async () => {
      const expiry = nowSeconds() + 3600;
      const started = nowSeconds();
      const token = await create(alice.browser, {
        name: 'alpha',
        remain_quota: 12345,
        unlimited_quota: false,
        expired_time: expiry,
        models: 'gpt-4o,gpt-4o-mini',
        subnet: '10.0.0.0/8, 192.168.1.0/24',
      });
      expect(token.key).toMatch(KEY);
      expect(token).toMatchObject({
        user_id: alice.id,
        status: 1,
        name: 'alpha',
        expired_time: expiry,
        remain_quota: 12345,
        unlimited_quota: false,
        used_quota: 0,
        models: 'gpt-4o,gpt-4o-mini',
        subnet: '10.0.0.0/8,192.168.1.0/24',
      });
      expect(token.created_time).toBeGreaterThanOrEqual(started);
      expect(token.created_time).toBeLessThanOrEqual(nowSeconds());
      expect(token.accessed_time).toBe(token.created_time);
      const row = await tokenRow(token.id);
      expect(row).toMatchObject({
        user_id: alice.id,
        key: token.key,
        status: 1,
        name: 'alpha',
        expired_time: expiry,
        remain_quota: 12345,
        used_quota: 0,
        models: 'gpt-4o,gpt-4o-mini',
        subnet: '10.0.0.0/8,192.168.1.0/24',
      });
      expect(isTrue(row?.unlimited_quota)).toBe(false);
    });

    it('fills the defaults and gives every token a different key', async () => {
      const first = await create(alice.browser, { name: 'defaults' });
      const second = await create(alice.browser, { name: 'defaults', unlimited_quota: true });
      expect(first).toMatchObject({
        name: 'defaults',
        status: 1,
        remain_quota: 0,
        unlimited_quota: false,
        expired_time: -1,
        models: '',
        subnet: '',
      });
      expect(second.unlimited_quota).toBe(true);
      expect(isTrue((await tokenRow(second.id))?.unlimited_quota)).toBe(true);
      expect(first.key).toMatch(KEY);
      expect(second.key).toMatch(KEY);
      expect(second.key).not.toBe(first.key);
      expect(second.id).toBeGreaterThan(first.id);
    });

    it('accepts a name of exactly 30 bytes and IPv6 ranges', async () => {
      const name = '一二三四五六七八九十'; // 10 × 3 bytes
      const token = await create(alice.browser, { name, subnet: '2001:db8::/32 ,127.0.0.1/32' });
      expect(token.name).toBe(name);
      expect(token.subnet).toBe('2001:db8::/32,127.0.0.1/32');
      expect((await tokenRow(token.id))?.name).toBe(name);
    });

    const refusals: [string, unknown, string | RegExp][] = [
      [
        'an address without a prefix',
        { name: 'n', subnet: '10.0.0.0' },
        /^invalid parameter: subnet: invalid subnet/,
      ],
      [
        'an octet over 255',
        { name: 'n', subnet: '300.1.1.1/8' },
        /^invalid parameter: subnet: invalid subnet/,
      ],
      ['a word', { name: 'n', subnet: 'abc' }, /^invalid parameter: subnet: invalid subnet/],
      ['a prefix over 32', { name: 'n', subnet: '10.0.0.0/33' }, /invalid subnet/],
      ['one bad range among good ones', { name: 'n', subnet: '10.0.0.0/8,abc' }, /invalid subnet/],
      [
        'subnets longer than the column (191 characters)',
        { name: 'n', subnet: Array.from({ length: 15 }, (_, index) => `10.${index}.100.0/24`).join(',') },
        /^invalid parameter: subnet: subnet is too long \(at most 191 characters\)/,
      ],
      [
        'an 11-character Chinese name (33 bytes)',
        { name: '一二三四五六七八九十一' },
        'invalid parameter: name: token name is too long (at most 30 bytes)',
      ],
      ['a 31-byte name', { name: 'x'.repeat(31) }, /token name is too long/],
      ['a missing name', { remain_quota: 5 }, /^invalid parameter: name/],
      ['an empty name', { name: '' }, 'invalid parameter: name: token name is required'],
      ['a blank name', { name: '   ' }, 'invalid parameter: name: token name is required'],
      ['a numeric name', { name: 42 }, /^invalid parameter: name/],
      ['a string remain_quota', { name: 'n', remain_quota: '100' }, /^invalid parameter: remain_quota/],
      ['a fractional remain_quota', { name: 'n', remain_quota: 1.5 }, /^invalid parameter: remain_quota/],
      [
        'a string unlimited_quota',
        { name: 'n', unlimited_quota: 'yes' },
        /^invalid parameter: unlimited_quota/,
      ],
      ['a zero expired_time', { name: 'n', expired_time: 0 }, /^invalid parameter: expired_time/],
      ['a string expired_time', { name: 'n', expired_time: 'tomorrow' }, /^invalid parameter: expired_time/],
      ['numeric models', { name: 'n', models: 7 }, /^invalid parameter: models/],
      ['a numeric subnet', { name: 'n', subnet: 7 }, /^invalid parameter: subnet/],
      ['an array body', [], /^invalid parameter/],
    ];
    for (const [label, body, message] of refusals) {
      it(`refuses ${label} and writes nothing`, async () => {
        const before = await allTokens();
        expectRefused(await alice.browser.post('/api/token/', body), message);
        expect(await allTokens()).toEqual(before);
      });
    }

    it('refuses a body that is not JSON and writes nothing', async () => {
      const before = await allTokens();
      const response = await alice.browser.post('/api/token/', '{"name":', { raw: true });
      expectRefused(response, 'invalid parameter: the body must be valid JSON');
      expect(await allTokens()).toEqual(before);
    });

    it('always creates the token for the caller, whatever user_id the body carries', async () => {
      const token = await create(bob.browser, { name: 'mine', user_id: alice.id });
      expect(token.user_id).toBe(bob.id);
      expect((await tokenRow(token.id))?.user_id).toBe(bob.id);
    });
  });

  describe('GET /api/token/ (list)', () => {
    let lister: Awaited<ReturnType<typeof signedInUser>>;
    const specs = [
      { remain_quota: 500, unlimited_quota: false, used_quota: 10 },
      { remain_quota: 100, unlimited_quota: true, used_quota: 50 },
      { remain_quota: 900, unlimited_quota: false, used_quota: 0 },
      { remain_quota: 0, unlimited_quota: true, used_quota: 999 },
      { remain_quota: 300, unlimited_quota: false, used_quota: 70 },
      { remain_quota: 50, unlimited_quota: false, used_quota: 80 },
      { remain_quota: 700, unlimited_quota: false, used_quota: 5 },
      { remain_quota: 200, unlimited_quota: true, used_quota: 1 },
      { remain_quota: 10, unlimited_quota: false, used_quota: 400 },
      { remain_quota: 800, unlimited_quota: false, used_quota: 3 },
      { remain_quota: 600, unlimited_quota: false, used_quota: 60 },
      { remain_quota: 400, unlimited_quota: false, used_quota: 90 },
    ];
    let ids: number[] = [];

    beforeAll(async () => {
      lister = await signedInUser('tkl');
      ids = [];
      for (const [index, spec] of specs.entries())
        ids.push(await insertToken(lister.id, { name: `list-${index}`, ...spec }));
      // Another user's tokens never show up in the list.
      await insertToken(bob.id, { name: 'list-bob', unlimited_quota: true, remain_quota: 10 ** 9 });
    });

    const page = async (query: string): Promise<Token[]> => {
      const response = await lister.browser.get(`/api/token/${query}`);
      expect(response.body.success, response.text).toBe(true);
      return response.body.data as Token[];
    };

    const withIds = () => specs.map((spec, index) => ({ ...spec, id: ids[index]! }));

    it('lists only the caller’s tokens, 10 per page from p=0, newest first', async () => {
      const expected = [...ids].sort((a, b) => b - a);
      const first = await page('?p=0');
      expect(first.map((token) => token.id)).toEqual(expected.slice(0, 10));
      expect((await page('')).map((token) => token.id)).toEqual(expected.slice(0, 10));
      expect((await page('?p=1')).map((token) => token.id)).toEqual(expected.slice(10));
      expect(await page('?p=2')).toEqual([]);
      // A negative or unreadable page is page 0.
      expect((await page('?p=-3')).map((token) => token.id)).toEqual(expected.slice(0, 10));
      expect((await page('?p=abc')).map((token) => token.id)).toEqual(expected.slice(0, 10));
      for (const token of first) {
        expect(token.user_id).toBe(lister.id);
        expect(token.key).toMatch(KEY);
      }
    });

    it('orders by remain_quota with the unlimited tokens first', async () => {
      const expected = withIds()
        .sort(
          (a, b) =>
            Number(b.unlimited_quota) - Number(a.unlimited_quota) ||
            b.remain_quota - a.remain_quota ||
            b.id - a.id,
        )
        .map((token) => token.id);
      const rows = [...(await page('?order=remain_quota')), ...(await page('?order=remain_quota&p=1'))];
      expect(rows.map((token) => token.id)).toEqual(expected);
      expect(rows.slice(0, 3).every((token) => token.unlimited_quota)).toBe(true);
      expect(rows.slice(3).some((token) => token.unlimited_quota)).toBe(false);
      expect(rows[0]!.remain_quota).toBe(200);
    });

    it('orders by used_quota, highest first', async () => {
      const expected = withIds()
        .sort((a, b) => b.used_quota - a.used_quota || b.id - a.id)
        .map((token) => token.id);
      const rows = await page('?order=used_quota');
      expect(rows.map((token) => token.id)).toEqual(expected.slice(0, 10));
      expect(rows[0]!.used_quota).toBe(999);
    });

    it('falls back to newest first for an unknown order', async () => {
      const expected = [...ids].sort((a, b) => b - a).slice(0, 10);
      expect((await page('?order=key')).map((token) => token.id)).toEqual(expected);
    });

    it('never shows another user’s tokens', async () => {
      const bobKeys = (await tokensOf(bob.id)).map((row) => row.key);
      expect(bobKeys.length).toBeGreaterThan(0);
      const response = await lister.browser.get('/api/token/?order=remain_quota');
      for (const key of bobKeys) expect(response.text).not.toContain(key);
    });
  });

  describe('GET /api/token/search', () => {
    let searcher: Awaited<ReturnType<typeof signedInUser>>;
    const ids = new Map<string, number>();

    beforeAll(async () => {
      searcher = await signedInUser('tks');
      for (const name of ['proj_a', 'projXa', '100%', '100x', 'pro', 'other'])
        ids.set(name, await insertToken(searcher.id, { name }));
      await insertToken(bob.id, { name: 'proj_bob' });
    });

    const search = async (browser: ApiClient, keyword: string): Promise<string[]> => {
      const response = await browser.get(`/api/token/search?keyword=${encodeURIComponent(keyword)}`);
      expect(response.body.success, response.text).toBe(true);
      return (response.body.data as Token[]).map((token) => token.name);
    };

    it('matches a name prefix among the caller’s own tokens, newest first', async () => {
      expect(await search(searcher.browser, 'pro')).toEqual(['pro', 'projXa', 'proj_a']);
      expect(await search(searcher.browser, 'oth')).toEqual(['other']);
      expect(await search(searcher.browser, 'ther')).toEqual([]);
    });

    it('takes % and _ literally', async () => {
      expect(await search(searcher.browser, 'proj_')).toEqual(['proj_a']);
      expect(await search(searcher.browser, '100%')).toEqual(['100%']);
      expect(await search(searcher.browser, '%')).toEqual([]);
      expect(await search(searcher.browser, '_')).toEqual([]);
      expect(await search(searcher.browser, "pro'")).toEqual([]);
    });

    it('never finds another user’s tokens', async () => {
      expect(await search(bob.browser, 'proj')).toEqual(['proj_bob']);
      expect(await search(searcher.browser, 'proj_b')).toEqual([]);
      const response = await bob.browser.get('/api/token/search?keyword=');
      for (const row of await tokensOf(searcher.id)) expect(response.text).not.toContain(row.key);
    });
  });

  describe('GET /api/token/:id', () => {
    it('answers the caller’s own token', async () => {
      const token = await create(alice.browser, { name: 'readable', remain_quota: 77 });
      const response = await alice.browser.get(`/api/token/${token.id}`);
      expect(response.body).toEqual({ success: true, message: '', data: token });
    });

    it('answers "token does not exist" for another user’s token and for an unknown id', async () => {
      const token = await create(alice.browser, { name: 'private' });
      const stolen = await bob.browser.get(`/api/token/${token.id}`);
      expect(stolen.body).toEqual(NO_TOKEN);
      expect(stolen.text).not.toContain(token.key);
      expect((await alice.browser.get('/api/token/99999999')).body).toEqual(NO_TOKEN);
    });

    it('refuses an id that is not a positive whole number', async () => {
      for (const id of ['abc', '0', '-1', '1.5'])
        expectRefused(
          await alice.browser.get(`/api/token/${id}`),
          'invalid parameter: id must be a positive whole number',
        );
    });
  });

  describe('PUT /api/token/ (full update)', () => {
    it('overwrites every field but the status', async () => {
      const token = await create(alice.browser, {
        name: 'editable',
        remain_quota: 10,
        models: 'gpt-4o',
        subnet: '10.0.0.0/8',
      });
      const disabled = await alice.browser.put('/api/token/?status_only=true', { id: token.id, status: 2 });
      expect(disabled.body.success).toBe(true);
      const expiry = nowSeconds() + 7200;
      const response = await alice.browser.put('/api/token/', {
        ...token,
        status: 1,
        name: 'edited',
        remain_quota: 0,
        unlimited_quota: true,
        expired_time: expiry,
        models: '',
        subnet: ' 172.16.0.0/12 ',
      });
      expect(response.body.success, response.text).toBe(true);
      const expected = {
        ...token,
        status: 2,
        name: 'edited',
        remain_quota: 0,
        unlimited_quota: true,
        expired_time: expiry,
        models: '',
        subnet: '172.16.0.0/12',
      };
      expect(response.body.data).toEqual(expected);
      const row = await tokenRow(token.id);
      expect(row).toMatchObject({
        key: token.key,
        status: 2,
        name: 'edited',
        remain_quota: 0,
        expired_time: expiry,
        models: '',
        subnet: '172.16.0.0/12',
        used_quota: 0,
        user_id: alice.id,
      });
      expect(isTrue(row?.unlimited_quota)).toBe(true);
    });

    it('does not re-enable an expired token when its expiry moves to the future', async () => {
      const id = await insertToken(alice.id, { name: 'lapsed', status: 3, expired_time: nowSeconds() - 60 });
      const response = await alice.browser.put('/api/token/', {
        id,
        name: 'lapsed',
        expired_time: -1,
        remain_quota: 5,
      });
      expect(response.body.success, response.text).toBe(true);
      expect((await tokenRow(id))?.status).toBe(3);
      const enable = await alice.browser.put('/api/token/?status_only=true', { id, status: 1 });
      expect(enable.body.success, enable.text).toBe(true);
      expect((await tokenRow(id))?.status).toBe(1);
    });

    it('refuses bad input and writes nothing', async () => {
      const token = await create(alice.browser, { name: 'stable', remain_quota: 3 });
      const bodies: [unknown, RegExp][] = [
        [{ ...token, name: '一二三四五六七八九十一' }, /token name is too long/],
        [{ ...token, name: '' }, /token name is required/],
        [{ ...token, subnet: '10.0.0.0' }, /invalid subnet/],
        [{ ...token, subnet: '300.1.1.1/8' }, /invalid subnet/],
        [{ ...token, remain_quota: 'lots' }, /^invalid parameter: remain_quota/],
        [{ ...token, unlimited_quota: 1 }, /^invalid parameter: unlimited_quota/],
        [{ ...token, id: undefined }, /^invalid parameter: id/],
        [{ ...token, id: String(token.id) }, /^invalid parameter: id/],
      ];
      const before = await allTokens();
      for (const [body, message] of bodies)
        expectRefused(await alice.browser.put('/api/token/', body), message);
      expectRefused(await alice.browser.put('/api/token/', 'nope', { raw: true }), /must be valid JSON/);
      expectRefused(
        await alice.browser.put('/api/token/', { ...token, id: 99999999 }),
        'token does not exist',
      );
      expect(await allTokens()).toEqual(before);
    });
  });

  describe('PUT /api/token/?status_only=true', () => {
    const setStatus = (browser: ApiClient, id: number, status: unknown) =>
      browser.put('/api/token/?status_only=true', { id, status });

    it('disables and enables a token, answering the updated record', async () => {
      const token = await create(alice.browser, { name: 'toggle', remain_quota: 10 });
      const off = await setStatus(alice.browser, token.id, 2);
      expect(off.body).toEqual({ success: true, message: '', data: { ...token, status: 2 } });
      expect((await tokenRow(token.id))?.status).toBe(2);
      const on = await setStatus(alice.browser, token.id, 1);
      expect(on.body).toEqual({ success: true, message: '', data: { ...token, status: 1 } });
      expect((await tokenRow(token.id))?.status).toBe(1);
    });

    it('changes only the status even when the body carries other fields', async () => {
      const token = await create(alice.browser, { name: 'onlystatus', remain_quota: 10 });
      const response = await alice.browser.put('/api/token/?status_only=true', {
        ...token,
        name: 'renamed',
        remain_quota: 999,
        status: 2,
      });
      expect(response.body.success).toBe(true);
      expect(await tokenRow(token.id)).toMatchObject({ name: 'onlystatus', remain_quota: 10, status: 2 });
    });

    it('refuses to enable an expired token and leaves it disabled', async () => {
      const id = await insertToken(alice.id, {
        name: 'expired',
        status: 3,
        remain_quota: 100,
        expired_time: nowSeconds() - 1,
      });
      const before = await allTokens();
      expectRefused(await setStatus(alice.browser, id, 1), TOKEN_EXPIRED_MESSAGE);
      expect(await allTokens()).toEqual(before);
      // Disabling an expired token is allowed.
      expect((await setStatus(alice.browser, id, 2)).body.success).toBe(true);
      expectRefused(await setStatus(alice.browser, id, 1), TOKEN_EXPIRED_MESSAGE);
      expect((await tokenRow(id))?.status).toBe(2);
    });

    it('refuses to enable a used-up token unless it is unlimited', async () => {
      const exhausted = await insertToken(alice.id, { name: 'empty', status: 4, remain_quota: 0 });
      const negative = await insertToken(alice.id, { name: 'negative', status: 4, remain_quota: -1 });
      const before = await allTokens();
      expectRefused(await setStatus(alice.browser, exhausted, 1), TOKEN_EXHAUSTED_MESSAGE);
      expectRefused(await setStatus(alice.browser, negative, 1), TOKEN_EXHAUSTED_MESSAGE);
      expect(await allTokens()).toEqual(before);
      const unlimited = await insertToken(alice.id, {
        name: 'unlimited',
        status: 2,
        remain_quota: 0,
        unlimited_quota: true,
      });
      expect((await setStatus(alice.browser, unlimited, 1)).body.success).toBe(true);
      expect((await tokenRow(unlimited))?.status).toBe(1);
      const future = await insertToken(alice.id, {
        name: 'future',
        status: 2,
        remain_quota: 1,
        expired_time: nowSeconds() + 3600,
      });
      expect((await setStatus(alice.browser, future, 1)).body.success).toBe(true);
    });

    it('accepts only status 1 or 2 and writes nothing otherwise', async () => {
      const token = await create(alice.browser, { name: 'statuses', remain_quota: 1 });
      const before = await allTokens();
      for (const status of [0, 3, 4, '1', null, undefined])
        expectRefused(
          await setStatus(alice.browser, token.id, status),
          'invalid parameter: status: status must be 1 (enabled) or 2 (disabled)',
        );
      expectRefused(
        await alice.browser.put('/api/token/?status_only=true', { status: 2 }),
        /^invalid parameter: id/,
      );
      expectRefused(await setStatus(alice.browser, 99999999, 2), 'token does not exist');
      expect(await allTokens()).toEqual(before);
    });
  });

  describe('DELETE /api/token/:id', () => {
    it('deletes the caller’s own token', async () => {
      const token = await create(alice.browser, { name: 'doomed' });
      const response = await alice.browser.delete(`/api/token/${token.id}`);
      expect(response.body).toEqual({ success: true, message: '' });
      expect(await tokenRow(token.id)).toBeUndefined();
      expect((await alice.browser.get(`/api/token/${token.id}`)).body).toEqual(NO_TOKEN);
      expect((await alice.browser.delete(`/api/token/${token.id}`)).body).toEqual(NO_TOKEN);
    });

    it('refuses another user’s token and an unknown id, deleting nothing', async () => {
      const token = await create(alice.browser, { name: 'survivor' });
      const before = await allTokens();
      expect((await bob.browser.delete(`/api/token/${token.id}`)).body).toEqual(NO_TOKEN);
      expect((await bob.browser.delete('/api/token/99999999')).body).toEqual(NO_TOKEN);
      expectRefused(await bob.browser.delete('/api/token/abc'), /^invalid parameter: id/);
      expect(await allTokens()).toEqual(before);
      expect(await tokenRow(token.id)).toBeDefined();
    });
  });

  describe('ownership', () => {
    it('never lets another user read, change, toggle or delete a token', async () => {
      const token = await create(alice.browser, {
        name: 'alice-only',
        remain_quota: 100,
        subnet: '10.0.0.0/8',
      });
      const disabled = await insertToken(alice.id, { name: 'alice-off', status: 2, remain_quota: 5 });
      const aliceIds = (await tokensOf(alice.id)).map((row) => row.id);
      expect(aliceIds).toContain(token.id);
      const before = await allTokens();
      for (const id of aliceIds) {
        const read = await bob.browser.get(`/api/token/${id}`);
        expect(read.body).toEqual(NO_TOKEN);
        const update = await bob.browser.put('/api/token/', {
          id,
          name: 'hijacked',
          remain_quota: 10 ** 9,
          unlimited_quota: true,
        });
        expect(update.body).toEqual(NO_TOKEN);
        for (const status of [1, 2])
          expect((await bob.browser.put('/api/token/?status_only=true', { id, status })).body).toEqual(
            NO_TOKEN,
          );
        expect((await bob.browser.delete(`/api/token/${id}`)).body).toEqual(NO_TOKEN);
      }
      expect(await allTokens()).toEqual(before);
      expect((await tokenRow(disabled))?.status).toBe(2);
      const listed = await bob.browser.get('/api/token/?order=remain_quota');
      const searched = await bob.browser.get('/api/token/search?keyword=alice');
      expect(searched.body.data).toEqual([]);
      for (const row of await tokensOf(alice.id)) {
        expect(listed.text).not.toContain(row.key);
        expect(searched.text).not.toContain(row.key);
      }
    });
  });
});
