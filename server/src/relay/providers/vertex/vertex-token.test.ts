import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { throwawayServiceAccount } from '../../../test-support/vertex-double.js';
import type { ChannelMeta } from '../adaptor.js';
import { vertexTokenSource } from './vertex-token.js';

const TOKEN_URI = 'http://127.0.0.1:4599/token';
const account = throwawayServiceAccount(TOKEN_URI);
const channel = (config: Record<string, string>, id = 3): ChannelMeta => ({
  id,
  type: CHANNEL_TYPE.vertexAi,
  key: '',
  baseUrl: '',
  config,
});
const vertex = channel({ region: 'us-east5', vertex_ai_project_id: 'p', vertex_ai_adc: account.json });

describe('vertex token source: the service account’s JWT grant (Google’s server-to-server OAuth)', () => {
  it('posts a form-encoded jwt-bearer grant to the key file’s token_uri', async () => {
    const request = await vertexTokenSource.request(vertex);
    expect(request.url).toBe(TOKEN_URI);
    expect(request.headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    const form = new URLSearchParams(String(request.body));
    expect([...form.keys()]).toEqual(['grant_type', 'assertion']);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it('signs the assertion RS256 with the private key: the public key verifies it, with Google’s claims', async () => {
    const before = Math.floor(Date.now() / 1000);
    const assertion = new URLSearchParams(String((await vertexTokenSource.request(vertex)).body)).get(
      'assertion',
    )!;
    const { payload, protectedHeader } = await jwtVerify(assertion, account.publicKey, {
      algorithms: ['RS256'],
      issuer: account.clientEmail,
      audience: TOKEN_URI,
    });
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: account.privateKeyId });
    expect(payload).toEqual({
      iss: account.clientEmail,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: TOKEN_URI,
      iat: expect.any(Number) as unknown,
      exp: expect.any(Number) as unknown,
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('is not verified by another key pair’s public key', async () => {
    const other = throwawayServiceAccount(TOKEN_URI);
    const assertion = new URLSearchParams(String((await vertexTokenSource.request(vertex)).body)).get(
      'assertion',
    )!;
    expect(decodeProtectedHeader(assertion).alg).toBe('RS256');
    await expect(jwtVerify(assertion, other.publicKey)).rejects.toThrow(/signature/i);
  });

  it('sends the grant to Google’s token URL when the key file names none', async () => {
    const { token_uri: _uri, ...rest } = JSON.parse(account.json) as Record<string, string>;
    const request = await vertexTokenSource.request(
      channel({ region: 'us-east5', vertex_ai_adc: JSON.stringify(rest) }, 4),
    );
    expect(request.url).toBe('https://oauth2.googleapis.com/token');
  });

  it('reads a private key whose line ends were escaped once more', async () => {
    const parsed = JSON.parse(account.json) as Record<string, string>;
    const json = JSON.stringify({ ...parsed, private_key: parsed['private_key']!.replaceAll('\n', '\\n') });
    expect((JSON.parse(json) as Record<string, string>)['private_key']).not.toContain('\n');
    const request = await vertexTokenSource.request(channel({ region: 'us-east5', vertex_ai_adc: json }, 6));
    const assertion = new URLSearchParams(String(request.body)).get('assertion')!;
    await expect(jwtVerify(assertion, account.publicKey)).resolves.toBeDefined();
  });

  it('refuses a private key that is not one, naming the field and quoting nothing', async () => {
    const json = JSON.stringify({
      ...(JSON.parse(account.json) as object),
      private_key: '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n',
    });
    const error = (await Promise.resolve(
      vertexTokenSource.request(channel({ region: 'us-east5', vertex_ai_adc: json }, 5)),
    ).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(
      "the Vertex AI channel's config.vertex_ai_adc: private_key is not an RSA PKCS#8 key",
    );
  });

  it('caches per channel and service account, never by the secret', () => {
    const key = vertexTokenSource.cacheKey(vertex);
    expect(key).toContain(account.clientEmail);
    expect(key).not.toContain('PRIVATE');
    expect(vertexTokenSource.cacheKey({ ...vertex, id: 9 })).not.toBe(key);
  });

  it('reads Google’s token answer and its refusals', () => {
    expect(
      vertexTokenSource.read(200, { access_token: 'ya29.c.b0A', expires_in: 3599, token_type: 'Bearer' }),
    ).toEqual({ token: 'ya29.c.b0A', expiresInSeconds: 3599 });
    expect(
      vertexTokenSource.read(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }),
    ).toEqual({ message: 'Invalid JWT Signature.', type: 'upstream_error', code: 'invalid_grant' });
    expect(vertexTokenSource.read(502, '<html>bad gateway</html>')).toEqual({
      message: 'the token endpoint answered 502',
      type: 'upstream_error',
      code: 'token_failed',
    });
    expect(vertexTokenSource.read(200, { token_type: 'Bearer' })).toMatchObject({ code: 'token_failed' });
  });
});
