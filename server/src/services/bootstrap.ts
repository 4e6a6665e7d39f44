import { ROLES } from '@sluice/contract/roles';
import { ROOT_INITIAL_QUOTA, USER_STATUS } from '@sluice/contract/statuses';
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import type { Config } from '../config/env.js';
import type { Dialect } from '../db/dsn.js';
import { executeInsertId } from '../db/insert-id.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import type { Tables } from '../db/tables.js';
import { uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import { nowSeconds } from '../lib/time.js';

export const DEFAULT_ROOT_USERNAME = 'root';
export const DEFAULT_ROOT_PASSWORD = '123456';

/**
 * First start: when the users table is empty, create root / 123456 (role 100, quota 5e14), with
 * INITIAL_ROOT_ACCESS_TOKEN as its access token and INITIAL_ROOT_TOKEN as its first key when set.
 */
export const ensureRootUser = async (
  db: Kysely<Tables>,
  dialect: Dialect,
  config: Pick<Config, 'initialRootToken' | 'initialRootAccessToken'>,
  logger: Logger,
): Promise<boolean> => {
  const any = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return false;
  const password = await hashPassword(DEFAULT_ROOT_PASSWORD);
  try {
    await createRoot(db, dialect, config, password);
  } catch (error) {
    // Another instance starting at the same moment created root first: nothing left to do.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
  logger.warn('created the root user (username root, password 123456): change the password now');
  return true;
};

const createRoot = (
  db: Kysely<Tables>,
  dialect: Dialect,
  config: Pick<Config, 'initialRootToken' | 'initialRootAccessToken'>,
  password: string,
): Promise<void> =>
  db.transaction().execute(async (trx) => {
    const userId = await executeInsertId(
      dialect,
      trx.insertInto('users').values({
        username: DEFAULT_ROOT_USERNAME,
        password,
        display_name: 'Root User',
        role: ROLES.root,
        status: USER_STATUS.enabled,
        email: '',
        github_id: '',
        wechat_id: '',
        lark_id: '',
        oidc_id: '',
        access_token: config.initialRootAccessToken || uuidHex(),
        quota: ROOT_INITIAL_QUOTA,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        aff_code: null,
        inviter_id: 0,
      }),
    );
    if (config.initialRootToken) {
      const now = nowSeconds();
      await trx
        .insertInto('tokens')
        .values({
          user_id: userId,
          key: config.initialRootToken,
          status: 1,
          name: 'Initial Root Token',
          created_time: now,
          accessed_time: now,
          expired_time: -1,
          remain_quota: ROOT_INITIAL_QUOTA,
          unlimited_quota: true,
          used_quota: 0,
          models: '',
          subnet: '',
        })
        .execute();
    }
  });
