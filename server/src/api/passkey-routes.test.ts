import type { AuditRow } from '@sluice/contract/schemas/audit';
import type { Passkey } from '@sluice/contract/schemas/passkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSKEY_MISSING, PASSKEY_UNKNOWN } from '../services/passkey-service.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import {
  FIXTURE_PASSWORD,
  signInNewUser,
  signInRoot,
  type SignedInUser,
} from '../test-support/log-fixtures.js';
import {
  createSoftwareAuthenticator,
  type SoftwareAuthenticator,
} from '../test-support/software-authenticator.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { TWO_FACTOR_REQUIRED } from './middleware/auth.js';
import { PASSKEY_CHALLENGE_EXPIRED, PASSKEY_OTHER_USER } from './passkey-routes.js';

const ORIGIN = 'https://gateway.example.com';
const RP_ID = 'gateway.example.com';

describe.each(testDialects())('passkeys (WebAuthn) on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  beforeAll(async () => {
    test = await startTestSluice(dialect);
    await test.sluice.services.options.update('ServerAddress', `${ORIGIN}/`);
    root = await signInRoot(test);
  });
  afterAll(() => test?.close());

  const options = async (client: ApiClient, path: string) => {
    const answer = await client.post(path);
    expect(answer.body.success, answer.text).toBe(true);
    return answer.body.data as {
      challenge: string;
      rp?: { id: string };
      rpId?: string;
      allowCredentials?: { id: string }[];
    };
  };
  /** A user with one passkey named `name`; answers the user and its authenticator. */
  const withPasskey = async (username: string, name = 'Laptop', role = 1) => {
    const user = await signInNewUser(test, username, role);
    const device = createSoftwareAuthenticator(RP_ID, ORIGIN);
    const created = await options(user.client, '/api/user/passkey/register/options');
    const response = device.register(created);
    expect((await user.client.post('/api/user/passkey/register', { name, response })).body.success).toBe(
      true,
    );
    return { user, device };
  };
  const signInAlone = async (
    device: SoftwareAuthenticator,
    client = apiClient(test.sluice.app),
    userVerified = true,
  ) => {
    const request = await options(client, '/api/user/passkey/login/options');
    const answer = await client.post('/api/user/passkey/login', {
      response: device.authenticate(request, { userVerified }),
    });
    return { client, answer, request };
  };

  it('registers a discoverable passkey for this relying party and lists it without its key', async () => {
    const user = await signInNewUser(test, 'pkalice');
    const device = createSoftwareAuthenticator(RP_ID, ORIGIN);
    const created = await options(user.client, '/api/user/passkey/register/options');
    expect(created.rp).toEqual({ id: RP_ID, name: 'Sluice' });
    expect(created).toMatchObject({
      authenticatorSelection: { residentKey: 'required' },
      attestation: 'none',
    });
    const response = device.register(created);
    expect(
      (await user.client.post('/api/user/passkey/register', { name: 'YubiKey', response })).body,
    ).toEqual({
      success: true,
      message: '',
    });
    const listed = (await user.client.get('/api/user/passkey')).body.data as Passkey[];
    expect(listed).toEqual([
      {
        id: expect.any(Number),
        name: 'YubiKey',
        created_at: expect.any(Number),
        last_used_at: 0,
        backed_up: false,
      },
    ]);
    expect((await user.client.get('/api/user/2fa')).body.data).toMatchObject({ passkeys: 1, totp: false });
    // The challenge was used: the same answer again is refused.
    expect(
      (await user.client.post('/api/user/passkey/register', { name: 'Again', response })).body.message,
    ).toBe(PASSKEY_CHALLENGE_EXPIRED);
  });

  it('refuses a passkey made for another origin', async () => {
    const user = await signInNewUser(test, 'pkbob');
    const device = createSoftwareAuthenticator(RP_ID, 'https://evil.example');
    const created = await options(user.client, '/api/user/passkey/register/options');
    const answer = await user.client.post('/api/user/passkey/register', {
      name: 'Evil',
      response: device.register(created),
    });
    expect(answer.body.success).toBe(false);
    expect(answer.body.message).toMatch(/origin/);
    expect((await user.client.get('/api/user/passkey')).body.data).toEqual([]);
  });

  it('signs in with the passkey alone (user verified), once per challenge', async () => {
    const { user, device } = await withPasskey('pkcarol');
    const { client, answer, request } = await signInAlone(device);
    expect(request.allowCredentials).toEqual([]);
    expect(answer.body.data).toMatchObject({ id: user.id, username: 'pkcarol' });
    expect((await client.get('/api/user/self')).body.data).toMatchObject({ username: 'pkcarol' });
    const replay = await client.post('/api/user/passkey/login', { response: device.authenticate(request) });
    expect(replay.body.message).toBe(PASSKEY_CHALLENGE_EXPIRED);

    const unverified = await signInAlone(device, apiClient(test.sluice.app), false);
    expect(unverified.answer.body.success).toBe(false);
    expect((await unverified.client.get('/api/user/self')).status).toBe(401);
    const listed = (await user.client.get('/api/user/passkey')).body.data as Passkey[];
    expect(listed[0]?.last_used_at).toBeGreaterThan(0);
    const rows = (await root.get('/api/audit/?username=pkcarol&object_type=session')).body.data as AuditRow[];
    expect(rows.map((row) => [row.action, row.detail.split(':')[0]])).toEqual([
      ['sign_in_failed', 'passkey'],
      ['sign_in', 'passkey'],
      ['sign_in', 'password'],
    ]);
  });

  it('is the second factor of a password sign-in, and only the user’s own passkey is', async () => {
    const { device } = await withPasskey('pkdave');
    const stranger = await withPasskey('pkerin');
    const browser = apiClient(test.sluice.app);
    const first = await browser.post('/api/user/login', { username: 'pkdave', password: FIXTURE_PASSWORD });
    expect(first.body.data).toEqual({ require_2fa: true, totp: false, passkey: true });
    expect((await browser.get('/api/user/self')).status).toBe(401);
    const wrong = await options(browser, '/api/user/passkey/login/options');
    expect(wrong.allowCredentials?.map((credential) => credential.id)).toEqual([device.credentialId]);
    expect(
      (await browser.post('/api/user/passkey/login', { response: stranger.device.authenticate(wrong) })).body
        .message,
    ).toBe(PASSKEY_OTHER_USER);
    const request = await options(browser, '/api/user/passkey/login/options');
    const done = await browser.post('/api/user/passkey/login', {
      response: device.authenticate(request, { userVerified: false }),
    });
    expect(done.body.data).toMatchObject({ username: 'pkdave' });
    const [row] = (await root.get('/api/audit/?username=pkdave&action=sign_in')).body.data as AuditRow[];
    expect(row?.detail).toBe('password+passkey');
  });

  it('renames and deletes only the user’s own passkeys; a deleted one signs in no more', async () => {
    const { user, device } = await withPasskey('pkfrank', 'Phone');
    const other = await signInNewUser(test, 'pkgina');
    const [passkey] = (await user.client.get('/api/user/passkey')).body.data as Passkey[];
    const id = passkey?.id ?? 0;
    expect((await other.client.put(`/api/user/passkey/${id}`, { name: 'Mine' })).body.message).toBe(
      PASSKEY_MISSING,
    );
    expect((await other.client.delete(`/api/user/passkey/${id}`)).body.message).toBe(PASSKEY_MISSING);
    expect((await user.client.put(`/api/user/passkey/${id}`, { name: 'Old phone' })).body.success).toBe(true);
    expect(((await user.client.get('/api/user/passkey')).body.data as Passkey[])[0]?.name).toBe('Old phone');
    expect((await user.client.delete(`/api/user/passkey/${id}`)).body.success).toBe(true);
    expect((await signInAlone(device)).answer.body.message).toBe(PASSKEY_UNKNOWN);
    const own = (await root.get('/api/audit/?username=pkfrank&object_type=two_factor')).body
      .data as AuditRow[];
    expect(own.map((row) => [row.action, row.detail])).toEqual([
      ['disable', 'passkey: Old phone'],
      ['enable', 'passkey: Phone'],
    ]);
  });

  it('counts as an administrator’s second factor, and goes with an administrator’s reset', async () => {
    const { user: admin, device } = await withPasskey('pkadmin', 'Key', 10);
    await test.sluice.services.options.update('TwoFactorRequiredForAdmins', 'true');
    try {
      expect((await admin.client.get('/api/channel/')).body.success).toBe(true);
      const plain: SignedInUser = await signInNewUser(test, 'pkplainadm', 10);
      expect((await plain.client.get('/api/channel/')).body.message).toBe(TWO_FACTOR_REQUIRED);
    } finally {
      await test.sluice.services.options.update('TwoFactorRequiredForAdmins', 'false');
    }
    expect((await root.delete(`/api/user/${admin.id}/2fa`)).body.success).toBe(true);
    expect((await admin.client.get('/api/user/passkey')).body.data).toEqual([]);
    expect((await signInAlone(device)).answer.body.message).toBe(PASSKEY_UNKNOWN);
  });
});
