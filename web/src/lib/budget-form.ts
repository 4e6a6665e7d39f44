import { BUDGET_FIELDS, type BudgetField } from '@sluice/contract/schemas/limits';

/** The budgets as a form holds them, in quota units: a number, or '' for an empty field (no budget). */
export type BudgetForm = Record<BudgetField, number | ''>;

export const EMPTY_BUDGETS: BudgetForm = {
  budget_5h: '',
  budget_daily: '',
  budget_weekly: '',
  budget_monthly: '',
};

/** A record's budgets in the form (unset: an empty field). */
export const budgetFormOf = (record: Readonly<Record<BudgetField, number | null>>): BudgetForm => ({
  budget_5h: record.budget_5h ?? '',
  budget_daily: record.budget_daily ?? '',
  budget_weekly: record.budget_weekly ?? '',
  budget_monthly: record.budget_monthly ?? '',
});

/**
 * The budgets as the API takes them (empty or 0: null, no budget), or undefined when one is not a
 * whole number of 0 or more: the form then says `limits.budgetInvalid`.
 */
export const budgetInputOf = (form: BudgetForm): Record<BudgetField, number | null> | undefined => {
  const input: Record<BudgetField, number | null> = {
    budget_5h: null,
    budget_daily: null,
    budget_weekly: null,
    budget_monthly: null,
  };
  for (const field of BUDGET_FIELDS) {
    const value = form[field];
    if (value === '' || value === 0) input[field] = null;
    else if (Number.isSafeInteger(value) && value > 0) input[field] = value;
    else return undefined;
  }
  return input;
};
