import { LOG_TYPE } from '@sluice/contract/statuses';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../db/tables.js';
import { relayError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';

type Db = Kysely<Tables> | Transaction<Tables>;

export interface Payer {
  readonly userId: number;
  readonly tokenId: number;
  readonly unlimited: boolean;
}

export interface Settlement {
  readonly payer: Payer;
  readonly username: string;
  readonly tokenName: string;
  readonly channelId: number;
  /** What was reserved before the call. */
  readonly preQuota: number;
  /** What the request costs. */
  readonly quota: number;
  readonly log?: {
    readonly model: string;
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly content: string;
    readonly requestId: string;
    readonly elapsedMs: number;
    readonly stream: boolean;
    readonly systemPromptReset: boolean;
  };
}

const moveQuota = async (db: Db, payer: Payer, amount: number): Promise<void> => {
  if (amount === 0) return;
  await db
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '-', amount) }))
    .where('id', '=', payer.userId)
    .execute();
  if (!payer.unlimited)
    await db
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
      .where('id', '=', payer.tokenId)
      .execute();
};

/**
 * Money for the relay, in atomic SQL only (`quota = quota - n`), so concurrent requests and several
 * instances never lose a move. The consumption log row is written in the same transaction as the
 * quota it accounts for when the logs share the database.
 */
export const createBilling = (db: Kysely<Tables>, logDb: Kysely<Tables>) => {
  const sameDatabase = db === logDb;

  /** Reserves quota before the call: refused when the user or a limited token cannot cover it. */
  const reserve = async (payer: Payer, amount: number): Promise<void> => {
    if (amount <= 0) return;
    await db.transaction().execute(async (trx) => {
      const user = await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '-', amount) }))
        .where('id', '=', payer.userId)
        .where('quota', '>=', amount)
        .executeTakeFirst();
      if (Number(user.numUpdatedRows) !== 1)
        throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
      if (payer.unlimited) return;
      const token = await trx
        .updateTable('tokens')
        .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
        .where('id', '=', payer.tokenId)
        .where('remain_quota', '>=', amount)
        .executeTakeFirst();
      if (Number(token.numUpdatedRows) !== 1)
        throw relayError(403, 'pre_consume_token_quota_failed', 'token quota is not enough');
    });
  };

  /** Gives a reservation back (a failed request costs nothing). */
  const release = (payer: Payer, amount: number): Promise<void> => moveQuota(db, payer, -amount);

  const writeConsumeLog = async (target: Db, settlement: Settlement): Promise<void> => {
    const log = settlement.log;
    if (!log) return;
    await target
      .insertInto('logs')
      .values({
        user_id: settlement.payer.userId,
        username: settlement.username,
        created_at: nowSeconds(),
        type: LOG_TYPE.consume,
        content: log.content,
        token_name: settlement.tokenName,
        model_name: log.model,
        quota: settlement.quota,
        prompt_tokens: log.promptTokens,
        completion_tokens: log.completionTokens,
        channel_id: settlement.channelId,
        request_id: log.requestId,
        elapsed_time: log.elapsedMs,
        is_stream: log.stream,
        system_prompt_reset: log.systemPromptReset,
      })
      .execute();
  };

  /** Charges the real cost: the difference to the reservation, the counters, the log row. */
  const settle = async (settlement: Settlement): Promise<void> => {
    const { payer, quota } = settlement;
    await db.transaction().execute(async (trx) => {
      await moveQuota(trx, payer, quota - settlement.preQuota);
      await trx
        .updateTable('users')
        .set((eb) => ({
          used_quota: eb('used_quota', '+', quota),
          request_count: eb('request_count', '+', 1),
        }))
        .where('id', '=', payer.userId)
        .execute();
      await trx
        .updateTable('tokens')
        .set((eb) => ({ used_quota: eb('used_quota', '+', quota), accessed_time: nowSeconds() }))
        .where('id', '=', payer.tokenId)
        .execute();
      if (quota !== 0)
        await trx
          .updateTable('channels')
          .set((eb) => ({ used_quota: eb('used_quota', '+', quota) }))
          .where('id', '=', settlement.channelId)
          .execute();
      if (sameDatabase) await writeConsumeLog(trx, settlement);
    });
    if (!sameDatabase) await writeConsumeLog(logDb, settlement);
  };

  /** The user's current quota (read fresh: it moves with every request). */
  const userQuota = async (userId: number): Promise<number> => {
    const row = await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    return row?.quota ?? 0;
  };

  return { reserve, release, settle, userQuota };
};

export type Billing = ReturnType<typeof createBilling>;
