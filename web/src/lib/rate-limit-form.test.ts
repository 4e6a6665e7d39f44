import { describe, expect, it } from 'vitest';
import { EMPTY_RATE_LIMITS, rateLimitFormOf, rateLimitInputOf } from './rate-limit-form.js';

describe('the rate limit fields of the token form and the user editor', () => {
  it('shows unset limits as empty fields and set ones as numbers', () => {
    expect(rateLimitFormOf({ rpm_limit: null, tpm_limit: 100_000, concurrency_limit: null })).toEqual({
      rpm_limit: '',
      tpm_limit: 100_000,
      concurrency_limit: '',
    });
  });

  it('sends empty fields and 0 as null (no limit), whole numbers as they are', () => {
    expect(rateLimitInputOf(EMPTY_RATE_LIMITS)).toEqual({
      rpm_limit: null,
      tpm_limit: null,
      concurrency_limit: null,
    });
    expect(rateLimitInputOf({ rpm_limit: 60, tpm_limit: 0, concurrency_limit: 3 })).toEqual({
      rpm_limit: 60,
      tpm_limit: null,
      concurrency_limit: 3,
    });
  });

  it('refuses a negative or fractional limit', () => {
    expect(rateLimitInputOf({ rpm_limit: -1, tpm_limit: '', concurrency_limit: '' })).toBeUndefined();
    expect(rateLimitInputOf({ rpm_limit: '', tpm_limit: 1.5, concurrency_limit: '' })).toBeUndefined();
    expect(rateLimitInputOf({ rpm_limit: '', tpm_limit: '', concurrency_limit: Number.NaN })).toBeUndefined();
  });
});
