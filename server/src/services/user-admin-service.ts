import { ROLES } from '@sluice/contract/roles';
import type { UpdateUserRequest, User, UserAction } from '@sluice/contract/schemas/user';
import { LOG_TYPE, USER_STATUS } from '@sluice/contract/statuses';
import { prefixMatch } from '../db/prefix-match.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { businessError } from '../lib/app-error.js';
import { uuidHex } from '../lib/keys.js';
import { hashPassword } from '../lib/password.js';
import type { ChangeFeed } from './change-feed.js';
import { writeLog } from './log-writer.js';
import { limitChangesOf } from './limit-record.js';
import { countOf, ITEMS_PER_PAGE, pageOffset } from './paging.js';
import { formatLogQuota } from './quota-text.js';
import type { ServiceDeps } from './service-deps.js';
import type { SessionStore } from './session-store.js';
import { insertUser } from './user-creation.js';
import { toUserRecord, type UserRow } from './user-record.js';
import { withBudgetUsage } from './budget-usage.js';

import type { UserOrder } from '@sluice/contract/list-orders';

interface Actor {
  readonly id: number;
  readonly role: number;
}

/** An admin acts only on lower roles; root acts on anyone. */
const outranks = (actor: Actor, target: UserRow): boolean =>
  actor.role >= ROLES.root || actor.role > target.role;

/** Admin user management (one-api §3.4) without its defects: explicit fields, no tokens in lists. */
export const createUserAdminService = (deps: ServiceDeps, sessions: SessionStore, changeFeed: ChangeFeed) => {
  const { db } = deps;
  const record = (row: UserRow): User => toUserRecord(row, { withAccessToken: false });

  const requireUser = async (id: number): Promise<UserRow> => {
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw businessError('user does not exist');
    return row;
  };

  const list = async (page: number, order: UserOrder, size: number = ITEMS_PER_PAGE): Promise<User[]> => {
    let query = db.selectFrom('users').selectAll().where('status', '!=', USER_STATUS.deleted);
    if (order !== '') query = query.orderBy(order, 'desc');
    const rows = await query.orderBy('id', 'desc').limit(size).offset(pageOffset(page, size)).execute();
    return rows.map(record);
  };

  /** How many users the list holds (deleted ones left out, as in the list). */
  const count = async (): Promise<number> =>
    countOf(
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('status', '!=', USER_STATUS.deleted)
        .executeTakeFirst(),
    );

  const search = async (keyword: string): Promise<User[]> => {
    const id = /^\d{1,15}$/.test(keyword) ? Number(keyword) : undefined;
    const rows = await db
      .selectFrom('users')
      .selectAll()
      .where('status', '!=', USER_STATUS.deleted)
      .where((eb) =>
        eb.or([
          ...(id === undefined ? [] : [eb('id', '=', id)]),
          prefixMatch('username', keyword),
          prefixMatch('email', keyword),
          prefixMatch('display_name', keyword),
        ]),
      )
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    return rows.map(record);
  };

  const get = async (actor: Actor, id: number): Promise<User> => {
    const target = await requireUser(id);
    if (!outranks(actor, target))
      throw businessError('no permission to read users of the same or higher level');
    return withBudgetUsage(deps.db, 'u', target, record(target), deps.options.values);
  };

  const create = async (
    actor: Actor,
    input: { username: string; password: string; display_name: string; role?: number | undefined },
  ): Promise<void> => {
    if (input.role !== undefined && input.role >= actor.role)
      throw businessError('cannot create a user with a role equal to or higher than yours');
    await db
      .transaction()
      .execute((trx) =>
        insertUser(
          trx,
          deps.dialect,
          { username: input.username, password: input.password, displayName: input.display_name },
          deps.options.values,
        ),
      );
  };

  /** Writes exactly the fields the body carries; quota may be set to 0 and names cleared. */
  const update = async (actor: Actor, input: UpdateUserRequest): Promise<User> => {
    const target = await requireUser(input.id);
    if (!outranks(actor, target))
      throw businessError('no permission to update users of the same or higher level');
    if (input.role !== undefined && input.role >= actor.role && actor.role < ROLES.root)
      throw businessError('cannot raise a user to your level or above');
    if (input.role !== undefined && ![ROLES.common, ROLES.admin, ROLES.root].includes(input.role as 1))
      throw businessError('role must be 1, 10 or 100');
    if (
      input.status !== undefined &&
      input.status !== USER_STATUS.enabled &&
      input.status !== USER_STATUS.disabled
    )
      throw businessError('status must be 1 (enabled) or 2 (disabled)');
    if (input.status === USER_STATUS.disabled && target.role >= ROLES.root)
      throw businessError('the super administrator cannot be disabled');
    if (input.role !== undefined && input.role < ROLES.root && target.role >= ROLES.root)
      throw businessError('the super administrator cannot be demoted');
    const changes: Partial<
      Pick<
        UserRow,
        'username' | 'display_name' | 'password' | 'email' | 'quota' | 'group' | 'role' | 'status'
      >
    > &
      ReturnType<typeof limitChangesOf> = limitChangesOf(input);
    if (input.username) changes.username = input.username;
    if (input.display_name !== undefined) changes.display_name = input.display_name;
    if (input.password) changes.password = await hashPassword(input.password);
    if (input.email !== undefined) changes.email = input.email;
    if (input.group !== undefined) changes.group = input.group === '' ? 'default' : input.group;
    if (input.role !== undefined) changes.role = input.role;
    if (input.status !== undefined) changes.status = input.status;
    const sameDatabase = db === deps.logDb;
    let quotaLog: { from: number; to: number } | undefined;
    try {
      await db.transaction().execute(async (trx) => {
        if (input.quota !== undefined) {
          let read = trx.selectFrom('users').select('quota').where('id', '=', input.id);
          if (deps.dialect !== 'sqlite') read = read.forUpdate();
          const current = await read.executeTakeFirstOrThrow();
          if (current.quota !== input.quota) {
            changes.quota = input.quota;
            quotaLog = { from: current.quota, to: input.quota };
          }
        }
        if (Object.keys(changes).length > 0)
          await trx.updateTable('users').set(changes).where('id', '=', input.id).execute();
        if (quotaLog && sameDatabase) await writeLog(trx, quotaEntry(target, quotaLog));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw businessError('username already taken');
      throw error;
    }
    if (quotaLog && !sameDatabase) await writeLog(deps.logDb, quotaEntry(target, quotaLog));
    if (changes.status === USER_STATUS.disabled) await sessions.removeForUser(input.id);
    await changeFeed.emit({ kind: 'user', id: input.id });
    return record(await requireUser(input.id));
  };

  const quotaEntry = (target: UserRow, move: { from: number; to: number }) => ({
    userId: target.id,
    username: target.username,
    type: LOG_TYPE.manage,
    content: `admin changed the user's quota from ${formatLogQuota(move.from, deps.options.values)} to ${formatLogQuota(move.to, deps.options.values)}`,
  });

  const softDelete = async (id: number): Promise<void> => {
    await db
      .updateTable('users')
      .set({ username: `deleted_${uuidHex()}`, status: USER_STATUS.deleted, access_token: null })
      .where('id', '=', id)
      .execute();
    await sessions.removeForUser(id);
    await changeFeed.emit({ kind: 'user', id });
  };

  /** POST /api/user/manage: one-api's permission matrix; data = the new role and status. */
  const manage = async (
    actor: Actor,
    username: string,
    action: UserAction,
  ): Promise<{ role: number; status: number }> => {
    const target = await db
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirst();
    if (!target || target.status === USER_STATUS.deleted) throw businessError('user does not exist');
    if (!outranks(actor, target))
      throw businessError('no permission to update users of the same or higher level');
    const isRoot = target.role >= ROLES.root;
    const set = async (values: { role?: number; status?: number }) => {
      await db.updateTable('users').set(values).where('id', '=', target.id).execute();
      await changeFeed.emit({ kind: 'user', id: target.id });
    };
    switch (action) {
      case 'disable':
        if (isRoot) throw businessError('the super administrator cannot be disabled');
        await set({ status: USER_STATUS.disabled });
        await sessions.removeForUser(target.id);
        return { role: target.role, status: USER_STATUS.disabled };
      case 'enable':
        await set({ status: USER_STATUS.enabled });
        return { role: target.role, status: USER_STATUS.enabled };
      case 'delete':
        if (isRoot) throw businessError('the super administrator cannot be deleted');
        await softDelete(target.id);
        return { role: target.role, status: USER_STATUS.deleted };
      case 'promote':
        if (actor.role < ROLES.root)
          throw businessError('ordinary administrators cannot promote other users');
        if (target.role >= ROLES.admin) throw businessError('this user is already an administrator');
        await set({ role: ROLES.admin });
        return { role: ROLES.admin, status: target.status };
      case 'demote':
        if (isRoot) throw businessError('the super administrator cannot be demoted');
        if (target.role === ROLES.common) throw businessError('this user is already a common user');
        await set({ role: ROLES.common });
        return { role: ROLES.common, status: target.status };
    }
  };

  /** DELETE /api/user/:id: the caller must outrank the target (no exception for root targets). */
  const remove = async (actor: Actor, id: number): Promise<void> => {
    const target = await requireUser(id);
    if (target.role >= ROLES.root) throw businessError('the super administrator cannot be deleted');
    if (actor.role <= target.role)
      throw businessError('no permission to delete users of the same or higher level');
    await softDelete(id);
  };

  return { list, count, search, get, create, update, manage, remove };
};

export type UserAdminService = ReturnType<typeof createUserAdminService>;
