import { USER_LIMITS } from '@sluice/contract/schemas/user';
import { LOG_TYPE } from '@sluice/contract/statuses';
import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import { executeInsertId } from '../db/insert-id.js';
import type { Tables } from '../db/tables.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { AppError, businessError } from '../lib/app-error.js';
import { generateAffCode, generateTokenKey, uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import { nowSeconds } from '../lib/time.js';
import { writeLog } from './log-writer.js';
import type { OptionValues } from './option-values.js';
import { formatLogQuota } from './quota-text.js';

export interface NewUser {
  readonly username: string;
  readonly password: string;
  readonly displayName?: string;
  readonly email?: string;
  readonly inviterId?: number;
  readonly githubId?: string;
  readonly wechatId?: string;
  readonly larkId?: string;
  readonly oidcId?: string;
  /** The user's group ('default' when not given): an OpenID Connect sign-in's mapped group. */
  readonly group?: string;
}

/**
 * Inserts a user with one-api's side effects, all in the caller's transaction: new-user quota and
 * its system log, invite rewards for both sides, and a default unlimited token.
 */
export const insertUser = async (
  trx: Transaction<Tables>,
  dialect: Dialect,
  input: NewUser,
  options: OptionValues,
): Promise<number> => {
  const taken = await trx
    .selectFrom('users')
    .select('id')
    .where('username', '=', input.username)
    .executeTakeFirst();
  if (taken) throw businessError('username already taken');
  let userId: number;
  try {
    const values = {
      username: input.username,
      password: await hashPassword(input.password),
      display_name: input.displayName || input.username,
      role: 1,
      status: 1,
      email: input.email ?? '',
      github_id: input.githubId ?? '',
      wechat_id: input.wechatId ?? '',
      lark_id: input.larkId ?? '',
      oidc_id: input.oidcId ?? '',
      access_token: uuidHex(),
      quota: options.QuotaForNewUser,
      used_quota: 0,
      request_count: 0,
      group: input.group ?? 'default',
      aff_code: generateAffCode(),
      inviter_id: input.inviterId ?? 0,
    };
    userId = await executeInsertId(dialect, trx.insertInto('users').values(values));
  } catch (error) {
    if (isUniqueViolation(error)) throw businessError('username already taken');
    throw error;
  }
  if (options.QuotaForNewUser > 0) {
    await writeLog(trx, {
      userId,
      username: input.username,
      type: LOG_TYPE.system,
      content: `new user registration gift ${formatLogQuota(options.QuotaForNewUser, options)}`,
    });
  }
  if (input.inviterId) await rewardInvite(trx, userId, input.username, input.inviterId, options);
  const now = nowSeconds();
  await trx
    .insertInto('tokens')
    .values({
      user_id: userId,
      key: generateTokenKey(),
      status: 1,
      name: 'default',
      created_time: now,
      accessed_time: now,
      expired_time: -1,
      remain_quota: -1,
      unlimited_quota: true,
      used_quota: 0,
      models: '',
      subnet: '',
    })
    .execute();
  return userId;
};

const rewardInvite = async (
  trx: Transaction<Tables>,
  userId: number,
  username: string,
  inviterId: number,
  options: OptionValues,
): Promise<void> => {
  if (options.QuotaForInvitee > 0) {
    await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', options.QuotaForInvitee) }))
      .where('id', '=', userId)
      .execute();
    await writeLog(trx, {
      userId,
      username,
      type: LOG_TYPE.system,
      content: `gift for using an invite code ${formatLogQuota(options.QuotaForInvitee, options)}`,
    });
  }
  if (options.QuotaForInviter > 0) {
    const inviter = await trx
      .selectFrom('users')
      .select('username')
      .where('id', '=', inviterId)
      .executeTakeFirst();
    await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', options.QuotaForInviter) }))
      .where('id', '=', inviterId)
      .execute();
    await writeLog(trx, {
      userId: inviterId,
      username: inviter?.username ?? '',
      type: LOG_TYPE.system,
      content: `gift for inviting a user ${formatLogQuota(options.QuotaForInviter, options)}`,
    });
  }
};

/**
 * A user signing in through a third party: the first free name of `names` (a name taken meanwhile
 * moves on to the next), a password no one is told (they sign in through the provider, or set one
 * later), the display name and address cut or left out to fit. Answers the new user's id.
 */
export const insertExternalUser = async (
  db: Kysely<Tables>,
  dialect: Dialect,
  options: OptionValues,
  names: AsyncIterable<string> | Iterable<string>,
  input: Omit<NewUser, 'username' | 'password'>,
): Promise<number> => {
  for await (const username of names) {
    try {
      return await db.transaction().execute((trx) =>
        insertUser(
          trx,
          dialect,
          {
            ...input,
            username,
            password: uuidHex(),
            displayName: (input.displayName || username).slice(0, USER_LIMITS.displayNameMax),
            email: (input.email ?? '').length <= USER_LIMITS.emailMax ? input.email : '',
          },
          options,
        ),
      );
    } catch (error) {
      if (!(error instanceof AppError && error.message === 'username already taken')) throw error;
    }
  }
  throw businessError('could not find a free username, please try again');
};
