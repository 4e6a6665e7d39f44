import { MASKED, MASKED_CHANGED } from '@sluice/contract/schemas/audit';
import { describe, expect, it } from 'vitest';
import { isSecretField, maskPair } from './audit-mask.js';

describe('the audit log’s masking', () => {
  it('knows secrets by name: keys, passwords, tokens, client secrets, secret options and config fields', () => {
    for (const name of [
      'key',
      'password',
      'access_token',
      'client_secret',
      'api_key',
      'sk',
      'vertex_ai_adc',
      'SMTPToken',
      'GitHubClientSecret',
      'TurnstileSecretKey',
      'OidcClientSecret',
      'SomeFutureToken',
    ])
      expect(isSecretField(name), name).toBe(true);
    for (const name of [
      'name',
      'token_name',
      'prompt_tokens',
      'TurnstileSiteKey',
      'GitHubClientId',
      'models',
    ])
      expect(isSecretField(name), name).toBe(false);
  });

  it('masks nested objects, arrays and JSON texts of objects, leaving empty secrets as they are', () => {
    const { before, after } = maskPair(
      { key: 'old-key', password: '', config: '{"region":"eu","sk":"s1"}', list: [{ token: 't' }] },
      { key: 'new-key', password: 'p', config: '{"region":"us","sk":"s1"}', list: [{ token: 't' }] },
    );
    expect(before).toEqual({
      key: MASKED,
      password: '',
      config: { region: 'eu', sk: MASKED },
      list: [{ token: MASKED }],
    });
    expect(after).toEqual({
      key: MASKED_CHANGED,
      password: MASKED,
      config: { region: 'us', sk: MASKED },
      list: [{ token: MASKED }],
    });
  });

  it('leaves a value that is not an object alone', () => {
    expect(maskPair(null, 'text')).toEqual({ before: null, after: 'text' });
    expect(maskPair('{not json', 3)).toEqual({ before: '{not json', after: 3 });
  });
});
