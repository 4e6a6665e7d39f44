import type { Insertable, Kysely } from 'kysely';
import { isDatabaseUnavailable } from '../../db/database-unavailable.js';
import type { LogsTable, Tables } from '../../db/tables.js';
import { writeLogRows, writeSettlements, type Settlement } from './settlement-write.js';

/**
 * A settlement the database refused on its own: charged at its reservation instead (no balance
 * move, since the reservation is already taken), with a log row that says so.
 */
const atReservation = (settlement: Settlement): Settlement => ({
  ...settlement,
  quota: settlement.preQuota,
  log: settlement.log && {
    ...settlement.log,
    content: `${settlement.log.content}; the real cost (${settlement.quota}) could not be written: settled at the reservation`,
  },
});

/** Settlements that could not be written at all (the database unreachable): said with their amounts. */
export class SettlementsNotWritten extends Error {
  constructor(
    readonly settlements: readonly {
      userId: number;
      tokenId: number;
      channelId: number;
      reserved: number;
      cost: number;
      requestId: string;
    }[],
    cause: unknown,
  ) {
    super(`${settlements.length} settlements could not be written; their reservations stay taken`, { cause });
  }
}

const summaryOf = (settlement: Settlement) => ({
  userId: settlement.payer.userId,
  tokenId: settlement.payer.tokenId,
  channelId: settlement.channelId,
  reserved: settlement.preQuota,
  cost: settlement.quota,
  requestId: settlement.log?.requestId ?? '',
});

/** How long a write waits before it tries a database that was away again: 100 ms doubling to 5 s. */
const retryDelayMs = (attempt: number): number => Math.min(100 * 2 ** attempt, 5000);
/** After `stop` (shutdown), how long writes still wait for a database that is away. */
const STOP_GRACE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SettlementBatcher {
  (settlement: Settlement): Promise<void>;
  /** Settlements gathered or being written, not yet committed (the backlog admission bounds). */
  backlog(): number;
  /** Shutdown: writes still wait for a database that is away for STOP_GRACE_MS, then give up. */
  stop(): void;
}

/**
 * Gathers the settlements of a short window (`windowMs`) and writes them together: a transaction per
 * batch instead of one per request. Every settlement of a batch gets the batch's one promise, which
 * settles when the batch is committed; `committed` is told how much each user's quota moved.
 *
 * When the database cannot be reached, a batch is kept and written again (100 ms, doubling to 5 s)
 * until it can: answered requests are billed late, never dropped, while the process lives (the
 * backlog is bounded by admission: see `backlog`). When the batch's transaction fails otherwise,
 * nothing of it was written (it rolled back), and each settlement is written again alone, so that
 * one the database refuses (a cost out of its range, say) does not take the others' billing with it.
 * One refused alone is charged at its reservation with a log row that says so: the reservation is
 * money already taken, and every unit taken has a log row. One refused even so, or still unwritten
 * when a stopping process gives up, keeps its reservation taken and has no log row: the batch's
 * promise rejects with SettlementsNotWritten, which names them and their amounts for the log.
 */
export const createSettlementBatcher = (
  db: Kysely<Tables>,
  logDb: Kysely<Tables>,
  windowMs: number,
  committed: (userMoves: ReadonlyMap<number, number>) => void,
  /** Told of each settlement as its balances are committed (or it is given up): no longer owed. */
  settled: (settlement: Settlement) => void = () => undefined,
): SettlementBatcher => {
  const sameDatabase = db === logDb;
  let queue: Settlement[] = [];
  let batch: Promise<void> | undefined;
  let chain: Promise<void> = Promise.resolve();
  let writing = 0;
  let giveUpAt = Infinity;

  const commit = async (settlements: readonly Settlement[]): Promise<Insertable<LogsTable>[]> => {
    const { rows, userMoves } = await db
      .transaction()
      .execute((trx) => writeSettlements(trx, settlements, sameDatabase));
    committed(userMoves);
    return rows;
  };

  /** One settlement alone; refused for its own sake, at its reservation. The database away: thrown. */
  const commitAlone = async (settlement: Settlement): Promise<Insertable<LogsTable>[]> => {
    try {
      return await commit([settlement]);
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      return commit([atReservation(settlement)]);
    }
  };

  /** One try: the log rows written, the settlements to try again (database away), those refused. */
  const writeOnce = async (settlements: readonly Settlement[]) => {
    try {
      const rows = await commit(settlements);
      for (const settlement of settlements) settled(settlement);
      return { rows, away: [], refused: [], error: undefined };
    } catch (batchError) {
      if (isDatabaseUnavailable(batchError))
        return { rows: [], away: settlements, refused: [], error: batchError };
      const rows: Insertable<LogsTable>[] = [];
      const away: Settlement[] = [];
      const refused: Settlement[] = [];
      let error: unknown;
      for (const settlement of settlements)
        try {
          rows.push(...(await commitAlone(settlement)));
          settled(settlement);
        } catch (failure) {
          (isDatabaseUnavailable(failure) ? away : refused).push(settlement);
          error = failure;
        }
      return { rows, away, refused, error };
    }
  };

  /** Runs `work` until the database answers it (or a stopping process gives up). */
  const untilWritten = async (work: () => Promise<void>): Promise<void> => {
    for (let attempt = 0; ; attempt += 1)
      try {
        return await work();
      } catch (error) {
        if (!isDatabaseUnavailable(error) || Date.now() > giveUpAt) throw error;
        await sleep(retryDelayMs(attempt));
      }
  };

  const write = async (settlements: readonly Settlement[]): Promise<void> => {
    const rows: Insertable<LogsTable>[] = [];
    const refused: Settlement[] = [];
    let pending: readonly Settlement[] = settlements;
    let cause: unknown;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) {
        if (Date.now() > giveUpAt) break;
        await sleep(retryDelayMs(attempt - 1));
      }
      const result = await writeOnce(pending);
      rows.push(...result.rows);
      refused.push(...result.refused);
      pending = result.away;
      cause = result.error ?? cause;
    }
    const lost = [...refused, ...pending];
    for (const settlement of lost) settled(settlement);
    // A separate log database: the balances are committed; their rows are written until it answers,
    // in one transaction, so that a try broken half-way leaves no rows to write twice.
    if (!sameDatabase && rows.length > 0)
      await untilWritten(() => logDb.transaction().execute((trx) => writeLogRows(trx, rows)));
    if (lost.length > 0) throw new SettlementsNotWritten(lost.map(summaryOf), cause);
  };

  const settle = (settlement: Settlement): Promise<void> => {
    queue.push(settlement);
    batch ??= new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        const settlements = queue;
        queue = [];
        batch = undefined;
        writing += settlements.length;
        // Batches are written one after another; a failed one does not stop the next.
        chain = chain
          .then(() => write(settlements))
          .finally(() => {
            writing -= settlements.length;
          })
          .then(resolve, reject);
      }, windowMs);
    });
    return batch;
  };
  return Object.assign(settle, {
    backlog: () => queue.length + writing,
    stop: () => {
      giveUpAt = Math.min(giveUpAt, Date.now() + STOP_GRACE_MS);
    },
  });
};
