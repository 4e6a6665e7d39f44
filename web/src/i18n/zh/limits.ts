import type { Catalogue } from '../catalogue.js';
import type { enLimits } from '../en/limits.js';

/** Chinese texts: the rate limits of a token and of a user. */
export const zhLimits: Catalogue<typeof enLimits> = {
  limits: {
    title: '速率限制',
    hint: '留空或 0：不限制。每项限制统计最近一分钟，所有 Sluice 实例合计。',
    rpm: '每分钟请求数',
    tpm: '每分钟 Token 数',
    tpmHint: '提示与补全 Token 合计，按计费计',
    concurrency: '同时进行的请求数',
    invalid: '速率限制须为不小于 0 的整数（留空：不限制）。',
    budgets: '预算',
    budgetsHint:
      '以额度计（数值见各字段下方）。留空或 0：无预算。日、周（自周一起）、月按预算时区的日历计算，或按设置滚动计算。',
    budget_5h: '每 5 小时（滚动）',
    budget_daily: '每日',
    budget_weekly: '每周',
    budget_monthly: '每月',
    budgetInvalid: '预算须为不小于 0 的整数额度（留空：无预算）。',
    usage: '预算用量',
    window_5h: '5 小时',
    window_daily: '日',
    window_weekly: '周',
    window_monthly: '月',
    windowUsed: '{{used}} / {{limit}}',
  },
};
