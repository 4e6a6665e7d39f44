/** The SQL of settlements: the balances' moves and the log rows, in one transaction per batch. */
import type { ClientFormat } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { CompiledQuery, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { LogsTable, Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';
import { createBalanceMoves, type Sums } from './balance-moves.js';
import { reservationStates, type ReservationState } from './reservation-rows.js';
import { alreadyWritten, markWritten } from './settled-ranges.js';

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
  /**
   * The quota pool (a reservation row) the request was admitted from: its cost is drawn from the row,
   * the balances stay (the pool took them); `preQuota` is the estimate it was admitted for. Without
   * one, the balances move by `quota − preQuota`.
   */
  readonly reservationId?: string | undefined;
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
        /** The request's client format (absent in journals an older Sluice wrote: NULL). */
        readonly clientFormat?: ClientFormat | undefined;
        /** The routing decision, JSON (routing-trail.ts; absent in journals an older Sluice wrote: NULL). */
        readonly routing?: string | undefined;
      }
    | undefined;
}

/** A settlement with its journal sequence number. */
export interface Journaled {
  readonly seq: number;
  readonly settlement: Settlement;
  /** When it was queued for writing (performance.now()), for the billing lag; absent in a replay. */
  readonly queuedAt?: number;
}

export interface WriteScope {
  readonly dialect: Dialect;
  /** Whose journal the settlements come from (their sequence numbers are its). */
  readonly instanceId: string;
  /** Write the log rows here too (the logs share the database). */
  readonly logsHere: boolean;
  /** Skip what is already written: a retry after an unknown outcome, or a replay. */
  readonly checkWritten: boolean;
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
    // Always written (NULL when unknown), so every row of a batch has the same columns.
    client_format: log.clientFormat ?? null,
    routing: log.routing ?? null,
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
 * How a settlement moves the balances given its pool's state: not at all while the pool is held (the
 * cost is drawn from it); by the whole cost when a recovery released the pool; skipped when the pool
 * was given back (it was written). Without a pool: by the cost less what was reserved.
 */
const effective = (settlement: Settlement, state: ReservationState | undefined): Settlement | undefined => {
  if (state === undefined) return settlement;
  if (state === 'held') return { ...settlement, preQuota: settlement.quota };
  if (state === 'released') return { ...settlement, preQuota: 0 };
  return undefined;
};

/**
 * Writes many settlements in one transaction: multi-row log inserts and the journal ranges
 * written, then one atomic `col = col ± sum` per user, key and channel (in id order, so that
 * instances never deadlock one another), then the costs drawn from the pools' rows (after the
 * users, as growing a pool locks them in that order). Answers the log rows (for a separate log
 * database) and each user's balance move.
 */
export const writeSettlements = async (
  trx: Transaction<Tables>,
  journaled: readonly Journaled[],
  scope: WriteScope,
): Promise<{ rows: Insertable<LogsTable>[]; userMoves: Map<number, number>; written: number }> => {
  let todo = journaled;
  if (scope.checkWritten) {
    const done = await alreadyWritten(
      trx,
      scope.instanceId,
      journaled.map((entry) => entry.seq),
    );
    todo = journaled.filter((entry) => !done.has(entry.seq));
  }
  const ids = todo.flatMap((entry) =>
    entry.settlement.reservationId ? [entry.settlement.reservationId] : [],
  );
  const states = await reservationStates(trx, ids);
  const draws = new Map<string, number>();
  const settlements = todo.flatMap((entry) => {
    const { reservationId } = entry.settlement;
    const state = reservationId ? states.get(reservationId) : undefined;
    if (reservationId && state === 'held')
      draws.set(reservationId, (draws.get(reservationId) ?? 0) + entry.settlement.quota);
    const settlement = effective(entry.settlement, state);
    return settlement ? [settlement] : [];
  });
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
  const now = nowSeconds();
  // The rows that lock nothing others wait for first; the hot rows (a user's, a key's) last, so that
  // they are held only for the few statements before COMMIT.
  const rows = settlements.map((settlement) => logRow(settlement, now)).filter((row) => row !== undefined);
  if (scope.logsHere) await writeLogRows(trx, rows);
  await markWritten(
    trx,
    scope.instanceId,
    todo.map((entry) => entry.seq),
  );
  const moves = createBalanceMoves(trx, scope.dialect);
  await moves.users(users);
  await moves.tokens(tokens, limited, now);
  await moves.channels(channels);
  await moves.reservations(draws);
  return {
    rows,
    userMoves: new Map([...users].map(([id, sums]) => [id, -sums.balance])),
    written: todo.length,
  };
};
