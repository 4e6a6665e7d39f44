import { USER_STATUS } from '@sluice/contract/statuses';
import type { RegisterRequest, UpdateSelfRequest, User } from '@sluice/contract/schemas/user';
import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import { isUniqueViolation } from '../db/unique-violation.js';
import { businessError } from '../lib/app-error.js';
import { generateAffCode, uuidHex } from '../lib/keys.js';
import { hashPassword, verifyPassword } from '../lib/password.js';
import { withBudgetUsage } from './budget-usage.js';
import type { ChangeFeed } from './change-feed.js';
import type { CodeStore } from './code-store.js';
import type { ServiceDeps } from './service-deps.js';
import type { SessionStore } from './session-store.js';
import { insertUser } from './user-creation.js';
import { toUserRecord, type UserRow } from './user-record.js';

export const LOGIN_FAILED = 'username or password is wrong, or the user is banned';

export const createUserService = (
  deps: ServiceDeps,
  codes: CodeStore,
  sessions: SessionStore,
  changeFeed: ChangeFeed,
) => {
  const { db, options } = deps;

  const findById = (id: number): Promise<UserRow | undefined> =>
    db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

  const requireUser = async (id: number): Promise<UserRow> => {
    const user = await findById(id);
    if (!user) throw businessError('user does not exist');
    return user;
  };

  const findByAccessToken = (token: string): Promise<UserRow | undefined> =>
    token === ''
      ? Promise.resolve(undefined)
      : db.selectFrom('users').selectAll().where('access_token', '=', token).executeTakeFirst();

  /** Username first, then email (the login field may hold either). */
  const login = async (username: string, password: string): Promise<UserRow> => {
    if (!options.values.PasswordLoginEnabled)
      throw businessError('the administrator has turned off password login');
    const user =
      (await db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst()) ??
      (username.includes('@')
        ? await db
            .selectFrom('users')
            .selectAll()
            .where('email', '=', username)
            .orderBy('id')
            .executeTakeFirst()
        : undefined);
    if (!user || user.status !== USER_STATUS.enabled || !(await verifyPassword(password, user.password)))
      throw businessError(LOGIN_FAILED);
    return user;
  };

  const register = async (input: RegisterRequest): Promise<void> => {
    const values = options.values;
    if (!values.RegisterEnabled) throw businessError('the administrator has closed new-user registration');
    if (!values.PasswordRegisterEnabled)
      throw businessError('the administrator has closed password registration; use a third-party account');
    let email = '';
    if (values.EmailVerificationEnabled) {
      if (input.email === '' || input.verification_code === '')
        throw businessError('email verification is on: enter your email and the verification code');
      // A registration refused for its username must not burn the single-use code.
      const taken = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', input.username)
        .executeTakeFirst();
      if (taken) throw businessError('username already taken');
      if (!(await codes.consume('verify', input.email, input.verification_code)))
        throw businessError('the verification code is wrong or has expired');
      email = input.email;
    }
    const inviter =
      input.aff_code === ''
        ? undefined
        : await db.selectFrom('users').select('id').where('aff_code', '=', input.aff_code).executeTakeFirst();
    await db.transaction().execute((trx) =>
      insertUser(
        trx,
        deps.dialect,
        {
          username: input.username,
          password: input.password,
          email,
          ...(inviter ? { inviterId: inviter.id } : {}),
        },
        values,
      ),
    );
  };

  const getSelf = async (id: number): Promise<User> => {
    const row = await requireUser(id);
    return withBudgetUsage(db, 'u', row, toUserRecord(row, { withAccessToken: true }), options.values);
  };

  /** Blank username or password keep the old value; the display name may be cleared. */
  const updateSelf = async (id: number, input: UpdateSelfRequest): Promise<void> => {
    await requireUser(id);
    const changes: {
      username?: string;
      display_name?: string;
      password?: string;
      quota_alert_threshold?: number | null;
      token_alert_threshold?: number | null;
    } = {};
    if (input.username) {
      const taken = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', input.username)
        .where('id', '!=', id)
        .executeTakeFirst();
      if (taken) throw businessError('username already taken');
      changes.username = input.username;
    }
    if (input.display_name !== undefined) changes.display_name = input.display_name;
    if (input.password) changes.password = await hashPassword(input.password);
    for (const field of QUOTA_ALERT_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
    if (Object.keys(changes).length === 0) return;
    try {
      await db.updateTable('users').set(changes).where('id', '=', id).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw businessError('username already taken');
      throw error;
    }
    // The relay keeps users in memory (every instance): a new name goes into the next log rows, new
    // alert thresholds into the next request's check.
    await changeFeed.emit({ kind: 'user', id });
  };

  /** Soft delete as one-api: renamed, status 3, and every session of the user revoked. */
  const deleteSelf = async (id: number): Promise<void> => {
    const user = await requireUser(id);
    if (user.role >= 100) throw businessError('the super administrator account cannot be deleted');
    await db
      .updateTable('users')
      .set({ username: `deleted_${uuidHex()}`, status: USER_STATUS.deleted, access_token: null })
      .where('id', '=', id)
      .execute();
    await sessions.removeForUser(id);
    // Its keys stop working on the next request, on every instance.
    await changeFeed.emit({ kind: 'user', id });
  };

  const regenerateAccessToken = async (id: number): Promise<string> => {
    await requireUser(id);
    for (;;) {
      const token = uuidHex();
      try {
        await db.updateTable('users').set({ access_token: token }).where('id', '=', id).execute();
        return token;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
  };

  const affCode = async (id: number): Promise<string> => {
    const user = await requireUser(id);
    if (user.aff_code) return user.aff_code;
    for (;;) {
      const code = generateAffCode();
      try {
        await db.updateTable('users').set({ aff_code: code }).where('id', '=', id).execute();
        return code;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
  };

  return {
    findById,
    findByAccessToken,
    login,
    register,
    getSelf,
    updateSelf,
    deleteSelf,
    regenerateAccessToken,
    affCode,
  };
};

export type UserService = ReturnType<typeof createUserService>;
