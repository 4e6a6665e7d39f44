/** The SQL of settlements: the balances' moves and the log rows, in one transaction per batch. */
import { LOG_TYPE } from '@sluice/contract/statuses';
import { CompiledQuery, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { LogsTable, Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';

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
  readonly log?:
    | {
        readonly model: string;
        readonly promptTokens: number;
        readonly completionTokens: number;
        readonly content: string;
        readonly requestId: string;
        readonly elapsedMs: number;
        readonly stream: boolean;
        readonly systemPromptReset: boolean;
      }
    | undefined;
}

interface Sums {
  /** What the balance moves by: cost minus reservation (limited keys only, for tokens). */
  balance: number;
  used: number;
  requests: number;
}

const add = (map: Map<number, Sums>, id: number, balance: number, used: number) => {
  const sums = map.get(id) ?? { balance: 0, used: 0, requests: 0 };
  sums.balance += balance;
  sums.used += used;
  sums.requests += 1;
  map.set(id, sums);
};

/**
 * Row counts of the multi-row log INSERTs: a batch is written in chunks of these sizes (largest
 * first), so only this many distinct statements are ever compiled and kept prepared. One statement
 * per batch size would keep up to a couple of hundred, some of them large, in the driver's cache.
 */
const LOG_INSERT_SIZES = [64, 16, 4, 1] as const;

const logRow = (settlement: Settlement, at: number): Insertable<LogsTable> | undefined => {
  const log = settlement.log;
  if (!log) return undefined;
  return {
    user_id: settlement.payer.userId,
    username: settlement.username,
    created_at: at,
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
  };
};

/** The INSERT texts already compiled, per dialect (keyed by its adapter), by row count and columns. */
const insertTexts = new WeakMap<object, Map<string, string>>();

/**
 * The multi-row INSERT of log rows, compiled by Kysely once per dialect, row count and columns and
 * then reused with the rows' values. The rows all come from `logRow`: the same columns in the same
 * order, none undefined.
 */
export const logInsert = (db: Db, rows: readonly Insertable<LogsTable>[]): CompiledQuery => {
  const adapter = db.getExecutor().adapter;
  let texts = insertTexts.get(adapter);
  if (!texts) {
    texts = new Map();
    insertTexts.set(adapter, texts);
  }
  const columns = Object.keys(rows[0] ?? {}) as (keyof Insertable<LogsTable>)[];
  const key = `${rows.length} ${columns.join(',')}`;
  const text = texts.get(key);
  if (text === undefined) {
    const compiled = db.insertInto('logs').values(rows).compile();
    if (texts.size >= 1000) texts.clear();
    texts.set(key, compiled.sql);
    return compiled;
  }
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push(row[column]);
  return CompiledQuery.raw(text, parameters);
};

export const writeLogRows = async (db: Db, rows: readonly Insertable<LogsTable>[]): Promise<void> => {
  let start = 0;
  for (const size of LOG_INSERT_SIZES)
    for (; rows.length - start >= size; start += size)
      await db.executeQuery(logInsert(db, rows.slice(start, start + size)));
};

/**
 * Writes many settlements in one transaction: one atomic `col = col ± sum` per user, key and channel
 * (in id order, so that instances never deadlock one another) and multi-row log inserts. Answers
 * the log rows, for a separate log database.
 */
export const writeSettlements = async (
  trx: Transaction<Tables>,
  settlements: readonly Settlement[],
  logsHere: boolean,
): Promise<{ rows: Insertable<LogsTable>[]; userMoves: Map<number, number> }> => {
  const users = new Map<number, Sums>();
  const tokens = new Map<number, Sums>();
  const limited = new Set<number>();
  const channels = new Map<number, Sums>();
  for (const settlement of settlements) {
    const { payer, quota } = settlement;
    add(users, payer.userId, quota - settlement.preQuota, quota);
    add(tokens, payer.tokenId, quota - settlement.preQuota, quota);
    if (!payer.unlimited) limited.add(payer.tokenId);
    if (quota !== 0) add(channels, settlement.channelId, 0, quota);
  }
  const ordered = (map: Map<number, Sums>) => [...map.entries()].sort(([left], [right]) => left - right);
  const now = nowSeconds();
  for (const [id, sums] of ordered(users))
    await trx
      .updateTable('users')
      .set((eb) => ({
        quota: eb('quota', '-', sums.balance),
        used_quota: eb('used_quota', '+', sums.used),
        request_count: eb('request_count', '+', sums.requests),
      }))
      .where('id', '=', id)
      .execute();
  for (const [id, sums] of ordered(tokens))
    await trx
      .updateTable('tokens')
      .set((eb) => ({
        ...(limited.has(id) ? { remain_quota: eb('remain_quota', '-', sums.balance) } : {}),
        used_quota: eb('used_quota', '+', sums.used),
        accessed_time: now,
      }))
      .where('id', '=', id)
      .execute();
  for (const [id, sums] of ordered(channels))
    await trx
      .updateTable('channels')
      .set((eb) => ({ used_quota: eb('used_quota', '+', sums.used) }))
      .where('id', '=', id)
      .execute();
  const rows = settlements.map((settlement) => logRow(settlement, now)).filter((row) => row !== undefined);
  if (logsHere) await writeLogRows(trx, rows);
  return { rows, userMoves: new Map([...users].map(([id, sums]) => [id, -sums.balance])) };
};
