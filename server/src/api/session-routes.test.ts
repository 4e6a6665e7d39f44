import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

describe.each(testDialects())('sessions and the role gate on %s', (dialect) => {
  let test: TestSluice;
  beforeAll(async () => {
    test = await startTestSluice(dialect);
  });
  afterAll(() => test?.close());

  it('answers 401 with no session and no access token', async () => {
    const response = await apiClient(test.sluice.app).get('/api/user/self');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      success: false,
      message: 'no permission: not logged in and no access token',
    });
  });

  it('logs root in with the default password and keeps the session in an HttpOnly cookie', async () => {
    const browser = apiClient(test.sluice.app);
    const login = await browser.login('root', '123456');
    expect(login.body.data).toMatchObject({
      id: 1,
      username: 'root',
      role: 100,
      status: 1,
      access_token: '',
    });
    const cookie = login.headers.getSetCookie().join('\n');
    expect(cookie).toMatch(/^session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const self = await browser.get('/api/user/self');
    expect(self.body.data).toMatchObject({
      username: 'root',
      quota: 500000000000000,
      group: 'default',
      password: '',
    });
  });

  it('revokes the session on logout, even for a copy of the cookie', async () => {
    const browser = apiClient(test.sluice.app);
    await browser.login('root', '123456');
    const stolen = new Map(browser.cookies);
    await browser.get('/api/user/logout');
    const thief = apiClient(test.sluice.app);
    for (const [name, value] of stolen) thief.cookies.set(name, value);
    const response = await thief.get('/api/user/self');
    expect(response.status).toBe(401);
  });

  it('refuses a tampered cookie', async () => {
    const browser = apiClient(test.sluice.app);
    await browser.login('root', '123456');
    const value = browser.cookies.get('session') ?? '';
    browser.cookies.set(
      'session',
      value.replace(/^./, (char) => (char === 'A' ? 'B' : 'A')),
    );
    expect((await browser.get('/api/user/self')).status).toBe(401);
  });

  it('accepts the access token with or without Bearer, and refuses an unknown one with 200', async () => {
    const browser = apiClient(test.sluice.app);
    await browser.login('root', '123456');
    const token = (await browser.get('/api/user/token')).body.data as string;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const api = apiClient(test.sluice.app);
    expect((await api.get('/api/user/self', { headers: { authorization: token } })).body.data).toMatchObject({
      username: 'root',
    });
    expect(
      (await api.get('/api/user/self', { headers: { authorization: `Bearer ${token}` } })).body.success,
    ).toBe(true);
    const unknown = await api.get('/api/user/self', { headers: { authorization: 'Bearer nope' } });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ success: false, message: 'no permission: the access token is invalid' });
  });

  it('refuses a wrong password and a missing field without a session', async () => {
    const browser = apiClient(test.sluice.app);
    const wrong = await browser.post('/api/user/login', { username: 'root', password: 'wrong-password' });
    expect(wrong.body).toEqual({
      success: false,
      message: 'username or password is wrong, or the user is banned',
    });
    expect(browser.cookies.size).toBe(0);
    const missing = await browser.post('/api/user/login', { username: 'root' });
    expect(missing.body.success).toBe(false);
    expect(missing.body.message).toMatch(/^invalid parameter: password/);
    const notJson = await browser.post('/api/user/login', '{oops', { raw: true });
    expect(notJson.body).toEqual({
      success: false,
      message: 'invalid parameter: the body must be valid JSON',
    });
  });

  it('stamps every response with X-Oneapi-Request-Id', async () => {
    const response = await apiClient(test.sluice.app).get('/api/status');
    expect(response.headers.get('x-oneapi-request-id')).toMatch(/^\d{31}$/);
  });
});
