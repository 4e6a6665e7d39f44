import { budgetInputOf, EMPTY_BUDGETS, type BudgetForm } from '../../lib/budget-form.js';
import { EMPTY_RATE_LIMITS, rateLimitInputOf, type RateLimitForm } from '../../lib/rate-limit-form.js';
import type { TokenInput } from './token-api.js';
import { parseExpiry } from './token-expiry.js';

/** Spec §9: a new token has 500000 quota and never expires. */
export const DEFAULT_TOKEN_QUOTA = 500_000;

export interface TokenFormState {
  name: string;
  remainQuota: number;
  unlimited: boolean;
  expiry: string;
  models: string[];
  subnet: string;
  limits: RateLimitForm;
  budgets: BudgetForm;
}

export const EMPTY_TOKEN_FORM: TokenFormState = {
  name: '',
  remainQuota: DEFAULT_TOKEN_QUOTA,
  unlimited: false,
  expiry: '',
  models: [],
  subnet: '',
  limits: EMPTY_RATE_LIMITS,
  budgets: EMPTY_BUDGETS,
};

/** The form's token, or the translation key of its first problem (spec §5). */
export const tokenInputOf = (
  form: TokenFormState,
  creating: boolean,
):
  | { input: TokenInput }
  | {
      problem: 'token.nameRequired' | 'token.expiryFormatError' | 'limits.invalid' | 'limits.budgetInvalid';
    } => {
  if (creating && form.name.trim() === '') return { problem: 'token.nameRequired' };
  const expired = parseExpiry(form.expiry);
  if (expired === undefined) return { problem: 'token.expiryFormatError' };
  const limits = rateLimitInputOf(form.limits);
  if (limits === undefined) return { problem: 'limits.invalid' };
  const budgets = budgetInputOf(form.budgets);
  if (budgets === undefined) return { problem: 'limits.budgetInvalid' };
  return {
    input: {
      name: form.name.trim(),
      remain_quota: Math.trunc(form.remainQuota),
      unlimited_quota: form.unlimited,
      expired_time: expired,
      models: form.models.join(','),
      subnet: form.subnet.trim(),
      ...limits,
      ...budgets,
    },
  };
};
