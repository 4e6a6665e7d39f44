import type { Kysely } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import type { Tables } from '../db/tables.js';
import { nowSeconds } from '../lib/time.js';

export type CodePurpose = 'verify' | 'reset' | 'oauth';

/** Codes are valid 10 minutes (one-api). */
export const CODE_TTL_SECONDS = 10 * 60;

/**
 * Single-use, expiring codes (email verification, password reset, OAuth state) in the database, so
 * that any instance can check a code another instance sent.
 */
export const createCodeStore = (db: Kysely<Tables>, dialect: Dialect) => ({
  put: async (
    purpose: CodePurpose,
    key: string,
    code: string,
    ttlSeconds = CODE_TTL_SECONDS,
  ): Promise<void> => {
    const expiresAt = nowSeconds() + ttlSeconds;
    const insert = db.insertInto('sluice_codes').values({ purpose, key, code, expires_at: expiresAt });
    await (
      dialect === 'mysql'
        ? insert.onDuplicateKeyUpdate({ code, expires_at: expiresAt })
        : insert.onConflict((conflict) =>
            conflict.columns(['purpose', 'key']).doUpdateSet({ code, expires_at: expiresAt }),
          )
    ).execute();
  },
  /** Consumes the code when it matches and has not expired: a second use finds nothing. */
  consume: async (purpose: CodePurpose, key: string, code: string): Promise<boolean> => {
    if (code === '') return false;
    const result = await db
      .deleteFrom('sluice_codes')
      .where('purpose', '=', purpose)
      .where('key', '=', key)
      .where('code', '=', code)
      .where('expires_at', '>', nowSeconds())
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },
  purgeExpired: async (): Promise<void> => {
    await db.deleteFrom('sluice_codes').where('expires_at', '<=', nowSeconds()).execute();
  },
});

export type CodeStore = ReturnType<typeof createCodeStore>;

/**
 * Claims a marker row of sluice_codes (a cooldown, a "warned" or "reminded" mark) that expires at
 * `expiresAt`: true for the one caller, of any instance, whose insert made the row. A row of the same
 * purpose and key that expired by `now` (when given) makes way first.
 */
export const claimMarker = async (
  db: Kysely<Tables>,
  dialect: Dialect,
  marker: {
    readonly purpose: string;
    readonly key: string;
    readonly expiresAt: number;
    readonly now?: number;
  },
): Promise<boolean> => {
  const { purpose, key, expiresAt, now } = marker;
  if (now !== undefined)
    await db
      .deleteFrom('sluice_codes')
      .where('purpose', '=', purpose)
      .where('key', '=', key)
      .where('expires_at', '<=', now)
      .execute();
  const insert = db.insertInto('sluice_codes').values({ purpose, key, code: '1', expires_at: expiresAt });
  const result = await (
    dialect === 'mysql'
      ? insert.ignore()
      : insert.onConflict((conflict) => conflict.columns(['purpose', 'key']).doNothing())
  ).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
};
