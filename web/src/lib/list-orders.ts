/**
 * The sort orders the list routes accept (`?order=`), one list per screen; '' is the server's default
 * order (newest first). The one definition in the console: the API calls and the order boxes derive
 * from it.
 */
export const LIST_ORDERS = {
  /** GET /api/token/: by remaining or used quota. */
  tokens: ['', 'remain_quota', 'used_quota'],
  /** GET /api/user/ (admin): by quota, used quota or request count. */
  users: ['', 'quota', 'used_quota', 'request_count'],
} as const;

export type TokenOrder = (typeof LIST_ORDERS.tokens)[number];
export type UserOrder = (typeof LIST_ORDERS.users)[number];

/** A chosen value as one of `orders`: anything else is the default order (''). */
export const orderOf = <O extends string>(orders: readonly ('' | O)[], value: string | null): '' | O =>
  orders.find((order) => order === value) ?? '';
