/**
 * The sort orders the list routes accept (`?order=`), one list per route; '' is the default order
 * (newest first). The one definition: the server's query schemas and services and the console's
 * API calls and order boxes derive from it.
 */
export const LIST_ORDERS = {
  /** GET /api/token/: by remaining or used quota. */
  tokens: ['', 'remain_quota', 'used_quota'],
  /** GET /api/user/ (admin): by quota, used quota or request count. */
  users: ['', 'quota', 'used_quota', 'request_count'],
} as const;

export type TokenOrder = (typeof LIST_ORDERS.tokens)[number];
export type UserOrder = (typeof LIST_ORDERS.users)[number];
