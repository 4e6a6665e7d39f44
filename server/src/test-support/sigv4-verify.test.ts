import { describe, expect, it } from 'vitest';
import { verifySigV4 } from './sigv4-verify.js';

// AWS's published SigV4 test suite, case "get-vanilla" (aws-sig-v4-test-suite): its credentials,
// request and the signature AWS documents for it.
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const vanilla = (signature: string) => ({
  method: 'GET',
  path: '/',
  headers: {
    host: 'example.amazonaws.com',
    'x-amz-date': '20150830T123600Z',
    authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
  },
  body: '',
});

describe('verifySigV4', () => {
  it('accepts the signature AWS documents for its get-vanilla example', () => {
    expect(
      verifySigV4(vanilla('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'), SECRET),
    ).toEqual({ ok: true, accessKeyId: 'AKIDEXAMPLE', region: 'us-east-1', service: 'service' });
  });

  it('refuses another secret, a changed signature, a changed body', () => {
    const good = vanilla('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(verifySigV4(good, `${SECRET}x`).ok).toBe(false);
    expect(
      verifySigV4(vanilla('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf32'), SECRET).ok,
    ).toBe(false);
    expect(verifySigV4({ ...good, body: 'x' }, SECRET).ok).toBe(false);
    expect(verifySigV4({ ...good, headers: { host: 'example.amazonaws.com' } }, SECRET).ok).toBe(false);
  });
});
