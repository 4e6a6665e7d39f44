import type { AuditRow } from '@sluice/contract/schemas/audit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OIDC_ALREADY_BOUND, OIDC_DOMAIN_REFUSED, OIDC_OFF } from '../services/oidc-service.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { startOidcProviderDouble, type OidcProviderDouble } from '../test-support/oidc-provider-double.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { STATE_MISMATCH } from './oauth-routes.js';

const SERVER = 'https://gateway.example.com';

describe.each(testDialects())('OpenID Connect sign-in against a real provider on %s', (dialect) => {
  let test: TestSluice;
  let provider: OidcProviderDouble;
  let root: ApiClient;
  const db = () => test.sluice.database.db;
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await test.sluice.services.options.update(key, value);
  };
  const userBySubject = (subject: string) =>
    db().selectFrom('users').selectAll().where('oidc_id', '=', subject).execute();

  /** Starts at Sluice, signs in at the provider, and answers the callback's address as the console calls it. */
  const begin = async (browser: ApiClient, subject: string) => {
    const started = await browser.get('/api/oauth/oidc/authorize');
    expect(started.body.success, started.text).toBe(true);
    const back = new URL(await provider.signIn(started.body.data as string, subject));
    expect(`${back.origin}${back.pathname}`).toBe(`${SERVER}/oauth/oidc`);
    return { authorization: new URL(started.body.data as string), callback: `/api/oauth/oidc${back.search}` };
  };

  beforeAll(async () => {
    provider = await startOidcProviderDouble([`${SERVER}/oauth/oidc`]);
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    provider.people.set('sub-alice', {
      email: 'alice@corp.example',
      email_verified: true,
      preferred_username: 'alice',
      name: 'Alice Liddell',
      groups: ['staff', 'ml-team'],
    });
    provider.people.set('sub-mallory', { email: 'mallory@evil.example', preferred_username: 'mallory' });
    provider.people.set('sub-long', {
      email: 'bob@corp.example',
      preferred_username: 'a-name-longer-than-twelve',
    });
  });
  afterAll(async () => {
    await test?.close();
    await provider?.close();
  });
  beforeEach(() =>
    setOptions({
      ServerAddress: SERVER,
      OidcWellKnown: `${provider.issuer}/.well-known/openid-configuration`,
      OidcClientId: provider.clientId,
      OidcClientSecret: provider.clientSecret,
      OidcEnabled: 'true',
      OidcAllowedDomains: 'corp.example',
      OidcGroupClaim: 'groups',
      OidcGroupMapping: JSON.stringify({ 'ml-team': 'vip' }),
      OidcRegisterEnabled: 'true',
    }),
  );

  it('asks with PKCE, state, nonce and the scopes, and says it is on in the status', async () => {
    const browser = apiClient(test.sluice.app);
    const { authorization } = await begin(browser, 'sub-alice');
    expect(authorization.origin).toBe(provider.issuer);
    const params = Object.fromEntries(authorization.searchParams);
    expect(params).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: `${SERVER}/oauth/oidc`,
      response_type: 'code',
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    for (const key of ['state', 'nonce', 'code_challenge']) expect(params[key]?.length).toBeGreaterThan(20);
    const status = (await apiClient(test.sluice.app).get('/api/status')).body.data;
    expect(status).toMatchObject({ oidc: true, oidc_client_id: provider.clientId });
    const options = await root.get('/api/option/');
    expect(options.text).not.toContain(provider.clientSecret);
    expect(JSON.stringify(status)).not.toContain(provider.clientSecret);
  });

  it('creates the user with the mapped group on the first sign-in, and signs the same user in again', async () => {
    const first = apiClient(test.sluice.app);
    const { callback } = await begin(first, 'sub-alice');
    const created = await first.get(callback);
    expect(created.body.data).toMatchObject({ username: 'alice', display_name: 'Alice Liddell' });
    const [user] = await userBySubject('sub-alice');
    expect(user).toMatchObject({ username: 'alice', group: 'vip', email: 'alice@corp.example' });
    expect((await first.get('/api/user/self')).body.data).toMatchObject({
      username: 'alice',
      oidc_id: 'sub-alice',
    });

    const second = apiClient(test.sluice.app);
    const again = await begin(second, 'sub-alice');
    expect((await second.get(again.callback)).body.data).toMatchObject({ id: user?.id, username: 'alice' });
    expect(await userBySubject('sub-alice')).toHaveLength(1);
    const rows = (await root.get('/api/audit/?object_type=session&username=alice')).body.data as AuditRow[];
    expect(rows.map((row) => [row.action, row.detail])).toEqual([
      ['sign_in', 'oidc'],
      ['sign_in', 'oidc'],
    ]);
  });

  it('names a user whose claimed name does not fit oidc_<n>', async () => {
    const browser = apiClient(test.sluice.app);
    const { callback } = await begin(browser, 'sub-long');
    expect((await browser.get(callback)).body.data).toMatchObject({
      username: expect.stringMatching(/^oidc_\d+$/),
    });
    expect((await userBySubject('sub-long'))[0]).toMatchObject({ group: 'default' });
  });

  it('refuses a wrong state, a replayed callback and a wrong nonce', async () => {
    const browser = apiClient(test.sluice.app);
    const { callback } = await begin(browser, 'sub-alice');
    const forged = callback.replace(/state=[^&]+/, 'state=forged-state');
    expect((await browser.get(forged)).body).toEqual(STATE_MISMATCH);
    expect((await browser.get(callback)).body.success).toBe(true);
    expect((await browser.get(callback)).body).toEqual(STATE_MISMATCH);

    const other = apiClient(test.sluice.app);
    const flow = await begin(other, 'sub-alice');
    const state = flow.authorization.searchParams.get('state') ?? '';
    const row = await db()
      .selectFrom('sluice_sessions')
      .select(['id', 'data'])
      .where('data', 'like', `%${state}%`)
      .executeTakeFirstOrThrow();
    const data = JSON.parse(row.data) as Record<string, unknown>;
    await db()
      .updateTable('sluice_sessions')
      .set({ data: JSON.stringify({ ...data, oidc_nonce: 'not-the-nonce-sent' }) })
      .where('id', '=', row.id)
      .execute();
    const refused = await other.get(flow.callback);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toMatch(/nonce/);
    expect((await other.get('/api/user/self')).status).toBe(401);
  });

  it('refuses an address outside the allowed domains, and a provider turned off', async () => {
    const browser = apiClient(test.sluice.app);
    const { callback } = await begin(browser, 'sub-mallory');
    expect((await browser.get(callback)).body).toEqual({ success: false, message: OIDC_DOMAIN_REFUSED });
    expect(await userBySubject('sub-mallory')).toHaveLength(0);
    const [failure] = (await root.get('/api/audit/?action=sign_in_failed')).body.data as AuditRow[];
    expect(failure?.detail).toBe(`oidc: ${OIDC_DOMAIN_REFUSED}`);
    await setOptions({ OidcEnabled: 'false' });
    expect((await browser.get('/api/oauth/oidc/authorize')).body).toEqual({
      success: false,
      message: OIDC_OFF,
    });
  });

  it('binds the account to a signed-in user, refuses it to another, and unbinds it', async () => {
    provider.people.set('sub-carol', { email: 'carol@corp.example', preferred_username: 'carol' });
    const carol = await signInNewUser(test, 'carolpw');
    const flow = await begin(carol.client, 'sub-carol');
    expect((await carol.client.get(flow.callback)).body).toEqual({ success: true, message: 'bind' });
    expect((await userBySubject('sub-carol'))[0]?.username).toBe('carolpw');

    const dave = await signInNewUser(test, 'davepw');
    const taken = await begin(dave.client, 'sub-carol');
    expect((await dave.client.get(taken.callback)).body).toEqual({
      success: false,
      message: OIDC_ALREADY_BOUND,
    });

    expect((await carol.client.delete('/api/oauth/oidc/bind')).body.success).toBe(true);
    expect(await userBySubject('sub-carol')).toHaveLength(0);
    const signedOut = apiClient(test.sluice.app);
    await setOptions({ OidcRegisterEnabled: 'false' });
    const fresh = await begin(signedOut, 'sub-carol');
    expect((await signedOut.get(fresh.callback)).body.message).toBe(
      'the administrator has closed new-user registration',
    );
  });

  it('refuses a group mapping that is not an object of group names', async () => {
    expect((await root.put('/api/option/', { key: 'OidcGroupMapping', value: '["vip"]' })).body.success).toBe(
      false,
    );
    expect(
      (await root.put('/api/option/', { key: 'OidcGroupMapping', value: '{"a": 3}' })).body.success,
    ).toBe(false);
  });
});
