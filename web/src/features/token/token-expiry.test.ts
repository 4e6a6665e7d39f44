// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { EMPTY_TOKEN_FORM, tokenInputOf } from './token-form-model.js';
import { expiryText, NEVER_EXPIRES, parseExpiry, presetText } from './token-expiry.js';

describe('token expiry', () => {
  const now = new Date(2024, 4, 10, 12, 0, 0).getTime();

  it('offers never, one month (30 days), one day, one hour and one minute', () => {
    expect(presetText('never', now)).toBe('');
    expect(presetText('month', now)).toBe('2024-06-09 12:00:00');
    expect(presetText('day', now)).toBe('2024-05-11 12:00:00');
    expect(presetText('hour', now)).toBe('2024-05-10 13:00:00');
    expect(presetText('minute', now)).toBe('2024-05-10 12:01:00');
  });

  it('reads blank as never and the field format as local time', () => {
    expect(parseExpiry('  ')).toBe(NEVER_EXPIRES);
    expect(parseExpiry('2024-05-11 12:00:00')).toBe(new Date(2024, 4, 11, 12, 0, 0).getTime() / 1000);
    expect(parseExpiry('2024-05-11')).toBe(new Date(2024, 4, 11).getTime() / 1000);
    expect(parseExpiry('tomorrow')).toBeUndefined();
    expect(expiryText(NEVER_EXPIRES)).toBe('');
    expect(expiryText(new Date(2024, 4, 11, 1, 2, 3).getTime() / 1000)).toBe('2024-05-11 01:02:03');
  });
});

describe('token form (spec §5)', () => {
  it('needs a name on creation only', () => {
    expect(tokenInputOf(EMPTY_TOKEN_FORM, true)).toEqual({ problem: 'token.nameRequired' });
    expect(tokenInputOf(EMPTY_TOKEN_FORM, false)).toHaveProperty('input');
  });

  it("refuses an expiry that is not a date ('expiry time format error')", () => {
    expect(tokenInputOf({ ...EMPTY_TOKEN_FORM, name: 'a', expiry: 'soon' }, true)).toEqual({
      problem: 'token.expiryFormatError',
    });
  });

  it('sends the defaults: 500000 quota, never expires, no model restriction', () => {
    expect(
      tokenInputOf(
        { ...EMPTY_TOKEN_FORM, name: ' laptop ', models: ['gpt-4o', 'o1'], subnet: ' 10.0.0.0/8 ' },
        true,
      ),
    ).toEqual({
      input: {
        name: 'laptop',
        remain_quota: 500000,
        unlimited_quota: false,
        expired_time: -1,
        models: 'gpt-4o,o1',
        subnet: '10.0.0.0/8',
        rpm_limit: null,
        tpm_limit: null,
        concurrency_limit: null,
        budget_5h: null,
        budget_daily: null,
        budget_weekly: null,
        budget_monthly: null,
      },
    });
  });

  it('sends the rate limits (empty or 0: none), and refuses a fractional or negative one', () => {
    const limited = tokenInputOf(
      { ...EMPTY_TOKEN_FORM, name: 'agent', limits: { rpm_limit: 60, tpm_limit: 0, concurrency_limit: 2 } },
      true,
    );
    expect(limited).toMatchObject({ input: { rpm_limit: 60, tpm_limit: null, concurrency_limit: 2 } });
    expect(
      tokenInputOf(
        { ...EMPTY_TOKEN_FORM, name: 'agent', limits: { ...EMPTY_TOKEN_FORM.limits, rpm_limit: 1.5 } },
        true,
      ),
    ).toEqual({ problem: 'limits.invalid' });
  });

  it('sends the budgets (empty or 0: none), and refuses a fractional or negative one', () => {
    const budgeted = tokenInputOf(
      { ...EMPTY_TOKEN_FORM, name: 'agent', budgets: { ...EMPTY_TOKEN_FORM.budgets, budget_5h: 400_000 } },
      true,
    );
    expect(budgeted).toMatchObject({ input: { budget_5h: 400_000, budget_daily: null } });
    expect(
      tokenInputOf(
        { ...EMPTY_TOKEN_FORM, name: 'agent', budgets: { ...EMPTY_TOKEN_FORM.budgets, budget_weekly: -5 } },
        true,
      ),
    ).toEqual({ problem: 'limits.budgetInvalid' });
  });
});
