import { describe, expect, it } from 'vitest';
import { budgetFormOf, budgetInputOf, EMPTY_BUDGETS } from './budget-form.js';

describe('the budgets in a form', () => {
  it('shows unset budgets as empty fields', () => {
    expect(
      budgetFormOf({ budget_5h: null, budget_daily: 1_000_000, budget_weekly: null, budget_monthly: 5 }),
    ).toEqual({ budget_5h: '', budget_daily: 1_000_000, budget_weekly: '', budget_monthly: 5 });
  });

  it('sends empty and 0 as no budget, whole numbers as they are', () => {
    expect(budgetInputOf(EMPTY_BUDGETS)).toEqual({
      budget_5h: null,
      budget_daily: null,
      budget_weekly: null,
      budget_monthly: null,
    });
    expect(budgetInputOf({ ...EMPTY_BUDGETS, budget_5h: 0, budget_weekly: 250_000 })).toEqual({
      budget_5h: null,
      budget_daily: null,
      budget_weekly: 250_000,
      budget_monthly: null,
    });
  });

  it('refuses a negative, fractional or unreadable budget', () => {
    expect(budgetInputOf({ ...EMPTY_BUDGETS, budget_daily: -1 })).toBeUndefined();
    expect(budgetInputOf({ ...EMPTY_BUDGETS, budget_monthly: 2.5 })).toBeUndefined();
    expect(budgetInputOf({ ...EMPTY_BUDGETS, budget_5h: Number.NaN })).toBeUndefined();
  });
});
