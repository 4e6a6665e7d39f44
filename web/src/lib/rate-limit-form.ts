import { RATE_LIMIT_FIELDS, type RateLimitField } from '@sluice/contract/schemas/limits';

/** The rate limits as a form holds them: a number, or '' for an empty field (no limit). */
export type RateLimitForm = Record<RateLimitField, number | ''>;

export const EMPTY_RATE_LIMITS: RateLimitForm = { rpm_limit: '', tpm_limit: '', concurrency_limit: '' };

/** A record's limits in the form (unset: an empty field). */
export const rateLimitFormOf = (record: Readonly<Record<RateLimitField, number | null>>): RateLimitForm => ({
  rpm_limit: record.rpm_limit ?? '',
  tpm_limit: record.tpm_limit ?? '',
  concurrency_limit: record.concurrency_limit ?? '',
});

/**
 * The limits as the API takes them (empty or 0: null, no limit), or undefined when one is not a
 * whole number of 0 or more: the form then says `limits.invalid`.
 */
export const rateLimitInputOf = (form: RateLimitForm): Record<RateLimitField, number | null> | undefined => {
  const input: Partial<Record<RateLimitField, number | null>> = {};
  for (const field of RATE_LIMIT_FIELDS) {
    const value = form[field];
    if (value === '' || value === 0) input[field] = null;
    else if (Number.isSafeInteger(value) && value > 0) input[field] = value;
    else return undefined;
  }
  return {
    rpm_limit: input.rpm_limit ?? null,
    tpm_limit: input.tpm_limit ?? null,
    concurrency_limit: input.concurrency_limit ?? null,
  };
};
