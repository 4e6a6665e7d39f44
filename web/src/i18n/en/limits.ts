/** English texts: the rate limits of a token and of a user. */
export const enLimits = {
  limits: {
    title: 'Rate limits',
    hint: 'Empty or 0: no limit. Every limit counts the last minute, across all Sluice instances.',
    rpm: 'Requests per minute',
    tpm: 'Tokens per minute',
    tpmHint: 'Prompt and completion tokens, as billed',
    concurrency: 'Requests in flight at once',
    invalid: 'Rate limits must be whole numbers, 0 or more (empty: no limit).',
    budgets: 'Budgets',
    budgetsHint:
      'In quota units (the amount beside each field). Empty or 0: no budget. Days, weeks (from Monday) and months follow the budget time zone, or roll, as the settings say.',
    budget_5h: 'Per 5 hours (rolling)',
    budget_daily: 'Per day',
    budget_weekly: 'Per week',
    budget_monthly: 'Per month',
    budgetInvalid: 'Budgets must be whole numbers of quota, 0 or more (empty: no budget).',
    usage: 'Budget usage',
    window_5h: '5 h',
    window_daily: 'Day',
    window_weekly: 'Week',
    window_monthly: 'Month',
    windowUsed: '{{used}} of {{limit}}',
  },
};
