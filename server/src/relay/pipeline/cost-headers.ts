import type { RequestContext } from './relay-context.js';

/**
 * Tells the client what a non-stream answer cost, in quota units: `x-sluice-quota-cost` (the log
 * row's quota) and `x-sluice-quota-remaining`, the key's `remain_quota` as read at this request's
 * authentication (fresh from the database for a limited key) less this cost, never below 0; or
 * `unlimited` for a key without a quota of its own (its user's quota still bounds it). Written into
 * the reply's own header object: no object made for it.
 */
export const addCostHeaders = (
  context: RequestContext,
  cost: number,
  headers: Record<string, string>,
): Record<string, string> => {
  const token = context.call.auth.token;
  headers['x-sluice-quota-cost'] = String(cost);
  headers['x-sluice-quota-remaining'] = token.unlimited_quota
    ? 'unlimited'
    : String(Math.max(0, Number(token.remain_quota) - cost));
  return headers;
};
