import type { CreateTokenRequest, Token, UpdateTokenRequest } from '@sluice/contract/schemas/token';
import { TOKEN_STATUS } from '@sluice/contract/statuses';
import { prefixMatch } from '../db/prefix-match.js';
import { executeInsertId } from '../db/insert-id.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { businessError } from '../lib/app-error.js';
import { generateTokenKey } from '../lib/keys.js';
import { nowSeconds } from '../lib/time.js';
import { readBudgetUsage, withBudgetUsage } from './budget-usage.js';
import type { ChangeFeed } from './change-feed.js';
import { limitChangesOf } from './limit-record.js';
import { countOf, ITEMS_PER_PAGE, pageOffset } from './paging.js';
import type { ServiceDeps } from './service-deps.js';
import { toTokenRecord, type TokenRow } from './token-record.js';

import type { TokenOrder } from '@sluice/contract/list-orders';

export const TOKEN_EXPIRED_MESSAGE =
  'the token has expired and cannot be enabled: change its expiry time or set it to never expire';
export const TOKEN_EXHAUSTED_MESSAGE =
  'the token quota is used up and it cannot be enabled: change its remaining quota or make it unlimited';

/** A user's own tokens (one-api §3.5): every call is scoped to the caller. */
export const createTokenService = (deps: ServiceDeps, changes: ChangeFeed) => {
  const { db } = deps;

  const own = (userId: number) => db.selectFrom('tokens').selectAll().where('user_id', '=', userId);

  /** The records, each key with a budget with its windows' usage. */
  const records = async (rows: readonly TokenRow[]): Promise<Token[]> => {
    const usage = await readBudgetUsage(db, 't', rows, deps.options.values);
    return rows.map((row) => {
      const budget = usage.get(row.id);
      return budget ? { ...toTokenRecord(row), budget_usage: budget } : toTokenRecord(row);
    });
  };

  const requireOwn = async (userId: number, id: number): Promise<TokenRow> => {
    const row = await own(userId).where('id', '=', id).executeTakeFirst();
    if (!row) throw businessError('token does not exist');
    return row;
  };

  const list = async (
    userId: number,
    page: number,
    order: TokenOrder,
    size: number = ITEMS_PER_PAGE,
  ): Promise<Token[]> => {
    let query = own(userId);
    if (order === 'remain_quota')
      query = query.orderBy('unlimited_quota', 'desc').orderBy('remain_quota', 'desc');
    else if (order === 'used_quota') query = query.orderBy('used_quota', 'desc');
    const rows = await query.orderBy('id', 'desc').limit(size).offset(pageOffset(page, size)).execute();
    return records(rows);
  };

  /** How many tokens the user has (the pager's total). */
  const count = async (userId: number): Promise<number> =>
    countOf(
      await db
        .selectFrom('tokens')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    );

  const search = async (userId: number, keyword: string): Promise<Token[]> => {
    const rows = await own(userId)
      .where(prefixMatch('name', keyword))
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    return records(rows);
  };

  const get = async (userId: number, id: number): Promise<Token> => {
    const row = await requireOwn(userId, id);
    return withBudgetUsage(db, 't', row, toTokenRecord(row), deps.options.values);
  };

  const create = async (userId: number, input: CreateTokenRequest): Promise<Token> => {
    const now = nowSeconds();
    for (;;) {
      try {
        const id = await executeInsertId(
          deps.dialect,
          db.insertInto('tokens').values({
            user_id: userId,
            key: generateTokenKey(),
            status: TOKEN_STATUS.enabled,
            name: input.name,
            created_time: now,
            accessed_time: now,
            expired_time: input.expired_time,
            remain_quota: input.remain_quota,
            unlimited_quota: input.unlimited_quota,
            used_quota: 0,
            models: input.models,
            subnet: input.subnet,
            ...limitChangesOf(input),
          }),
        );
        return get(userId, id);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
  };

  /** Enabling is refused while the token is expired or used up (one-api's messages). */
  const checkEnable = (row: TokenRow): void => {
    if (row.expired_time !== -1 && row.expired_time <= nowSeconds())
      throw businessError(TOKEN_EXPIRED_MESSAGE);
    if (!row.unlimited_quota && row.remain_quota <= 0) throw businessError(TOKEN_EXHAUSTED_MESSAGE);
  };

  const setStatus = async (userId: number, id: number, status: 1 | 2): Promise<Token> => {
    const row = await requireOwn(userId, id);
    if (status === TOKEN_STATUS.enabled) checkEnable(row);
    await db
      .updateTable('tokens')
      .set({ status })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .execute();
    await changes.emit({ kind: 'token', id: row.key });
    return get(userId, id);
  };

  /** A full update overwrites every field but the status (the user toggles it afterwards). */
  const update = async (userId: number, input: UpdateTokenRequest): Promise<Token> => {
    const row = await requireOwn(userId, input.id);
    await db
      .updateTable('tokens')
      .set({
        name: input.name,
        expired_time: input.expired_time,
        remain_quota: input.remain_quota,
        unlimited_quota: input.unlimited_quota,
        models: input.models,
        subnet: input.subnet,
        ...limitChangesOf(input),
      })
      .where('id', '=', input.id)
      .where('user_id', '=', userId)
      .execute();
    await changes.emit({ kind: 'token', id: row.key });
    return get(userId, input.id);
  };

  const remove = async (userId: number, id: number): Promise<void> => {
    const row = await requireOwn(userId, id);
    await db.deleteFrom('tokens').where('id', '=', id).where('user_id', '=', userId).execute();
    await changes.emit({ kind: 'token', id: row.key });
  };

  return { list, count, search, get, create, setStatus, update, remove };
};

export type TokenService = ReturnType<typeof createTokenService>;
