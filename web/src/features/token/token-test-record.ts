import type { Token } from '@sluice/contract/schemas/token';

/** A token as the server answers it, no limits or budgets unless `fields` sets them. */
export const tokenRecord = (fields: Partial<Token> = {}): Token => ({
  id: 5,
  user_id: 1,
  key: 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL',
  status: 1,
  name: 'agent',
  created_time: 1_700_000_000,
  accessed_time: 1_700_000_000,
  expired_time: -1,
  remain_quota: 500_000,
  unlimited_quota: false,
  used_quota: 0,
  models: '',
  subnet: '',
  rpm_limit: null,
  tpm_limit: null,
  concurrency_limit: null,
  budget_5h: null,
  budget_daily: null,
  budget_weekly: null,
  budget_monthly: null,
  ...fields,
});
