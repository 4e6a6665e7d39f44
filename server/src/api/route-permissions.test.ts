import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { NOT_LOGGED_IN } from './middleware/auth.js';

type Level = 'public' | 'user' | 'admin' | 'root';

/**
 * Who may call each /api route. Every route the app registers must be listed here: a new route
 * without a row fails this suite, so no route ships without its permission test.
 */
const ROUTES: Readonly<Record<string, Level>> = {
  'GET /api/status': 'public',
  'GET /api/notice': 'public',
  'GET /api/about': 'public',
  'GET /api/home_page_content': 'public',
  'POST /api/user/login': 'public',
  'POST /api/user/register': 'public',
  'GET /api/user/logout': 'public',
  'GET /api/verification': 'public',
  'GET /api/reset_password': 'public',
  'POST /api/user/reset': 'public',
  'GET /api/oauth/state': 'public',
  'GET /api/oauth/github': 'public',
  'GET /api/oauth/lark': 'public',
  'GET /api/oauth/wechat': 'public',
  'POST /api/user/login/2fa': 'public',
  'GET /api/oauth/oidc/authorize': 'public',
  'GET /api/oauth/oidc': 'public',
  'POST /api/user/passkey/login/options': 'public',
  'POST /api/user/passkey/login': 'public',
  'GET /api/models': 'user',
  'GET /api/user/self': 'user',
  'PUT /api/user/self': 'user',
  'DELETE /api/user/self': 'user',
  'GET /api/user/token': 'user',
  'GET /api/user/aff': 'user',
  'GET /api/user/available_models': 'user',
  // With PricingPublic on, visitors too (pricing-routes.test.ts checks both).
  'GET /api/pricing': 'user',
  'GET /api/user/dashboard': 'user',
  'GET /api/user/dashboard/live': 'user',
  'GET /api/dashboard/live': 'admin',
  'POST /api/user/topup': 'user',
  'GET /api/oauth/wechat/bind': 'user',
  'GET /api/oauth/email/bind': 'user',
  'DELETE /api/oauth/oidc/bind': 'user',
  'GET /api/token': 'user',
  'GET /api/token/search': 'user',
  'GET /api/token/:id': 'user',
  'POST /api/token': 'user',
  'PUT /api/token': 'user',
  'DELETE /api/token/:id': 'user',
  'GET /api/log/self': 'user',
  'GET /api/log/self/search': 'user',
  'GET /api/log/self/stat': 'user',
  'GET /api/log/self/export': 'user',
  'GET /api/log/self/usage': 'user',
  'GET /api/user': 'admin',
  'GET /api/user/search': 'admin',
  'GET /api/user/:id': 'admin',
  'POST /api/user': 'admin',
  'PUT /api/user': 'admin',
  'POST /api/user/manage': 'admin',
  'DELETE /api/user/:id': 'admin',
  'POST /api/topup': 'admin',
  'GET /api/group': 'admin',
  'GET /api/channel': 'admin',
  'GET /api/channel/search': 'admin',
  'GET /api/channel/served_models': 'admin',
  'GET /api/channel/models': 'admin',
  'GET /api/channel/:id': 'admin',
  'POST /api/channel': 'admin',
  'PUT /api/channel': 'admin',
  'DELETE /api/channel/:id': 'admin',
  'DELETE /api/channel/disabled': 'admin',
  'GET /api/channel/test': 'admin',
  'GET /api/channel/test/status': 'admin',
  'GET /api/channel/test/:id': 'admin',
  'GET /api/channel/:id/keys': 'admin',
  'POST /api/channel/:id/keys/enable': 'admin',
  'GET /api/channel/update_balance': 'admin',
  'GET /api/channel/update_balance/:id': 'admin',
  'GET /api/redemption': 'admin',
  'GET /api/redemption/search': 'admin',
  'GET /api/redemption/:id': 'admin',
  'POST /api/redemption': 'admin',
  'PUT /api/redemption': 'admin',
  'DELETE /api/redemption/:id': 'admin',
  'GET /api/log': 'admin',
  'DELETE /api/log': 'admin',
  'GET /api/log/search': 'admin',
  'GET /api/log/stat': 'admin',
  'GET /api/log/export': 'admin',
  'GET /api/log/usage': 'admin',
  // Administrators read and change their options only (option-roles.test.ts checks which).
  'GET /api/option': 'admin',
  'PUT /api/option': 'admin',
  'GET /api/option/defaults': 'admin',
  'PUT /api/option/batch': 'admin',
  'GET /api/user/2fa': 'user',
  'POST /api/user/2fa/totp/setup': 'user',
  'POST /api/user/2fa/totp/enable': 'user',
  'POST /api/user/2fa/totp/disable': 'user',
  'POST /api/user/2fa/recovery_codes': 'user',
  'GET /api/user/passkey': 'user',
  'POST /api/user/passkey/register/options': 'user',
  'POST /api/user/passkey/register': 'user',
  'PUT /api/user/passkey/:id': 'user',
  'DELETE /api/user/passkey/:id': 'user',
  'DELETE /api/user/:id/2fa': 'admin',
  'GET /api/audit': 'admin',
  'GET /api/audit/export': 'admin',
  'GET /api/alert/webhooks': 'admin',
  'GET /api/alert/deliveries': 'admin',
  'POST /api/alert/test': 'admin',
};

const RANK: Record<Level, number> = { public: 0, user: 1, admin: 10, root: 100 };

describe('every /api route refuses callers without its role', () => {
  let test: TestSluice;
  let common: ApiClient;
  let admin: ApiClient;
  const registered = new Set<string>();

  beforeAll(async () => {
    test = await startTestSluice('sqlite');
    const password = await hashPassword('password123');
    for (const [username, role] of [
      ['commonuser', 1],
      ['adminuser', 10],
    ] as const)
      await test.sluice.database.db
        .insertInto('users')
        .values({
          username,
          password,
          display_name: username,
          role,
          status: 1,
          quota: 0,
          used_quota: 0,
          request_count: 0,
          group: 'default',
        })
        .execute();
    common = apiClient(test.sluice.app);
    await common.login('commonuser', 'password123');
    admin = apiClient(test.sluice.app);
    await admin.login('adminuser', 'password123');
    // ALL is what middleware (`use`) registers; /api has no handler for every method.
    for (const route of test.sluice.app.routes)
      if (route.path.startsWith('/api/') && route.method !== 'ALL')
        registered.add(`${route.method} ${route.path}`);
  });
  afterAll(() => test?.close());

  it('classifies every registered route', () => {
    expect([...registered].filter((route) => !(route in ROUTES))).toEqual([]);
    expect(Object.keys(ROUTES).filter((route) => !registered.has(route))).toEqual([]);
  });

  const call = (client: ApiClient, route: string) => {
    const [method = 'GET', path = ''] = route.split(' ');
    const concrete = path.replaceAll(':id', '1');
    return method === 'GET' || method === 'DELETE'
      ? client.request(method, concrete)
      : client.request(method, concrete, {});
  };

  it.each(Object.entries(ROUTES).filter(([, level]) => level !== 'public'))(
    '%s: 401 without a session or access token',
    async (route) => {
      const response = await call(apiClient(test.sluice.app), route);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    },
  );

  it.each(Object.entries(ROUTES).filter(([, level]) => RANK[level] > RANK.user))(
    '%s: refused to a common user',
    async (route) => {
      const response = await call(common, route);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: 'no permission: insufficient role' });
    },
  );

  it.each(Object.entries(ROUTES).filter(([, level]) => level === 'root'))(
    '%s: refused to an admin',
    async (route) => {
      const response = await call(admin, route);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: 'no permission: insufficient role' });
    },
  );

  /** Routes that would end the caller's account or session are checked for refusal only. */
  const DESTRUCTIVE = new Set(['DELETE /api/user/self']);

  it.each(
    Object.entries(ROUTES).filter(
      ([route, level]) => (level === 'user' || level === 'admin') && !DESTRUCTIVE.has(route),
    ),
  )('%s: let through to its own role', async (route, level) => {
    const response = await call(level === 'admin' ? admin : common, route);
    expect(response.status).not.toBe(401);
    expect(response.body.message).not.toBe('no permission: insufficient role');
  });
});
