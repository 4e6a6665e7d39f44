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
  },
};
