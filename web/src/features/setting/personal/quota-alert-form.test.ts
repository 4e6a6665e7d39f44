import { describe, expect, it } from 'vitest';
import { isValidChoice, toQuotaAlertForm, toQuotaAlertRequest } from './quota-alert-form.js';

describe('the quota alert form', () => {
  it('reads null as the site’s, 0 as off and more as the user’s own, and writes them back', () => {
    const form = toQuotaAlertForm({ quota_alert_threshold: null, token_alert_threshold: 0 });
    expect(form).toEqual({
      quota_alert_threshold: { mode: 'site', amount: '' },
      token_alert_threshold: { mode: 'off', amount: '' },
    });
    expect(toQuotaAlertRequest(form)).toEqual({ quota_alert_threshold: null, token_alert_threshold: 0 });
    const own = toQuotaAlertForm({ quota_alert_threshold: 2_500_000, token_alert_threshold: 7 });
    expect(toQuotaAlertRequest(own)).toEqual({ quota_alert_threshold: 2_500_000, token_alert_threshold: 7 });
  });

  it('takes an own threshold only as a whole number of quota units above 0', () => {
    expect(isValidChoice({ mode: 'own', amount: 1 })).toBe(true);
    for (const amount of [0, -5, 1.5, ''] as const)
      expect(isValidChoice({ mode: 'own', amount })).toBe(false);
    expect(isValidChoice({ mode: 'site', amount: '' })).toBe(true);
    expect(isValidChoice({ mode: 'off', amount: '' })).toBe(true);
  });
});
