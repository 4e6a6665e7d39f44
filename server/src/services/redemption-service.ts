import type { CreateRedemptionRequest, Redemption } from '@sluice/contract/schemas/redemption';
import { LOG_TYPE, REDEMPTION_STATUS } from '@sluice/contract/statuses';
import type { Selectable } from 'kysely';
import { prefixMatch } from '../db/prefix-match.js';
import type { RedemptionsTable } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import { uuidHex } from '../lib/keys.js';
import { nowSeconds } from '../lib/time.js';
import type { ChangeFeed } from './change-feed.js';
import { writeLog } from './log-writer.js';
import { countOf, ITEMS_PER_PAGE, pageOffset } from './paging.js';
import { increaseUserQuota } from './quota-service.js';
import { formatLogQuota } from './quota-text.js';
import type { ServiceDeps } from './service-deps.js';

const toRecord = (row: Selectable<RedemptionsTable>): Redemption => ({
  id: row.id,
  user_id: row.user_id,
  key: row.key,
  status: row.status,
  name: row.name ?? '',
  quota: row.quota,
  created_time: row.created_time,
  redeemed_time: row.redeemed_time,
});

const REDEEM_FAILED = 'redeem failed: ';

/** Redemption codes (one-api §3.6), admin-managed, redeemed by users once each. */
export const createRedemptionService = (deps: ServiceDeps, changes: ChangeFeed) => {
  const { db } = deps;

  const requireCode = async (id: number) => {
    const row = await db.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw businessError('redemption code does not exist');
    return row;
  };

  const list = async (page: number, size: number = ITEMS_PER_PAGE): Promise<Redemption[]> =>
    (
      await db
        .selectFrom('redemptions')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(size)
        .offset(pageOffset(page, size))
        .execute()
    ).map(toRecord);

  /** How many codes there are (the pager's total). */
  const count = async (): Promise<number> =>
    countOf(
      await db
        .selectFrom('redemptions')
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirst(),
    );

  const search = async (keyword: string): Promise<Redemption[]> => {
    const id = /^\d{1,15}$/.test(keyword) ? Number(keyword) : undefined;
    const rows = await db
      .selectFrom('redemptions')
      .selectAll()
      .where((eb) =>
        id === undefined
          ? prefixMatch('name', keyword)
          : eb.or([eb('id', '=', id), prefixMatch('name', keyword)]),
      )
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    return rows.map(toRecord);
  };

  const get = async (id: number): Promise<Redemption> => toRecord(await requireCode(id));

  /** All codes or none: data is the list of keys. */
  const create = async (creatorId: number, input: CreateRedemptionRequest): Promise<string[]> => {
    const now = nowSeconds();
    const keys = Array.from({ length: input.count }, () => uuidHex());
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('redemptions')
        .values(
          keys.map((key) => ({
            user_id: creatorId,
            key,
            status: REDEMPTION_STATUS.unused,
            name: input.name,
            quota: input.quota,
            created_time: now,
            redeemed_time: 0,
          })),
        )
        .execute();
    });
    return keys;
  };

  const update = async (input: { id: number; name: string; quota: number }): Promise<Redemption> => {
    await requireCode(input.id);
    await db
      .updateTable('redemptions')
      .set({ name: input.name, quota: input.quota })
      .where('id', '=', input.id)
      .execute();
    return get(input.id);
  };

  /** Toggles 1 ↔ 2; a used code stays used. */
  const setStatus = async (id: number, status: 1 | 2): Promise<Redemption> => {
    const result = await db
      .updateTable('redemptions')
      .set({ status })
      .where('id', '=', id)
      .where('status', '!=', REDEMPTION_STATUS.used)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      await requireCode(id);
      throw businessError('this code has already been used; its status cannot change');
    }
    return get(id);
  };

  const remove = async (id: number): Promise<void> => {
    await requireCode(id);
    await db.deleteFrom('redemptions').where('id', '=', id).execute();
  };

  /**
   * Redeems a code for a user: the code is marked used by a conditional update (only one of any
   * number of concurrent redeems can match `status = 1`), and the quota and the top-up log move in
   * the same transaction.
   */
  const redeem = async (userId: number, username: string, key: string): Promise<number> => {
    const sameDatabase = db === deps.logDb;
    const outcome = await db.transaction().execute(async (trx) => {
      const code = await trx.selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirst();
      if (!code) throw businessError(`${REDEEM_FAILED}invalid redemption code`);
      if (code.status !== REDEMPTION_STATUS.unused)
        throw businessError(`${REDEEM_FAILED}this code has already been used`);
      const claimed = await trx
        .updateTable('redemptions')
        .set({ status: REDEMPTION_STATUS.used, redeemed_time: nowSeconds() })
        .where('id', '=', code.id)
        .where('status', '=', REDEMPTION_STATUS.unused)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1)
        throw businessError(`${REDEEM_FAILED}this code has already been used`);
      await increaseUserQuota(trx, userId, code.quota);
      const entry = {
        userId,
        username,
        type: LOG_TYPE.topup,
        content: `top up via redemption code ${formatLogQuota(code.quota, deps.options.values)} (code #${code.id})`,
        quota: code.quota,
      };
      if (sameDatabase) await writeLog(trx, entry);
      return { quota: code.quota, entry };
    });
    if (!sameDatabase) await writeLog(deps.logDb, outcome.entry);
    await changes.emit({ kind: 'user', id: userId });
    return outcome.quota;
  };

  return { list, count, search, get, create, update, setStatus, remove, redeem };
};

export type RedemptionService = ReturnType<typeof createRedemptionService>;
