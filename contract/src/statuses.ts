/** Status tables of every entity, with one-api's numeric values. */
export const USER_STATUS = { enabled: 1, disabled: 2, deleted: 3 } as const;
export const TOKEN_STATUS = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;
export const CHANNEL_STATUS = { unknown: 0, enabled: 1, manuallyDisabled: 2, autoDisabled: 3 } as const;
export const REDEMPTION_STATUS = { unused: 1, disabled: 2, used: 3 } as const;
export const LOG_TYPE = { unknown: 0, topup: 1, consume: 2, manage: 3, system: 4, test: 5 } as const;

export type LogType = (typeof LOG_TYPE)[keyof typeof LOG_TYPE];

/** Page size of every paginated list (one-api's ITEMS_PER_PAGE, the console's page size). */
export const ITEMS_PER_PAGE = 10;
/** Cap of the log search endpoints. */
export const MAX_RECENT_ITEMS = 100;
/** Quota of the root user created on first start. */
export const ROOT_INITIAL_QUOTA = 500_000_000_000_000;
