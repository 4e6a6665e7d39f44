import { describe, expect, it } from 'vitest';
import { ADMIN_OPTION_KEYS, isAdminOptionKey, mayChangeOption } from './option-access.js';
import { OPTION_KEYS, isSecretOptionKey } from './option-keys.js';
import { ROLES } from './roles.js';

describe('option access', () => {
  it('never gives an administrator a secret', () => {
    for (const key of OPTION_KEYS.filter(isSecretOptionKey)) {
      expect(isAdminOptionKey(key), key).toBe(false);
      expect(mayChangeOption(key, ROLES.admin), key).toBe(false);
      expect(mayChangeOption(key, ROLES.root), key).toBe(true);
    }
    expect(ADMIN_OPTION_KEYS.filter(isSecretOptionKey)).toEqual([]);
  });

  it('keeps login methods, addresses secrets go to, and links root-only', () => {
    for (const key of [
      'PasswordLoginEnabled',
      'GitHubOAuthEnabled',
      'GitHubClientId',
      'WeChatAuthEnabled',
      'WeChatServerAddress',
      'TurnstileCheckEnabled',
      'SMTPServer',
      'SMTPAccount',
      'MessagePusherAddress',
      'ServerAddress',
      'TopUpLink',
      'ChatLink',
      // who may erase the audit trail
      'AuditLogRetentionDays',
      'TwoFactorRequiredForAdmins',
      'OidcWellKnown',
      'OidcGroupMapping',
      // one-api's, unknown to Sluice
      'OidcEnabled',
    ])
      expect(mayChangeOption(key, ROLES.admin), key).toBe(false);
  });

  it('gives administrators prices, quotas, monitoring, registration and the site texts', () => {
    for (const key of ['ModelRatio', 'GroupRatio', 'QuotaForNewUser', 'RegisterEnabled', 'Footer', 'Notice'])
      expect(mayChangeOption(key, ROLES.admin), key).toBe(true);
    expect(OPTION_KEYS.filter((key) => key.endsWith('Ratio')).every(isAdminOptionKey)).toBe(true);
  });

  it('gives nothing to a common user', () => {
    expect(OPTION_KEYS.filter((key) => mayChangeOption(key, ROLES.common))).toEqual([]);
  });
});
